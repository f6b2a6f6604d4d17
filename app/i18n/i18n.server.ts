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
  withFastLookups(instance, CATALOGUES[language], language);
  instances.set(language, instance);
}

/**
 * A page's words are mostly a key's text as it stands, or with a variable or a count. i18next spends some
 * 5 to 20 µs on each call (the namespaces in turn, its option handling, its interpolation pass): half a
 * millisecond of the checkout's CPU and more (`npm run bench`, issue 31). Keys are flat and unique across
 * namespaces (tests/unit/locales.test.ts), so the common calls are answered here from one map, exactly as
 * i18next answers them (tests/unit/languages.test.ts compares every key, with its variables and counts):
 * - a key's text without variables, or a text that is no key (a message the API wrote) as it is;
 * - `{{name}}` variables given as strings or numbers, and `count`'s plural form (Intl.PluralRules, `_zero`
 *   first for 0, as i18next picks them).
 * Everything else goes to i18next: nesting (`$t(`), formats (`{{n, number}}`), a context, a key prefix,
 * objects, an option the text does not use (it may be one of i18next's own), a key that is missing.
 */
function withFastLookups(instance: I18n, catalogue: Catalogue, language: Language) {
  const texts = new Map<string, string>();
  for (const entries of Object.values(catalogue)) for (const [key, text] of Object.entries(entries)) texts.set(key, text);
  const plurals = new Intl.PluralRules(language);
  const translate = instance.t.bind(instance) as (key: unknown, options?: unknown) => string;
  const lookup = (key: unknown, options?: unknown) => {
    if (typeof key === "string") {
      const text = fastText(texts, plurals, key, options);
      if (text !== undefined) return text;
    }
    return translate(key, options);
  };
  instance.t = lookup as I18n["t"];
}

/** What i18next would answer, or undefined where only i18next can tell (see withFastLookups). */
function fastText(texts: Map<string, string>, plurals: Intl.PluralRules, key: string, options: unknown): string | undefined {
  let count: number | undefined;
  let withDefault = false;
  let variables: string[] | undefined;
  if (options !== undefined) {
    if (typeof options !== "object" || options === null) return undefined;
    for (const name in options) {
      const value = (options as Record<string, unknown>)[name];
      if (name === "lng" || name === "lngs" || name === "ns") continue;
      if (name === "keyPrefix" || name === "context") {
        if (!value) continue;
        return undefined;
      }
      if (name === "defaultValue") {
        withDefault = value !== undefined;
        continue;
      }
      if (name === "count") {
        // A count given as undefined (react-i18next's Trans passed one) is no count, as i18next reads it.
        if (value === undefined) continue;
        if (typeof value !== "number") return undefined;
        count = value;
        continue;
      }
      if (typeof value !== "string" && typeof value !== "number") return undefined;
      (variables ??= []).push(name);
    }
  }
  const found = count === undefined ? key : pluralKey(texts, plurals, key, count);
  const text = found === undefined ? undefined : texts.get(found);
  if (text === undefined) {
    // No such key: i18next gives the text back as it is (a message the API already worded), unless it
    // has a default, forms or anything to fill in.
    const asItIs = count === undefined && !withDefault && !variables && !needsI18next(key) && !hasPluralForms(texts, key);
    return asItIs ? key : undefined;
  }
  if (text.includes("$t(")) return undefined;
  if (!text.includes("{{")) return variables ? undefined : text;
  if (options === undefined) return undefined;
  const values = options as Record<string, unknown>;
  const used: string[] = [];
  let unknown = false;
  const result = text.replace(/\{\{([^{}]*)\}\}/g, (whole, inner: string) => {
    const name = inner.trim();
    const value = /^\w+$/.test(name) ? values[name] : undefined;
    if (typeof value !== "string" && typeof value !== "number") {
      unknown = true;
      return whole;
    }
    used.push(name);
    return String(value);
  });
  // Every option left is a variable the text uses: one it does not use may be one of i18next's own.
  if (unknown || variables?.some((name) => !used.includes(name))) return undefined;
  return result;
}

/** The key of `count`'s plural form as i18next picks it: `_zero` for 0 when there is one, then Intl's rule, then the key itself. */
function pluralKey(texts: Map<string, string>, plurals: Intl.PluralRules, key: string, count: number): string | undefined {
  if (count === 0 && texts.has(`${key}_zero`)) return `${key}_zero`;
  const form = `${key}_${plurals.select(count)}`;
  if (texts.has(form)) return form;
  return texts.has(key) ? key : undefined;
}

/** A key with plural forms (`key_one`, `key_other`): asked for without a count, i18next decides what it says. */
function hasPluralForms(texts: Map<string, string>, key: string): boolean {
  return texts.has(`${key}_other`) || texts.has(`${key}_one`);
}

/** A text i18next does more with than return it: variables or nesting. */
function needsI18next(text: string): boolean {
  return text.includes("{{") || text.includes("$t(");
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
