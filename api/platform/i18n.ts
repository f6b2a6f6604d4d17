import i18next, { type i18n } from "i18next";
import { formatDate, formatDateTime } from "./dates";
import deEmails from "../locales/de/emails.json" with { type: "json" };
import deInvoice from "../locales/de/invoice.json" with { type: "json" };
import deMessages from "../locales/de/messages.json" with { type: "json" };
import deValidation from "../locales/de/validation.json" with { type: "json" };
import enEmails from "../locales/en/emails.json" with { type: "json" };
import enInvoice from "../locales/en/invoice.json" with { type: "json" };
import enMessages from "../locales/en/messages.json" with { type: "json" };
import enValidation from "../locales/en/validation.json" with { type: "json" };
import esEmails from "../locales/es/emails.json" with { type: "json" };
import esInvoice from "../locales/es/invoice.json" with { type: "json" };
import esMessages from "../locales/es/messages.json" with { type: "json" };
import esValidation from "../locales/es/validation.json" with { type: "json" };
import frEmails from "../locales/fr/emails.json" with { type: "json" };
import frInvoice from "../locales/fr/invoice.json" with { type: "json" };
import frMessages from "../locales/fr/messages.json" with { type: "json" };
import frValidation from "../locales/fr/validation.json" with { type: "json" };

/*
 * The API's languages (issue 36, docs/decisions/064). The texts are resources in api/locales/<lng>/<namespace>.json
 * (imported, not read from disk: the API is bundled), rendered by one i18next instance per language made once
 * here (never changeLanguage on a shared one: requests in several languages run at once).
 *
 * - An account has a language (users.language), its emails and invoices are written in it.
 * - A request has a language: its Accept-Language (languageOf), the answers' messages are written in it.
 * - English is the source: an English text is exactly what the API wrote before it had languages, so a
 *   message is still made in English where it is thrown, with its key and variables (a Text) beside it
 *   where it has variables; the error envelope renders it in the request's language at the very end
 *   (localize). A message without a key stays English.
 */

export const LANGUAGES = ["en", "de", "fr", "es"] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = "en";

export function isLanguage(value: unknown): value is Language {
  return (LANGUAGES as readonly unknown[]).includes(value);
}

/** A stored language (users.language) as one of ours: anything else is English. */
export function asLanguage(value: unknown): Language {
  return isLanguage(value) ? value : DEFAULT_LANGUAGE;
}

/**
 * The request's language from its Accept-Language header: the entries by quality (`q`, 1 when absent;
 * q=0 means 'not this one'), the first whose primary subtag is one of ours (`de-DE` -> de, `fr-CH` -> fr);
 * none, `*`, a missing or malformed header: English.
 */
export function languageOf(header: string | string[] | undefined): Language {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (!value) return DEFAULT_LANGUAGE;
  const entries: { tag: string; q: number; order: number }[] = [];
  value.split(",").forEach((part, order) => {
    const [range, ...params] = part.trim().split(";");
    const tag = range?.trim().toLowerCase();
    if (!tag) return;
    let q = 1;
    for (const param of params) {
      const match = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(param);
      if (match) q = Number(match[1]);
    }
    if (q > 0 && q <= 1) entries.push({ tag, q, order });
  });
  entries.sort((a, b) => b.q - a.q || a.order - b.order);
  for (const entry of entries) {
    const primary = entry.tag.split("-")[0];
    if (isLanguage(primary)) return primary;
  }
  return DEFAULT_LANGUAGE;
}

export const RESOURCES = {
  en: { messages: enMessages, validation: enValidation, emails: enEmails, invoice: enInvoice },
  de: { messages: deMessages, validation: deValidation, emails: deEmails, invoice: deInvoice },
  fr: { messages: frMessages, validation: frValidation, emails: frEmails, invoice: frInvoice },
  es: { messages: esMessages, validation: esValidation, emails: esEmails, invoice: esInvoice },
} as const;

export type Namespace = keyof (typeof RESOURCES)["en"];

type StripPlural<K extends string> = K extends `${infer B}_one`
  ? B
  : K extends `${infer B}_other`
    ? B
    : K extends `${infer B}_many`
      ? B
      : K;
type Leaves<T, P extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${StripPlural<K>}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];

/** A text's key, `namespace:path` (a plural's key without its `_one`/`_other` suffix): checked against the English resources. */
export type MessageKey = { [N in Namespace]: `${N}:${Leaves<(typeof RESOURCES)["en"][N]>}` }[Namespace];

/** A country, written as its name in the text's language (Intl.DisplayNames: 'Germany', 'Deutschland', 'Allemagne'). */
export interface CountryVar {
  readonly country: string;
}

/** A day, written as the text's language writes it (formatDateIn: '05 March, 2027', '5. März 2027'). */
export interface DateVar {
  readonly date: string;
}

/**
 * A text's variables; a variable that is itself a Text is rendered in the same language first (a field's
 * label), a CountryVar as the country's name in that language, a DateVar as a day in that language.
 */
export type TextVars = { readonly [name: string]: string | number | Text | CountryVar | DateVar };

const COUNTRY_NAMES = new Map<Language, Intl.DisplayNames>();

/** A plan's name in a language: the catalogue names plans in English ('1 Year'); messages:planNames has each in every language. */
export function planNameIn(lng: Language, title: string): string {
  return INSTANCES[lng].t(`messages:planNames.${title}`, { lng, defaultValue: title });
}

/** A country's name in a language ('DE' -> 'Deutschland'); the code when the runtime has no name. */
export function countryNameIn(lng: Language, code: string): string {
  let names = COUNTRY_NAMES.get(lng);
  if (!names) COUNTRY_NAMES.set(lng, (names = new Intl.DisplayNames([lng], { type: "region", fallback: "code" })));
  return names.of(code) ?? code;
}

/** A text to render in some language: its key and variables. `count` picks the plural form. */
export interface Text {
  readonly key: MessageKey;
  readonly vars?: TextVars;
}

export function text(key: MessageKey, vars?: TextVars): Text {
  return vars ? { key, vars } : { key };
}

function createTranslator(lng: Language): i18n {
  const instance = i18next.createInstance();
  // Synchronous: the resources are in memory (initImmediate: false, i18next 23's name for it).
  void instance.init({
    lng,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    resources: lng === DEFAULT_LANGUAGE ? { en: RESOURCES.en } : { en: RESOURCES.en, [lng]: RESOURCES[lng] },
    ns: Object.keys(RESOURCES.en),
    defaultNS: "messages",
    initImmediate: false,
    // Texts are plain: the email layout escapes what it puts into HTML.
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
  });
  return instance;
}

/** One i18next instance per language, made once at boot. */
const INSTANCES: Record<Language, i18n> = {
  en: createTranslator("en"),
  de: createTranslator("de"),
  fr: createTranslator("fr"),
  es: createTranslator("es"),
};

export type Translate = (key: MessageKey, vars?: TextVars) => string;

/** The translator of a language: key and variables -> the text in that language (English where a key lacks it). */
export function translatorFor(lng: Language): Translate {
  return TRANSLATORS[lng];
}

function makeTranslator(lng: Language): Translate {
  const t = INSTANCES[lng].getFixedT(lng);
  const translate: Translate = (key, vars) => {
    if (!vars) return t(key);
    const plain: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(vars)) plain[name] = plainVariable(lng, name, value, translate);
    return t(key, plain);
  };
  return translate;
}

/** A variable as text: a plan's name, a country, a date or a nested Text in the language; numbers and other strings as they are. */
function plainVariable(lng: Language, name: string, value: TextVars[string], translate: Translate): string | number {
  // A plan's name (the catalogue's English '1 Year'): in the language's words where the catalogue has them.
  if (name === "plan" && typeof value === "string") return planNameIn(lng, value);
  if (typeof value !== "object") return value;
  if ("country" in value) return countryNameIn(lng, value.country);
  if ("date" in value) return formatDateIn(lng, value.date);
  return translate(value.key, value.vars);
}

/** One translator per language, made once (callers ask for it per email, per answer). */
const TRANSLATORS: Record<Language, Translate> = {
  en: makeTranslator("en"),
  de: makeTranslator("de"),
  fr: makeTranslator("fr"),
  es: makeTranslator("es"),
};

/** A Text in a language. */
export function render(lng: Language, t: Text): string {
  return TRANSLATORS[lng](t.key, t.vars);
}

/*
 * Messages of answers. Those without variables are found by their English text (every key of the
 * `messages` and `validation` namespaces whose English has no {{variable}}); those with variables carry
 * their Text (DomainError's `text`), and validation messages built with variables register theirs
 * (validationText) when their schema is made, at boot.
 */

const BY_ENGLISH = new Map<string, Text>();
for (const ns of ["messages", "validation"] as const) {
  const walk = (node: unknown, path: string) => {
    if (typeof node === "string") {
      if (!node.includes("{{") && !/_(one|other|many)$/.test(path)) BY_ENGLISH.set(node, { key: `${ns}:${path}` as MessageKey });
      return;
    }
    for (const [name, child] of Object.entries(node as Record<string, unknown>)) walk(child, path ? `${path}.${name}` : name);
  };
  walk(RESOURCES.en[ns], "");
}

/**
 * A validation message with variables, for a zod schema (which takes a string): answers `english` as it is,
 * and remembers its Text (when the Text says exactly that in English) so that the envelope can write it in
 * the request's language. Call it while building a schema (a bounded set), never per request.
 */
export function validationText(english: string, key: MessageKey, vars?: TextVars): string {
  const t = text(key, vars);
  if (!BY_ENGLISH.has(english) && render(DEFAULT_LANGUAGE, t) === english) BY_ENGLISH.set(english, t);
  return english;
}

const LABELS = new Map<string, MessageKey>(
  Object.entries(RESOURCES.en.validation.labels).map(([name, english]) => [english, `validation:labels.${name}` as MessageKey]),
);

/** The Text of a field's label ('email', 'plan id'), when the resources have it. */
export function labelText(label: string): Text | undefined {
  const key = LABELS.get(label);
  return key ? text(key) : undefined;
}

/** The Text of an English message, when it has one (a constant message of the resources, or a registered one). */
export function textOfEnglish(english: string): Text | undefined {
  return BY_ENGLISH.get(english);
}

/**
 * An English message in a language: its Text when one is given or known, else the English. English stays
 * exactly as it was written (byte for byte).
 */
export function localize(english: string, lng: Language, given?: Text): string {
  if (lng === DEFAULT_LANGUAGE) return english;
  const t = given ?? BY_ENGLISH.get(english);
  return t ? render(lng, t) : english;
}

/*
 * Money and dates for people, in a language: English exactly as the product always wrote them ('$107.76',
 * '05 March, 2027', '05 March, 2027 at 14:05 UTC'; DESIGN §2), the other languages by Intl ('107,76 $',
 * '5. März 2027', '5. März 2027 um 14:05 UTC'). Dates in UTC, whatever the server's zone.
 */

const MONEY = new Map<Language, Intl.NumberFormat>();
const DATES = new Map<Language, Intl.DateTimeFormat>();
const MOMENTS = new Map<Language, Intl.DateTimeFormat>();
const MONTHS = new Map<Language, Intl.DateTimeFormat>();
const NUMBERS = new Map<Language, Intl.NumberFormat>();

function cached<T>(map: Map<Language, T>, lng: Language, make: () => T): T {
  let value = map.get(lng);
  if (!value) map.set(lng, (value = make()));
  return value;
}

/** Cents as US dollars: '$9.99' in English, '9,99 $' in German. */
export function formatMoney(lng: Language, cents: number): string {
  if (lng === DEFAULT_LANGUAGE) return `$${(Math.round(cents) / 100).toFixed(2)}`;
  return cached(MONEY, lng, () => new Intl.NumberFormat(lng, { style: "currency", currency: "USD" })).format(Math.round(cents) / 100);
}

/** A day: '05 March, 2027' in English, '5. März 2027' in German. */
export function formatDateIn(lng: Language, at: string | Date): string {
  if (lng === DEFAULT_LANGUAGE) return formatDate(at);
  return cached(DATES, lng, () => new Intl.DateTimeFormat(lng, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })).format(new Date(at));
}

/** A moment: '05 March, 2027 at 14:05 UTC' in English, '5. März 2027 um 14:05 UTC' in German. */
export function formatDateTimeIn(lng: Language, at: string | Date): string {
  if (lng === DEFAULT_LANGUAGE) return formatDateTime(at);
  return `${cached(MOMENTS, lng, () => new Intl.DateTimeFormat(lng, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" })).format(new Date(at))} UTC`;
}

/** A month and year ('March 2027', 'März 2027'), of a month counted from 1. */
export function formatMonthIn(lng: Language, year: number, month: number): string {
  return cached(MONTHS, lng, () => new Intl.DateTimeFormat(lng, { month: "long", year: "numeric", timeZone: "UTC" })).format(new Date(Date.UTC(year, month - 1, 1)));
}

/** A number as the language writes it ('5.5' in English, '5,5' in German). */
export function formatNumberIn(lng: Language, value: number): string {
  return cached(NUMBERS, lng, () => new Intl.NumberFormat(lng, { maximumFractionDigits: 2 })).format(value);
}
