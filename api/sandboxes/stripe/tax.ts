import { isEuCountry } from "../../platform/countries";
import { type TaxRates, percentOf, rateOf } from "../../platform/tax-rates";
import type { SbCustomer, SbTaxId } from "./objects";

/*
 * Stripe Tax, as the stand-in computes it (issue 35, docs/decisions/061): a seller registered in the EU
 * one-stop shop. From the customer's address country and tax ids: an EU country's standard rate (the
 * product's table, the same numbers), a verified EU VAT id of that country reverse charges (0), and a
 * country outside the EU, or no address, is not taxed ('not_collecting'). Amounts are tax-exclusive,
 * rounded half-up on the cent.
 */

export interface StandInTax {
  country: string | null;
  basisPoints: number;
  reason: "standard_rated" | "reverse_charge" | "not_collecting";
}

/** The sandbox's check of an EU VAT id, as its VIES stand-in answers: all zeros is not registered. */
export function verificationOf(value: string): "verified" | "unverified" {
  return /^[A-Z]{2}0+$/.test(value) ? "unverified" : "verified";
}

export function taxOfCustomer(rates: TaxRates, customer: Pick<SbCustomer, "address" | "_tax_ids">): StandInTax {
  const ids = (customer._tax_ids ?? []).map((id) => ({ type: id.type, value: id.value, country: id.country, verified: id.verification?.status === "verified" }));
  return taxOfParty(rates, customer.address?.country ?? null, ids);
}

/** A VAT id's country: its prefix (Greece's EL is GR). */
function vatIdCountry(value: string): string {
  const prefix = value.toUpperCase().slice(0, 2);
  return prefix === "EL" ? "GR" : prefix;
}

/** The rule, from a country and tax ids (a customer's, or a tax calculation's customer_details). */
export function taxOfParty(rates: TaxRates, country: string | null, taxIds: { type: string; value: string; country?: string | null; verified: boolean }[]): StandInTax {
  if (!country || !isEuCountry(country)) return { country, basisPoints: 0, reason: "not_collecting" };
  const business = taxIds.some((id) => id.type === "eu_vat" && (id.country ?? vatIdCountry(id.value)) === country && id.verified);
  if (business) return { country, basisPoints: 0, reason: "reverse_charge" };
  return { country, basisPoints: rateOf(rates, country), reason: "standard_rated" };
}

export function taxCentsOf(amount: number, tax: StandInTax): number {
  return Math.floor((amount * tax.basisPoints + 5000) / 10000);
}

/** An invoice's total_taxes entry (Stripe.Invoice.TotalTax) for `taxable` cents; none where nothing is collected. */
export function totalTaxesOf(taxable: number, tax: StandInTax) {
  if (tax.reason === "not_collecting") return [];
  return [
    {
      amount: taxCentsOf(taxable, tax),
      tax_behavior: "exclusive" as const,
      tax_rate_details: { tax_rate: `txr_sandbox_${tax.country}_${tax.basisPoints}` },
      taxability_reason: tax.reason,
      taxable_amount: taxable,
      type: "tax_rate_details" as const,
    },
  ];
}

export function percentText(tax: StandInTax): string {
  return percentOf(tax.basisPoints);
}

export type { SbTaxId };
