import { createCookie } from "@remix-run/node";
import type { FormErrorFlash } from "~/components/form-alert";
import { portalCookieName } from "./cookies.server";
import { portalConfig } from "../config.server";

// An error that a redirect (post/redirect/get) carries to the page whose form it is about (issue 21):
// the toast says it for 5 s, this keeps it in the page, next to its field or in the form's alert,
// until the person acts. A signed flash cookie, read once by the root loader; the message is ours or
// the API's, never the request's, so a crafted link cannot put words on the page.

const TTL_SECONDS = 10 * 60;

let cookie: ReturnType<typeof createCookie> | undefined;

function formErrorCookie() {
  if (!cookie) {
    const env = portalConfig();
    cookie = createCookie(portalCookieName("__form-error", env.secureCookies), {
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: env.secureCookies,
      secrets: env.sessionSecrets,
      maxAge: TTL_SECONDS,
    });
  }
  return cookie;
}

/** The Set-Cookie that carries `message` to `target`'s form on the page at `path`. */
export function formErrorCookieHeader(path: string, message: string, target: { form: string; field?: string }): Promise<string> {
  const pathname = path.split(/[?#]/)[0] || "/";
  const flash: FormErrorFlash = { path: pathname, form: target.form, ...(target.field ? { field: target.field } : {}), message };
  return formErrorCookie().serialize(flash);
}

function isFlash(value: unknown): value is FormErrorFlash {
  if (!value || typeof value !== "object") return false;
  const flash = value as Record<string, unknown>;
  return (
    typeof flash.path === "string" &&
    typeof flash.form === "string" &&
    typeof flash.message === "string" &&
    (flash.field === undefined || typeof flash.field === "string")
  );
}

/** The flash this request carries (null without one), and the Set-Cookie that consumes it. */
export async function takeFormError(request: Request): Promise<{ formError: FormErrorFlash | null; setCookie: string | null }> {
  const header = request.headers.get("Cookie");
  const flashCookie = formErrorCookie();
  if (!header?.includes(`${flashCookie.name}=`)) return { formError: null, setCookie: null };
  const value: unknown = await flashCookie.parse(header);
  return { formError: isFlash(value) ? value : null, setCookie: await flashCookie.serialize("", { maxAge: 0 }) };
}
