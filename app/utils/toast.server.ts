import {
  getToast as readToastCookie,
  redirectWithError as redirectWithToastError,
  redirectWithSuccess as redirectWithToastSuccess,
  setToastCookieOptions,
} from "remix-toast";
import { portalCookieName } from "./cookies.server";
import { PAGE_ALERT_FORM } from "~/components/form-alert";
import { formErrorCookieHeader } from "./form-error.server";
import { portalConfig } from "../config.server";

// Flash messages ride in their own signed cookie and render in the server HTML (components/toasts.tsx).
let toastCookieName: string | undefined;
/**
 * remix-toast's default name, `__Host-` prefixed on https; its options are set on first use, since the
 * configuration arrives at boot, after this module is loaded.
 */
function toastCookie(): string {
  if (toastCookieName === undefined) {
    const env = portalConfig();
    toastCookieName = portalCookieName("toast-session", env.secureCookies);
    setToastCookieOptions({ name: toastCookieName, secrets: env.sessionSecrets, secure: env.secureCookies, httpOnly: true, sameSite: "lax", path: "/" });
  }
  return toastCookieName;
}

/**
 * The flash message this request carries, and the Set-Cookie that consumes it. remix-toast parses
 * and re-signs its cookie on every call; the root loader runs on every page, so a request without
 * that cookie skips the work: it has no toast.
 */
export async function getToast(request: Request): ReturnType<typeof readToastCookie> {
  if (!request.headers.get("Cookie")?.includes(`${toastCookie()}=`)) return { toast: undefined, headers: new Headers() };
  return readToastCookie(request);
}

export function redirectWithError(...args: Parameters<typeof redirectWithToastError>) {
  toastCookie();
  return redirectWithToastError(...args);
}

export function redirectWithSuccess(...args: Parameters<typeof redirectWithToastSuccess>) {
  toastCookie();
  return redirectWithToastSuccess(...args);
}

/**
 * A redirect with an error toast that also stays in the landing page (issue 21): next to `target.field`
 * or in the alert region of `target.form`, once (a flash, see form-error.server.ts).
 */
export async function redirectWithFormError(url: string, message: string, target: { form: string; field?: string }, init: ResponseInit = {}) {
  const headers = new Headers(init.headers);
  headers.append("Set-Cookie", await formErrorCookieHeader(url, message, target));
  return redirectWithError(url, message, { ...init, headers });
}

/** redirectWithFormError for an error about the landing page as a whole: its PageAlert shows it. */
export function redirectWithPageError(url: string, message: string, init: ResponseInit = {}) {
  return redirectWithFormError(url, message, { form: PAGE_ALERT_FORM }, init);
}
