import type { ApiSchemas } from "~/utils/api.server";
import { DEFAULT_LANGUAGE, INTL_LOCALES, type Language } from "~/i18n/languages";
import type { Translate, Words } from "~/utils/plans";

// The tax of a price as the API answers it (issue 35): the portal words it and never works it out.
// A quote, a receipt or a renewal with `tax: null` (no country yet, or a country where none is charged)
// shows as it always has: one amount, no net, no tax line.

/** The tax of one amount, as the API's quote and receipt carry it (label 'VAT 19 % (Germany)', 'VAT reverse charged'). */
export type Tax = ApiSchemas["TaxLine"];

/** What an amount with its tax carries (a quote, a receipt): the net, the tax (or null) and the total (`amount_cents`). */
export type Taxed = { net_cents: number; tax: Tax | null; amount_cents: number };

/** The net and the tax line to show, or null when no tax applies. */
export function taxOf(taxed: Taxed | null | undefined): { tax: Tax; net_cents: number } | null {
  return taxed?.tax ? { tax: taxed.tax, net_cents: taxed.net_cents } : null;
}

/**
 * The tax line's name in a language: the API's own label in English ('VAT 19 % (Germany)', 'VAT reverse
 * charged'); elsewhere the same facts (rate, country, reverse charge) in the language's words, the rate
 * with its decimal comma and the country by Intl ('USt. 19 % (Deutschland)', 'TVA 25,5 % (Finlande)').
 */
export function taxLabel(tax: Tax, t: Translate, language: Language): string {
  if (language === DEFAULT_LANGUAGE) return tax.label;
  if (tax.reverse_charge) return t("checkout.tax.reverseCharged");
  const percent = Number(tax.rate_percent).toLocaleString(INTL_LOCALES[language], { maximumFractionDigits: 2 });
  return t("checkout.tax.label", { percent, country: countryNameIn(tax.country, language) ?? tax.country_name });
}

const countryNames = new Map<Language, Intl.DisplayNames>();
function countryNameIn(code: string, language: Language): string | undefined {
  let names = countryNames.get(language);
  if (!names) countryNames.set(language, (names = new Intl.DisplayNames([INTL_LOCALES[language]], { type: "region" })));
  try {
    return names.of(code);
  } catch {
    return undefined;
  }
}

/**
 * What an amount that includes tax says of it, after the amount: 'including VAT 19 % (Germany): $13.66', or
 * 'VAT reverse charged'; null without tax (the amount alone, as before).
 */
export function taxIncluded(tax: Tax | null | undefined, words: Words & { language: Language }): string | null {
  if (!tax) return null;
  const label = taxLabel(tax, words.t, words.language);
  if (tax.reverse_charge) return label;
  return words.t("checkout.tax.including", { label, amount: words.money(tax.amount_cents) });
}
