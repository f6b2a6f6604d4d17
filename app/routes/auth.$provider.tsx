import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { translatorOf } from "~/i18n/i18n.server";
import { startProviderFlow } from "~/utils/identity/authenticator.server";
import { PROVIDER_LABELS, providerParam } from "~/utils/identity/routes.server";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithFormError } from "~/utils/toast.server";

// Starts Google or Apple sign-in (from /login) or account linking (?intent=connect, from the
// dashboard). A POST, so another site cannot start a flow in your name.

export async function loader({ params }: LoaderFunctionArgs) {
  providerParam(params.provider);
  return redirect("/login");
}

export async function action({ request, params }: ActionFunctionArgs) {
  const provider = providerParam(params.provider);
  const url = new URL(request.url);
  const connecting = url.searchParams.get("intent") === "connect";
  if (connecting && !(await getSessionToken(request))) return redirect("/login");
  try {
    return await startProviderFlow(
      provider,
      request,
      connecting ? { kind: "connect" } : { kind: "signin", oldurl: url.searchParams.get("oldurl") ?? "" },
    );
  } catch (error) {
    console.error(`Starting ${provider} sign-in failed:`, error instanceof Error ? error.message : error);
    // The message stays on the page too (issue 21): in the 'Connected accounts' card, or /login's sign-in form.
    return redirectWithFormError(
      connecting ? "/" : "/login",
      translatorOf(request)("auth.social.unavailable", { provider: PROVIDER_LABELS[provider] }),
      { form: connecting ? "home-accounts" : "sign-in" },
    );
  }
}
