import { createHash } from "node:crypto";
import { createInstance, type i18n as I18n, type TFunction } from "i18next";
import { CATALOGUES } from "./catalogues.server";
import { type Catalogue, i18nOptions } from "./config";
import { LANGUAGES, type Language, languageOfHeaders } from "./languages";

// The server's side of the portal's languages (docs/decisions/065). One i18next instance per language,
// made once: an instance never changes its language, so requests in different languages share none
// of that state (what "an instance per request" guards against) without paying an init per page.

const instances = new Map<Language, I18n>();
for (const language of LANGUAGES) {
  const instance = createInstance();
  void instance.init(i18nOptions(language, CATALOGUES[language]));
  withPlainLookups(instance, CATALOGUES[language]);
  instances.set(language, instance);
}

/**
 * Most of a page's words are a key's plain text: no variable, no plural, no nesting. i18next spends some
 * 5 µs on each (the namespaces in turn, its checks and interpolation pass), about half a millisecond of the
 * checkout's CPU (`npm run bench`, issue 31). Keys are flat and unique across namespaces (tests/unit/
 * locales.test.ts), so such a key is looked up once in one map here and gives exactly what i18next gives;
 * every other call (variables, a count, defaults, a text that is no key) goes to i18next as before.
 */
function withPlainLookups(instance: I18n, catalogue: Catalogue) {
  const plain = new Map<string, string>();
  for (const entries of Object.values(catalogue))
    for (const [key, text] of Object.entries(entries)) if (!text.includes("{{") && !text.includes("$t(")) plain.set(key, text);
  const translate = instance.t.bind(instance) as (key: unknown, options?: unknown) => string;
  const lookup = (key: unknown, options?: unknown) => {
    if (typeof key === "string" && (options === undefined || onlyScope(options))) {
      const text = plain.get(key);
      if (text !== undefined) return text;
    }
    return translate(key, options);
  };
  instance.t = lookup as I18n["t"];
}

/** Options that only say where to look (what getFixedT adds to every call): nothing that changes the text. */
function onlyScope(options: unknown): boolean {
  if (typeof options !== "object" || options === null) return false;
  for (const [name, value] of Object.entries(options)) {
    if (name === "lng" || name === "lngs" || name === "ns") continue;
    if (name === "keyPrefix" && !value) continue;
    return false;
  }
  return true;
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
