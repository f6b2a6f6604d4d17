import { portalConfig } from "../config.server";
import { LANGUAGE_COOKIE, type Language } from "./languages";

/** A year: the choice outlives sessions, as a language setting should. */
const LANGUAGE_COOKIE_SECONDS = 365 * 24 * 60 * 60;

/**
 * The `lang` cookie that keeps a language (the footer's choice, or the account's at sign-in). Not
 * HttpOnly-worthy and not secret: it only picks the words of the pages; Secure on https.
 */
export function languageCookie(language: Language): string {
  const secure = portalConfig().secureCookies ? "; Secure" : "";
  return `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=${LANGUAGE_COOKIE_SECONDS}; SameSite=Lax; HttpOnly${secure}`;
}
