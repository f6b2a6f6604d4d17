import type { ApiSchemas } from "~/utils/api.server";

// The tax of a price as the API answers it (issue 35): the portal words it and never works it out.
// A quote, a receipt or a renewal with `tax: null` (no country yet, or a country where none is charged)
// shows as it always has: one amount, no net, no tax line.

/** The tax of one amount, as the API's quote and receipt carry it (label 'VAT 19 % (Germany)', 'VAT reverse charged'). */
export type Tax = ApiSchemas["TaxLine"];

/** What an amount with its tax carries: the net, the tax (or null) and the total (`amount_cents`). */
export type Taxed = { net_cents?: number | null; tax?: Tax | null; amount_cents: number };

/** The net and the tax line to show, or null when there is none (no tax, or an answer without its net). */
export function taxOf(taxed: Taxed | null | undefined): { tax: Tax; net_cents: number } | null {
  if (!taxed?.tax || typeof taxed.net_cents !== "number") return null;
  return { tax: taxed.tax, net_cents: taxed.net_cents };
}
