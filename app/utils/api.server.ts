import type { AppLoadContext } from "@remix-run/node";
import { getEnv } from "./env.server";
import { loginUrlFor } from "./safe-redirect";
import { destroySessionCookie } from "./session.server";
import { redirectWithError } from "./toast.server";

// The one client through which the portal reaches the product API: over HTTP, never by importing api/.

export type ApiUser = {
  id: number;
  email: string;
  name: string | null;
  has_password: boolean;
  email_verified_at: string | null;
  created_at: string;
};

export type ApiSubscription = {
  id: number;
  title: string;
  plan_id: number;
  subscription_by: "stripe" | "paypal" | "bitpay";
  subs_status: string;
  billing_type: "recurring" | "single";
  stripe_sub_id: string | null;
  sub_start_date: string;
  sub_exp_date: string;
};

export type ApiAccountLink = { id: number; link_type: "GOOGLE" | "APPLE" };

export type ApiResult<T> =
  | { ok: true; status: number; message: string; data: T }
  | { ok: false; status: number; message: string; fieldErrors: Record<string, string[]> };

type ErrorBody = {
  message?: unknown;
  error?: { message?: unknown };
  errors?: { message?: unknown; fields?: Record<string, string[]> };
};

/** The server's message as the spec reads it: errors.message, error.message or message. */
function messageOf(body: unknown): string | undefined {
  if (!body || typeof body !== "object") return undefined;
  const b = body as ErrorBody;
  for (const candidate of [b.errors?.message, b.error?.message, b.message]) {
    if (typeof candidate === "string" && candidate.trim()) return candidate;
  }
  return undefined;
}

export const SERVICE_UNAVAILABLE_MESSAGE = "We can't reach our servers right now. Please try again in a moment.";

/** A thrown 503 that the root error boundary renders as the "service unavailable" page. */
export function serviceUnavailable(): Response {
  return new Response(SERVICE_UNAVAILABLE_MESSAGE, { status: 503, statusText: "Service Unavailable" });
}

export function createApiClient(request: Request, context: Pick<AppLoadContext, "clientIp">, token?: string | null) {
  const env = getEnv();

  async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<ApiResult<T>> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // The API keys rate limits and device rows on the browser, not on the portal.
    if (context.clientIp) headers["X-Forwarded-For"] = context.clientIp;
    const userAgent = request.headers.get("User-Agent");
    if (userAgent) headers["User-Agent"] = userAgent;

    let response: Response;
    try {
      response = await fetch(`${env.apiBaseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(env.API_TIMEOUT_MS),
      });
    } catch {
      return { ok: false, status: 503, message: SERVICE_UNAVAILABLE_MESSAGE, fieldErrors: {} };
    }

    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      payload = undefined;
    }

    if (response.status === 401 && token) {
      // The API no longer accepts this token (revoked, expired): sign out exactly as logout does.
      throw await signOutRedirect(request);
    }
    const ok = response.ok && (payload as { status?: unknown; success?: unknown } | undefined)?.status !== false;
    if (!ok) {
      const fields = (payload as ErrorBody | undefined)?.errors?.fields ?? {};
      return { ok: false, status: response.status, message: messageOf(payload) ?? "", fieldErrors: fields };
    }
    const envelope = payload as { data?: T; message?: string };
    return { ok: true, status: response.status, message: envelope.message ?? "", data: envelope.data as T };
  }

  return {
    login: (credentials: { email: string; password: string }) =>
      call<{ token: string; user: ApiUser }>("POST", "/api/user/login", credentials),
    logout: () => call<null>("POST", "/api/user/logout"),
    me: () => call<ApiUser>("GET", "/api/me"),
    activeSubscription: () => call<{ subscription: ApiSubscription | null; now?: string }>("POST", "/api/subscription/active"),
    accountLinks: () => call<{ linked: ApiAccountLink[] }>("POST", "/api/account/link-list"),
    downloadLinks: () => call<{ windows: string; mac: string }>("GET", "/api/download-links"),
    health: () => call<{ database: string }>("GET", "/api/health"),

    // Sign-up (identity §7)
    tempSignup: (body: { email: string; isCheckout?: boolean; plan_id?: string }) => call<null>("POST", "/api/user/temp-signup", body),
    verifyTempCode: (body: { email: string; verification_code: string }) => call<null>("POST", "/api/user/verify-temp-code", body),
    registerUser: (body: {
      email: string;
      password: string;
      password_confirmation: string;
      verification_code: string;
      agreement: 0 | 1;
      newsletter: 0 | 1;
      platform: "Web Browser";
    }) => call<{ token: string; user: ApiUser }>("POST", "/api/user/register-user", body),

    // Sign-in by emailed code, password reset, first password
    getLoginCode: (body: { email: string }) => call<null>("POST", "/api/auth/get-login-code", body),
    codeLogin: (body: { email: string; code: string }) => call<{ token: string; user: ApiUser }>("POST", "/api/auth/code-login", body),
    forgotPassword: (body: { email: string }) => call<null>("POST", "/api/auth/forgot-password", body),
    resetPasswordByCode: (body: { email: string; code: string }) =>
      call<{ reset_token: string }>("POST", "/api/auth/reset-password-by-code", body),
    resetPassword: (body: { token: string; email: string; password: string; password_confirmation: string }) =>
      call<null>("POST", "/api/auth/reset-password", body),
    generateNewPassword: (body: { token: string; password: string; password_confirmation: string }) =>
      call<null>("POST", "/api/generate/new-password", body),
    setPasswordEmail: () => call<null>("POST", "/api/user/set-password-email"),

    // Google and Apple (identity §3 social payloads), account links, the desktop hand-off
    thirdpartyLogin: (body: {
      name: string;
      email: string;
      firebase_id_token: string;
      auth_method: "GOOGLE" | "APPLE";
      platform: "Web Browser" | "Desktop";
      device_os?: string;
      device_brand?: string;
      device_model?: string;
      device_os_version?: string;
    }) => call<{ token: string; user: ApiUser }>("POST", "/api/user/thirdparty-login", body),
    connectAccount: (body: { name: string; email: string; firebase_id_token: string; link_type: "GOOGLE" | "APPLE" }) =>
      call<{ id: number; link_type: "GOOGLE" | "APPLE" }>("POST", "/api/account/connect", body),
    disconnectAccount: (body: { link_id: number; link_type: "GOOGLE" | "APPLE" }) => call<null>("POST", "/api/account/disconnect", body),
    issueDesktopCode: () => call<{ code: string; expires_in: number }>("POST", "/api/auth/desktop-code/issue"),

    // Single sign-on
    ssoToken: () => call<{ access_token: string }>("POST", "/api/auth/sso-token"),
    ssoLoginWithToken: (body: { access_token: string }) =>
      call<{ token: string; user: ApiUser }>("POST", "/api/auth/sso-login-with-token", body),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;

export const SESSION_ENDED_MESSAGE = "Your session has ended. Please sign in again.";

/** Clears the session and sends the visitor to sign in, coming back to where they were. */
export async function signOutRedirect(request: Request): Promise<Response> {
  const url = new URL(request.url);
  // A data request (single fetch, "/page.data") must send the user back to the page, not to the data URL.
  const pathname = url.pathname.replace(/\.data$/, "").replace(/^\/_root$/, "/") || "/";
  return redirectWithError(loginUrlFor(`${pathname}${url.search}`), SESSION_ENDED_MESSAGE, {
    headers: { "Set-Cookie": await destroySessionCookie(request) },
  });
}
