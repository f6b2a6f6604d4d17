import type { ApiSchemas } from "~/utils/api.server";
import { formatCents, type Words } from "~/utils/plans";

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
 * What an amount that includes tax says of it, after the amount: 'including VAT 19 % (Germany): $13.66', or
 * 'VAT reverse charged'; null without tax (the amount alone, as before).
 */
export function taxIncluded(tax: Tax | null | undefined, words?: Words): string | null {
  if (!tax) return null;
  if (tax.reverse_charge) return tax.label;
  // The page's words; English for a caller that has not passed its words yet (the label is the API's, in the page's language).
  if (words) return words.t("checkout.tax.including", { label: tax.label, amount: words.money(tax.amount_cents) });
  return `including ${tax.label}: ${formatCents(tax.amount_cents)}`;
}
