/*
 * The portal's one date formatter (docs/decisions/050), on the server and in the browser alike: the
 * spec's 'DD MMMM, Y' ('05 March, 2027', DESIGN §2) for every date a page shows, and 'Mon DD, YYYY'
 * for saved cards only (commerce §9). Always UTC, the zone the API stores dates in, so the server's
 * HTML and the browser's agree whatever their zones. The API's emails use api/platform/dates.ts, which
 * writes the same.
 */

import { DEFAULT_LANGUAGE, INTL_LOCALES, type Language } from "../i18n/languages";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAY_MS = 24 * 60 * 60 * 1000;

const two = (n: number) => String(n).padStart(2, "0");

/**
 * 'DD MMMM, Y' of the spec, e.g. "05 March, 2027", in English; in another language its own long date
 * by Intl ("05. März 2027", "05 mars 2027", "05 de marzo de 2027"; issue 36).
 */
export function formatLongDate(value: string | Date, language: Language = DEFAULT_LANGUAGE): string {
  const d = new Date(value);
  if (language !== DEFAULT_LANGUAGE) return intlDate(language, { day: "2-digit", month: "long", year: "numeric" }).format(d);
  return `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]}, ${d.getUTCFullYear()}`;
}

/** 'Mon DD, YYYY', e.g. "Mar 05, 2027": saved cards' dates only (commerce §9); Intl's short month elsewhere. */
export function formatShortDate(value: string | Date, language: Language = DEFAULT_LANGUAGE): string {
  const d = new Date(value);
  if (language !== DEFAULT_LANGUAGE) return intlDate(language, { day: "2-digit", month: "short", year: "numeric" }).format(d);
  return `${MONTHS[d.getUTCMonth()]!.slice(0, 3)} ${two(d.getUTCDate())}, ${d.getUTCFullYear()}`;
}

/** Intl's formatters are dear to make and safe to share: one per language and style. */
const intlDates = new Map<string, Intl.DateTimeFormat>();
function intlDate(language: Language, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${language} ${JSON.stringify(options)}`;
  let format = intlDates.get(key);
  if (!format) intlDates.set(key, (format = new Intl.DateTimeFormat(INTL_LOCALES[language], { ...options, timeZone: "UTC" })));
  return format;
}

/** Whole days until `expiry`, counting a started day as a day: 0 once it has passed. */
export function daysLeft(expiry: string | Date, now: Date): number {
  const remaining = new Date(expiry).getTime() - now.getTime();
  return remaining > 0 ? Math.ceil(remaining / DAY_MS) : 0;
}

/** 'YYYY-MM-DD HH:mm UTC' of a moment (devices, security activity, handshakes); text that is no date comes back as it is. */
export function formatUtcDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())} UTC`;
}
