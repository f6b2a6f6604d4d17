// The portal's languages (issue 36): English, the spec's own words, and German, French and Spanish.
// Shared by the server (choosing the language), the client (hydrating in it) and the footer's select.

export const LANGUAGES = ["en", "de", "fr", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = "en";

/** Each language by its own name, as the footer's select offers it (a German reader looks for 'Deutsch'). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: "English", de: "Deutsch", fr: "Français", es: "Español" };

/** The cookie that keeps a visitor's choice from the footer (and, signed in, mirrors the account's language). */
export const LANGUAGE_COOKIE = "lang";

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The best of our languages for an Accept-Language header (RFC 9110 §12.5.4: quality values, `de-DE`
 * matches `de`, `*` any), or null when it names none of them. Ties keep the header's order.
 */
export function languageOfHeader(header: string | null | undefined): Language | null {
  if (!header) return null;
  let best: { language: Language; q: number } | null = null;
  for (const part of header.split(",").slice(0, 32)) {
    const [range = "", ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((param) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    const q = qParam === undefined ? 1 : Number(qParam);
    if (!(q > 0)) continue;
    const primary = range.trim().split("-")[0];
    const language = primary === "*" ? DEFAULT_LANGUAGE : primary;
    if (isLanguage(language) && (!best || q > best.q)) best = { language, q };
  }
  return best?.language ?? null;
}

/** The `lang` cookie's language in a Cookie header, if it holds one of ours. */
export function languageOfCookieHeader(cookieHeader: string | null | undefined): Language | null {
  if (!cookieHeader) return null;
  for (const pair of cookieHeader.split(";")) {
    const separator = pair.indexOf("=");
    if (separator < 0 || pair.slice(0, separator).trim() !== LANGUAGE_COOKIE) continue;
    const value = pair.slice(separator + 1).trim();
    return isLanguage(value) ? value : null;
  }
  return null;
}

/**
 * The language of a request before the account is known: the `lang` cookie, the browser's
 * Accept-Language, English. (The account's saved language reaches the cookie at sign-in and from the
 * footer, so a signed-in page needs no API call to know it; docs/decisions/065.)
 */
export function languageOfHeaders(headers: { cookie?: string | null; acceptLanguage?: string | null }): Language {
  return languageOfCookieHeader(headers.cookie) ?? languageOfHeader(headers.acceptLanguage) ?? DEFAULT_LANGUAGE;
}

/** The locale Intl formats with: the language with the region the spec's English format comes from. */
export const INTL_LOCALES: Record<Language, string> = { en: "en-US", de: "de-DE", fr: "fr-FR", es: "es-ES" };

/**
 * Whether a Cookie header holds nothing but the `lang` cookie: such a visitor is still anonymous (a
 * public page in their language may come from a shared cache, which varies on Cookie and Accept-Language).
 */
export function onlyLanguageCookie(cookieHeader: string | null | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(";").every((pair) => pair.trim() === "" || pair.trim().startsWith(`${LANGUAGE_COOKIE}=`));
}
