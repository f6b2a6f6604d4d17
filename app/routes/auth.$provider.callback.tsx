import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { translatorOf } from "~/i18n/i18n.server";
import { createApiClient } from "~/utils/api.server";
import {
  clearFlowCookies,
  finishProviderFlow,
  readIntent,
  stashFlowOutcome,
  takeFlowOutcome,
  type DeviceFields,
  type FlowOutcome,
} from "~/utils/identity/authenticator.server";
import { IdentityError } from "~/utils/identity/common.server";
import { desktopHandoffCookie } from "~/utils/identity/desktop.server";
import type { ProviderName } from "~/utils/identity/providers.server";
import { PROVIDER_LABELS, providerParam } from "~/utils/identity/routes.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession, getSessionToken } from "~/utils/session.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { needsSecondFactor, redirectToSecondFactor } from "~/utils/two-factor.server";
import { languageOnSignIn } from "~/i18n/account-language.server";
import { languageOf } from "~/i18n/i18n.server";

// The provider's answer. Google redirects here (GET). Apple posts here cross-site (form_post; this
// path is exempt from the same-origin POST check and verifies itself by state, nonce and the ID
// token): that POST only verifies and continues with a GET of this route, where this site's cookies
// (the session) are sent again. Then the API signs in, creates the account, links it, or hands a
// token to the desktop app.

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const provider = providerParam(params.provider);
  const headers = new Headers();
  if (provider === "apple") {
    const { outcome, clear } = await takeFlowOutcome(request);
    headers.append("Set-Cookie", clear);
    return complete(request, context, provider, outcome ?? { error: "auth.social.tooLong", intent: null }, headers);
  }
  for (const cookie of await clearFlowCookies(request)) headers.append("Set-Cookie", cookie);
  return complete(request, context, provider, await verify(provider, request), headers);
}

export async function action({ request, params }: ActionFunctionArgs) {
  const provider = providerParam(params.provider);
  if (provider !== "apple") throw new Response("Method Not Allowed", { status: 405 });
  const headers = new Headers();
  for (const cookie of await clearFlowCookies(request)) headers.append("Set-Cookie", cookie);
  headers.append("Set-Cookie", await stashFlowOutcome(await verify(provider, request)));
  return redirect(`/auth/${provider}/callback`, { status: 303, headers });
}

async function verify(provider: ProviderName, request: Request): Promise<FlowOutcome> {
  try {
    return await finishProviderFlow(provider, request);
  } catch (error) {
    return { error: error instanceof IdentityError ? error.message : "auth.error.loginFailed", intent: await readIntent(request) };
  }
}

async function complete(request: Request, context: AppLoadContext, provider: ProviderName, outcome: FlowOutcome, headers: Headers) {
  const label = PROVIDER_LABELS[provider];
  const t = translatorOf(request);
  // Made here, with the provider's name in it, in the page's language: the toast shows it as it is.
  const signedIn = t("auth.social.signedInWith", { provider: label });
  if ("error" in outcome) {
    const back =
      outcome.intent?.kind === "desktop"
        ? desktopRetryUrl(provider, outcome.intent.device)
        : (await getSessionToken(request))
          ? "/"
          : "/login";
    return redirectWithFormError(back, outcome.error, errorTarget(back), { headers });
  }
  const { profile, intent } = outcome;
  const social = { name: profile.name, email: profile.email, firebase_id_token: profile.idToken };

  if (intent.kind === "connect") {
    const token = await getSessionToken(request);
    if (!token) return redirectWithFormError("/login", "auth.social.signInToConnect", errorTarget("/login"), { headers });
    const linked = await createApiClient(request, context, token).post("/api/account/connect", { body: { ...social, link_type: profile.authMethod } });
    return linked.ok
      ? redirectWithSuccess("/", t("auth.social.connected", { provider: label }), { headers })
      : redirectWithFormError("/", linked.message || "auth.social.connectFailed", errorTarget("/"), { headers });
  }

  if (intent.kind === "desktop") {
    const api = createApiClient(request, context);
    const login = await api.post("/api/user/thirdparty-login", { body: { ...social, auth_method: profile.authMethod, platform: "Desktop", ...intent.device } });
    if (!login.ok) {
      const retry = desktopRetryUrl(provider, intent.device);
      return redirectWithFormError(retry, login.message || "auth.error.loginFailed", errorTarget(retry), { headers });
    }
    // The provider did not say it asked for a second factor: ours is asked before the hand-off.
    if (needsSecondFactor(login.data)) {
      return redirectToSecondFactor(request, login.data.challenge, { desktop: { provider }, success: signedIn }, headers);
    }
    const code = await createApiClient(request, context, login.data.token).post("/api/auth/desktop-code/issue");
    headers.append(
      "Set-Cookie",
      await desktopHandoffCookie().serialize({ token: login.data.token, code: code.ok ? code.data.code : null, provider }),
    );
    appendDeviceCookie(headers, request);
    return redirectWithSuccess("/desktop-app/handoff", signedIn, { headers });
  }

  const login = await createApiClient(request, context).post("/api/user/thirdparty-login", {
    // A new account's language is the page's (issue 36); an existing one keeps its own.
    body: { ...social, auth_method: profile.authMethod, platform: "Web Browser", language: languageOf(request) },
  });
  if (!login.ok) return redirectWithFormError("/login", login.message || "auth.error.loginFailed", errorTarget("/login"), { headers });
  if (needsSecondFactor(login.data)) {
    return redirectToSecondFactor(request, login.data.challenge, { oldurl: intent.oldurl, success: signedIn }, headers);
  }
  headers.append("Set-Cookie", await commitTokenSession(request, login.data.token));
  // The account's language comes with it (or the account takes the page's): issue 36.
  const languageSet = await languageOnSignIn(request, context, login.data.token, login.data.user);
  if (languageSet) headers.append("Set-Cookie", languageSet);
  appendDeviceCookie(headers, request);
  return redirectWithSuccess(safeRedirect(intent.oldurl), signedIn, { headers });
}

/**
 * Where a failed sign-in's message stays on the page it comes back to (issue 21): /login's sign-in
 * form, the account home's 'Connected accounts' card, or the desktop page's 'Try again'.
 */
function errorTarget(back: string): { form: string } {
  if (back.startsWith("/login")) return { form: "sign-in" };
  if (back.startsWith("/desktop-app/")) return { form: "desktop-login" };
  return { form: "home-accounts" };
}

function desktopRetryUrl(provider: ProviderName, device: DeviceFields) {
  const query = new URLSearchParams({ failed: "1" });
  for (const [key, value] of Object.entries(device)) if (value) query.set(key, value);
  return `/desktop-app/${provider}/login?${query}`;
}
