import { getToast as readToastCookie, redirectWithError, redirectWithSuccess, setToastCookieOptions } from "remix-toast";
import { portalCookieName } from "./cookies.server";
import { getEnv } from "./env.server";

// Flash messages ride in their own signed cookie and render in the server HTML (components/toasts.tsx).
const env = getEnv();
/** remix-toast's default name, `__Host-` prefixed on https. */
const TOAST_COOKIE = portalCookieName("toast-session", env.secureCookies);
setToastCookieOptions({ name: TOAST_COOKIE, secrets: env.sessionSecrets, secure: env.secureCookies, httpOnly: true, sameSite: "lax", path: "/" });

/**
 * The flash message this request carries, and the Set-Cookie that consumes it. remix-toast parses
 * and re-signs its cookie on every call; the root loader runs on every page, so a request without
 * that cookie skips the work: it has no toast.
 */
export async function getToast(request: Request): ReturnType<typeof readToastCookie> {
  if (!request.headers.get("Cookie")?.includes(`${TOAST_COOKIE}=`)) return { toast: undefined, headers: new Headers() };
  return readToastCookie(request);
}

export { redirectWithError, redirectWithSuccess };
