import { getToast as readToastCookie, redirectWithError, redirectWithSuccess, setToastCookieOptions } from "remix-toast";
import { getEnv } from "./env.server";

// Flash messages ride in their own signed cookie and render in the server HTML (components/toasts.tsx).
const env = getEnv();
setToastCookieOptions({ secrets: env.sessionSecrets, secure: env.secureCookies, httpOnly: true, sameSite: "lax" });

/** remix-toast's cookie name (its default). */
const TOAST_COOKIE = "toast-session";

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
