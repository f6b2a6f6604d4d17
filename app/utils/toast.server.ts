import { createCookieSessionStorage } from "@remix-run/node";
import { createToastUtilsWithCustomSession } from "remix-toast";
import { createSealedCookie, portalCookieName } from "./cookies.server";
import { PAGE_ALERT_FORM } from "~/components/form-alert";
import { formErrorCookieHeader } from "./form-error.server";
import { portalConfig } from "../config.server";

// Flash messages ride in their own sealed cookie and render in the server HTML (components/toasts.tsx).
// Not remix-toast's own cookie: its sign() (1.2.2) does nothing, whatever secrets it is given, so a toast-session
// cookie made by hand put its words on our pages. Ours is sealed with the session secrets (cookies.server.ts):
// only this server can make one, and only for this cookie's name.

/** A toast is read on the next page; one never read is dropped after this long. */
const TOAST_TTL_SECONDS = 10 * 60;

let toasts: ReturnType<typeof createToastUtilsWithCustomSession> | undefined;
let toastCookieName: string | undefined;

/** remix-toast's functions over our sealed cookie, made on first use: the configuration arrives at boot, after this module is loaded. */
function toastUtils() {
  if (!toasts) {
    const env = portalConfig();
    // remix-toast's default name, `__Host-` prefixed on https.
    toastCookieName = portalCookieName("toast-session", env.secureCookies);
    const storage = createCookieSessionStorage({
      cookie: createSealedCookie(toastCookieName, {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: env.secureCookies,
        secrets: env.sessionSecrets,
        ttlSeconds: TOAST_TTL_SECONDS,
      }),
    });
    toasts = createToastUtilsWithCustomSession(storage);
  }
  return toasts;
}

/**
 * The flash message this request carries, and the Set-Cookie that consumes it. remix-toast parses
 * and re-seals its cookie on every call; the root loader runs on every page, so a request without
 * that cookie skips the work: it has no toast.
 */
export async function getToast(request: Request): ReturnType<ReturnType<typeof toastUtils>["getToast"]> {
  const utils = toastUtils();
  if (!request.headers.get("Cookie")?.includes(`${toastCookieName}=`)) return { toast: undefined, headers: new Headers() };
  return utils.getToast(request);
}

export function redirectWithError(...args: Parameters<ReturnType<typeof toastUtils>["redirectWithError"]>) {
  return toastUtils().redirectWithError(...args);
}

export function redirectWithSuccess(...args: Parameters<ReturnType<typeof toastUtils>["redirectWithSuccess"]>) {
  return toastUtils().redirectWithSuccess(...args);
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
