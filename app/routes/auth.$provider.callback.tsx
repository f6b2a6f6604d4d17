import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { createApiClient } from "~/utils/api.server";
import { IdentityError } from "~/utils/identity/common.server";
import { clearFlowCookies, finishProviderFlow, readIntent, type DeviceFields } from "~/utils/identity/authenticator.server";
import { desktopHandoffCookie } from "~/utils/identity/desktop.server";
import { PROVIDER_LABELS, providerParam } from "~/utils/identity/routes.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession, getSessionToken } from "~/utils/session.server";
import { redirectWithError, redirectWithSuccess } from "~/utils/toast.server";

// The provider's answer: Google redirects here (GET), Apple posts here cross-site (form_post; this
// path is exempt from the same-origin POST check and verifies itself by state, PKCE/nonce and the
// ID token). Then the API signs in, creates the account, links it, or hands a token to the desktop app.

export async function loader(args: LoaderFunctionArgs) {
  return handleCallback(args.request, args.context, providerParam(args.params.provider));
}

export async function action(args: ActionFunctionArgs) {
  return handleCallback(args.request, args.context, providerParam(args.params.provider));
}

async function handleCallback(request: Request, context: AppLoadContext, provider: "google" | "apple") {
  const headers = new Headers();
  for (const cookie of await clearFlowCookies()) headers.append("Set-Cookie", cookie);
  const label = PROVIDER_LABELS[provider];

  let finished;
  try {
    finished = await finishProviderFlow(provider, request);
  } catch (error) {
    const message = error instanceof IdentityError ? error.message : "Login failed";
    const intent = await readIntent(request);
    const back = intent?.kind === "desktop" ? desktopRetryUrl(provider, intent.device) : (await getSessionToken(request)) ? "/" : "/login";
    return redirectWithError(back, message, { headers });
  }
  const { profile, intent } = finished;
  const social = { name: profile.name, email: profile.email, firebase_id_token: profile.idToken };

  if (intent.kind === "connect") {
    const token = await getSessionToken(request);
    if (!token) return redirectWithError("/login", "Please sign in again to connect your account.", { headers });
    const linked = await createApiClient(request, context, token).connectAccount({ ...social, link_type: profile.authMethod });
    return linked.ok
      ? redirectWithSuccess("/", `${label} account connected.`, { headers })
      : redirectWithError("/", linked.message || "Failed to connect account", { headers });
  }

  if (intent.kind === "desktop") {
    const api = createApiClient(request, context);
    const login = await api.thirdpartyLogin({ ...social, auth_method: profile.authMethod, platform: "Desktop", ...intent.device });
    if (!login.ok) return redirectWithError(desktopRetryUrl(provider, intent.device), login.message || "Login failed", { headers });
    const code = await createApiClient(request, context, login.data.token).issueDesktopCode();
    headers.append(
      "Set-Cookie",
      await desktopHandoffCookie().serialize({ token: login.data.token, code: code.ok ? code.data.code : null, provider }),
    );
    return redirectWithSuccess("/desktop-app/handoff", `Signed in with ${label}.`, { headers });
  }

  const login = await createApiClient(request, context).thirdpartyLogin({ ...social, auth_method: profile.authMethod, platform: "Web Browser" });
  if (!login.ok) return redirectWithError("/login", login.message || "Login failed", { headers });
  headers.append("Set-Cookie", await commitTokenSession(request, login.data.token));
  return redirectWithSuccess(safeRedirect(intent.oldurl), `Signed in with ${label}.`, { headers });
}

function desktopRetryUrl(provider: "google" | "apple", device: DeviceFields) {
  const query = new URLSearchParams({ failed: "1" });
  for (const [key, value] of Object.entries(device)) if (value) query.set(key, value);
  return `/desktop-app/${provider}/login?${query}`;
}
