import { useMemo } from "react";
import { formatCents } from "../utils/plans";
import { formatLongDate, formatShortDate } from "../utils/dates";
import type { Language } from "./languages";
import { usePageLanguage } from "./page-language";

/**
 * Money and dates in a language (issue 36): English keeps the spec's formats ('$9.99', '05 March,
 * 2027'); German, French and Spanish get Intl's. The same functions on the server and in the browser.
 */
export function formattersFor(language: Language) {
  return {
    language,
    money: (cents: number) => formatCents(cents, language),
    longDate: (value: string | Date) => formatLongDate(value, language),
    shortDate: (value: string | Date) => formatShortDate(value, language),
    number: (value: number) => value.toLocaleString(language),
  };
}

/** The page's formatters, for components. */
export function useFormatters() {
  const { language } = usePageLanguage();
  return useMemo(() => formattersFor(language), [language]);
}
