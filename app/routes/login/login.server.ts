import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { LoginSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { requireAnonymous } from "~/utils/auth.server";
import { formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession } from "~/utils/session.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { needsSecondFactor, redirectToSecondFactor } from "~/utils/two-factor.server";
import { signupAction, signupState } from "./signup.server";
import { languageOnSignIn } from "~/i18n/account-language.server";

// /login's loader and action: sign-in by password (then the two-factor step when it is on) and the
// sign-up steps of the other tab (signup.server.ts).

export async function loginLoader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  const tab = new URL(request.url).searchParams.get("tab") === "signup" ? "signup" : "signin";
  return { signup: tab === "signup" ? await signupState(request) : null };
}

export async function loginAction({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "signin");
  const oldurlField = formData.get("oldurl");
  const oldurl = typeof oldurlField === "string" && oldurlField ? oldurlField : (new URL(request.url).searchParams.get("oldurl") ?? "");
  if (intent === "signin") return signIn(request, context, formData, oldurl);
  return signupAction(intent, { request, context, formData, oldurl });
}

async function signIn(request: Request, context: ActionFunctionArgs["context"], formData: FormData, oldurl: string) {
  const submission = parseSubmission(formData, LoginSchema);
  if (submission.status !== "success") return formFailure("sign-in", submission);
  const { email, password } = submission.value;
  const result = await createApiClient(request, context).post("/api/user/login", { body: { email, password } });
  if (!result.ok) return formFailure("sign-in", submission, result.message || "auth.error.loginFailed", result.status, { errorAt: "" });
  if (needsSecondFactor(result.data)) return redirectToSecondFactor(request, result.data.challenge, { oldurl });
  const headers = new Headers();
  headers.append("Set-Cookie", await commitTokenSession(request, result.data.token));
  // The account's language comes with it (or the account takes the page's): issue 36.
  const languageSet = await languageOnSignIn(request, context, result.data.token, result.data.user);
  if (languageSet) headers.append("Set-Cookie", languageSet);
  appendDeviceCookie(headers, request);
  return redirect(safeRedirect(oldurl), { headers });
}
