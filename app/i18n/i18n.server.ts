import { createHash } from "node:crypto";
import { createInstance, type i18n as I18n, type TFunction } from "i18next";
import { CATALOGUES } from "./catalogues.server";
import { i18nOptions } from "./config";
import { LANGUAGES, type Language, languageOfHeaders } from "./languages";

// The server's side of the portal's languages (docs/decisions/065). One i18next instance per language,
// made once: an instance never changes its language, so requests in different languages share none
// of that state (what "an instance per request" guards against) without paying an init per page.

const instances = new Map<Language, I18n>();
for (const language of LANGUAGES) {
  const instance = createInstance();
  void instance.init(i18nOptions(language, CATALOGUES[language]));
  instances.set(language, instance);
}

/** The i18next instance of a language: what entry.server renders a page with. */
export function i18nFor(language: Language): I18n {
  return instances.get(language)!;
}

/** `t` in a language, for loaders and actions (a toast, a redirect's message, a page title). */
export function translatorFor(language: Language): TFunction {
  return instances.get(language)!.t;
}

/** The language a request is answered in: its `lang` cookie, its Accept-Language, English. */
export function languageOf(request: Request): Language {
  return languageOfHeaders({ cookie: request.headers.get("Cookie"), acceptLanguage: request.headers.get("Accept-Language") });
}

/** `t` in the request's language. */
export function translatorOf(request: Request): TFunction {
  return translatorFor(languageOf(request));
}

interface DownloadableCatalogue {
  /** The JSON the browser hydrates with. */
  body: string;
  /** Its address, named by its content: cached for good, and a new catalogue is a new address. */
  url: string;
}

const downloadable = new Map<Language, DownloadableCatalogue>();
for (const language of LANGUAGES) {
  const body = JSON.stringify(CATALOGUES[language]);
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 12);
  downloadable.set(language, { body, url: `/locales/${language}.${hash}.json` });
}

/** A language's catalogue as the browser downloads it. */
export function catalogueOf(language: Language): DownloadableCatalogue {
  return downloadable.get(language)!;
}
