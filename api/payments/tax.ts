import { z } from "zod";
import type { Database } from "../platform/db";
import { type Param, prepare } from "../platform/db/prepared";
import type { VatNumberStatus } from "../platform/db/schema";
import { countryName, isEuCountry } from "../platform/countries";
import { type TaxRates, basisPointsOf, percentOf, rateOf } from "../platform/tax-rates";
import { dollars, formatUsd } from "./money";
import { DEFAULT_LANGUAGE, type Language, countryNameIn, formatMoney, formatNumberIn, translatorFor } from "../platform/i18n";

/*
 * Who is taxed how (issue 35, docs/decisions/061), decided here once for the quote, every payment
 * and the invoice. Prices are tax-exclusive USD cents: net + VAT = total.
 * - A business in an EU country with a VAT number of that country that VIES found valid, or that was
 *   accepted unchecked: reverse charge (no VAT charged, the buyer accounts for it; art. 196).
 * - Anyone else in an EU country: that country's standard rate (OSS).
 * - Outside the EU: no VAT, no tax line.
 * - No country known: the caller's default, else treated as outside the EU (no VAT; country null).
 * VAT is rounded half-up on the cent, once, on the net of the payment.
 */

/** Who pays, as far as tax cares: where, and whether as a VAT-registered business of that country. */
export interface TaxParty {
  country: string | null;
  vatNumber: string | null;
  vatNumberStatus: VatNumberStatus | null;
}

export interface TaxLine {
  country: string;
  country_name: string;
  rate_basis_points: number;
  rate_percent: string;
  label: string;
  amount_cents: number;
  amount: number;
  reverse_charge: boolean;
}

export const TaxLineSchema = z
  .strictObject({
    country: z.string().meta({ description: "ISO 3166-1 alpha-2", examples: ["DE"] }),
    country_name: z.string().meta({ examples: ["Germany"] }),
    rate_basis_points: z.int().meta({ description: "The rate in basis points (1900 = 19 %); 0 for a reverse charge.", examples: [1900] }),
    rate_percent: z.string().meta({ description: "The rate as a decimal string in percent", examples: ["19", "25.5"] }),
    label: z.string().meta({ examples: ["VAT 19 % (Germany)", "VAT reverse charged"] }),
    amount_cents: z.int().meta({ description: "The VAT in cents (half-up on the cent, on the net)." }),
    amount: z.number().meta({ description: "The same in USD." }),
    reverse_charge: z.boolean().meta({ description: "An EU business with a valid (or accepted unchecked) VAT number: no VAT charged, the buyer accounts for it." }),
  })
  .meta({ id: "TaxLine" });

export const REVERSE_CHARGE_LABEL = "VAT reverse charged";
/** The invoice's note for a reverse charge (VAT Directive art. 226(11a)). */
export const REVERSE_CHARGE_NOTE = "VAT reverse charged: the recipient accounts for the VAT (Article 196, Council Directive 2006/112/EC).";

/** How a sale to `party` is taxed: the country taxed, the rate and whether it is a reverse charge; no line outside the EU. */
export interface TaxTreatment {
  country: string | null;
  /** null: no VAT applies (outside the EU, or no country known). */
  rateBasisPoints: number | null;
  reverseCharge: boolean;
}

/** The one rule. `defaultCountry` stands in when the party has no country (the caller's guess, e.g. the checkout's). */
export function taxTreatmentOf(rates: TaxRates, party: TaxParty, defaultCountry?: string | null): TaxTreatment {
  const country = party.country ?? defaultCountry ?? null;
  if (!country || !isEuCountry(country)) return { country, rateBasisPoints: null, reverseCharge: false };
  // A VAT number is its country's (billing-details.ts checks the prefix): it makes a reverse charge only there.
  const business =
    party.country === country && !!party.vatNumber && (party.vatNumberStatus === "valid" || party.vatNumberStatus === "unchecked");
  if (business) return { country, rateBasisPoints: 0, reverseCharge: true };
  return { country, rateBasisPoints: rateOf(rates, country), reverseCharge: false };
}

/** VAT on `netCents` at `basisPoints`, half-up on the cent, in integers. */
export function vatCents(netCents: number, basisPoints: number): number {
  return Math.floor((netCents * basisPoints + 5000) / 10000);
}

/** The tax line of `netCents` under a treatment; null where no VAT applies. */
export function taxLineOf(treatment: TaxTreatment, netCents: number): TaxLine | null {
  if (treatment.rateBasisPoints === null || !treatment.country) return null;
  const amount = treatment.reverseCharge ? 0 : vatCents(netCents, treatment.rateBasisPoints);
  const name = countryName(treatment.country);
  const percent = percentOf(treatment.rateBasisPoints);
  return {
    country: treatment.country,
    country_name: name,
    rate_basis_points: treatment.rateBasisPoints,
    rate_percent: percent,
    label: treatment.reverseCharge ? REVERSE_CHARGE_LABEL : `VAT ${percent} % (${name})`,
    amount_cents: amount,
    amount: dollars(amount),
    reverse_charge: treatment.reverseCharge,
  };
}

/** What a payment of `netCents` charges: net, its tax line (or null) and the total. */
export interface TaxedAmount {
  country: string | null;
  netCents: number;
  tax: TaxLine | null;
  taxCents: number;
  totalCents: number;
}

export function taxedAmount(treatment: TaxTreatment, netCents: number): TaxedAmount {
  const tax = taxLineOf(treatment, netCents);
  const taxCents = tax?.amount_cents ?? 0;
  return { country: treatment.country, netCents, tax, taxCents, totalCents: netCents + taxCents };
}

// Every signed-in checkout and quote asks it (prepared once: api/platform/db/prepared.ts).
const billingPartyRow = prepare((db, param: Param<{ userId: number }>) =>
  db.selectFrom("billing_details").select(["country", "vat_number", "vat_number_status"]).where("user_id", "=", param("userId")),
);

/** The account's billing details as tax reads them (no row: nothing known). */
export async function taxPartyOf(db: Database, userId: number): Promise<TaxParty> {
  const row = await billingPartyRow.executeTakeFirst(db, { userId });
  return { country: row?.country ?? null, vatNumber: row?.vat_number ?? null, vatNumberStatus: row?.vat_number_status ?? null };
}

/** The account's treatment at the moment of a payment, from its saved billing details. */
export async function accountTaxTreatment(db: Database, rates: TaxRates, userId: number): Promise<TaxTreatment> {
  return taxTreatmentOf(rates, await taxPartyOf(db, userId));
}

/** A party seen from another country (the checkout's "change country"): its VAT number stays its own country's. */
export function partyIn(party: TaxParty, country: string | undefined | null): TaxParty {
  return country ? { ...party, country: country, ...(party.country === country ? {} : { vatNumber: null, vatNumberStatus: null }) } : party;
}

/** What the invoice row records of a payment's tax (records.ts). */
export interface RecordedTax {
  netCents: number;
  vatCents: number;
  /** Decimal string in percent ("19"; "0" for a reverse charge), null where no VAT line applies. */
  vatRate: string | null;
  country: string | null;
  reverseCharge: boolean;
}

export function recordedTaxOf(taxed: TaxedAmount): RecordedTax {
  return {
    netCents: taxed.netCents,
    vatCents: taxed.taxCents,
    vatRate: taxed.tax ? taxed.tax.rate_percent : null,
    country: taxed.country,
    reverseCharge: taxed.tax?.reverse_charge ?? false,
  };
}

/** The columns a row that asks for a payment later (a crypto invoice) keeps of its tax. */
export function taxColumnsOf(taxed: TaxedAmount) {
  return {
    net_cents: taxed.netCents,
    vat_cents: taxed.taxCents,
    vat_rate: taxed.tax ? taxed.tax.rate_percent : null,
    tax_country: taxed.tax ? taxed.country : null,
    reverse_charge: taxed.tax?.reverse_charge ? 1 : 0,
  };
}

/** The tax columns a row records (an invoice, a crypto invoice, a PayPal checkout) beside its amount. */
export interface RowWithTax {
  amount_cents: number;
  net_cents: number | null;
  vat_cents: number | null;
  vat_rate: string | null;
  tax_country: string | null;
  reverse_charge: number | null;
}

/** The tax such a row was asked with (rows from before 0026: net = amount, no VAT). */
export function recordedTaxOfRow(row: RowWithTax): RecordedTax {
  const amount = Number(row.amount_cents);
  return {
    netCents: row.net_cents === null ? amount : Number(row.net_cents),
    vatCents: Number(row.vat_cents ?? 0),
    vatRate: row.vat_rate,
    country: row.tax_country,
    reverseCharge: Number(row.reverse_charge ?? 0) === 1,
  };
}

/**
 * A total charged at a recorded tax, split into net and VAT (a renewal billed at its first payment's rate,
 * a gateway's amount): net = total / (1 + rate), half-up in integers.
 */
export function splitTotal(totalCents: number, like: RecordedTax): RecordedTax {
  const points = like.vatRate === null || like.reverseCharge ? 0 : (basisPointsOf(like.vatRate) ?? 0);
  if (points === 0) return { ...like, netCents: totalCents, vatCents: 0 };
  const net = Math.floor((2 * totalCents * 10000 + (10000 + points)) / (2 * (10000 + points)));
  return { ...like, netCents: net, vatCents: totalCents - net };
}

/** The treatment a recorded tax was made with (to bill a renewal at the same rate). */
export function treatmentOfRecorded(tax: RecordedTax): TaxTreatment {
  if (tax.vatRate === null) return { country: tax.country, rateBasisPoints: null, reverseCharge: false };
  return { country: tax.country, rateBasisPoints: basisPointsOf(tax.vatRate) ?? 0, reverseCharge: tax.reverseCharge };
}

/**
 * An amount a gateway charged with its own VAT (Stripe Tax's `total_taxes`), worded by our treatment: the
 * gateway's VAT cents, our label and rate. No line where our rule applies none (the VAT is then 0 too).
 */
export function taxedByGateway(treatment: TaxTreatment, totalCents: number, taxCents: number): TaxedAmount {
  const netCents = totalCents - taxCents;
  const line = taxLineOf(treatment, netCents);
  const tax = line ? { ...line, amount_cents: taxCents, amount: dollars(taxCents) } : null;
  return { country: treatment.country, netCents, tax, taxCents, totalCents };
}

/**
 * The treatment a subscription renews at: its latest paid invoice's (PayPal's cycles and crypto's renewal
 * invoices keep the first payment's rate; Stripe Tax taxes by the customer's details, synced at each payment).
 * No paid invoice with a tax: no VAT.
 */
export async function renewalTaxTreatment(db: Database, subscriptionId: number): Promise<TaxTreatment> {
  const row = await latestPaidInvoiceTax.executeTakeFirst(db, { subscriptionId });
  if (!row) return { country: null, rateBasisPoints: null, reverseCharge: false };
  return treatmentOfRecorded(recordedTaxOfRow({ ...row, reverse_charge: row.reverse_charge === null ? null : Number(row.reverse_charge) }));
}

// Every 'Next charge' (the home, Billing) asks it: prepared once (api/platform/db/prepared.ts), one row.
const latestPaidInvoiceTax = prepare((db, param: Param<{ subscriptionId: number }>) =>
  db
    .selectFrom("transactions")
    .innerJoin("invoices", "invoices.transaction_id", "transactions.id")
    .select(["transactions.amount_cents", "invoices.net_cents", "invoices.vat_cents", "invoices.vat_rate", "invoices.tax_country", "invoices.reverse_charge"])
    .where("transactions.subscription_id", "=", param("subscriptionId"))
    .where("transactions.status", "=", "paid")
    .orderBy("transactions.id", "desc")
    .limit(1),
);

/** The net/VAT/total lines an email states, from a taxed amount (the receipt's wording); null tax: the total only. */
export function taxLinesOf(taxed: Pick<TaxedAmount, "netCents" | "tax" | "totalCents">): { net: string; label: string; amount: string } | null {
  return taxed.tax ? { net: formatUsd(taxed.netCents), label: taxed.tax.label, amount: formatUsd(taxed.tax.amount_cents) } : null;
}

/**
 * The sentence every email states a taxed price with: 'Net $9.99, VAT 19 % (Germany) $1.90, total $11.89.'; null
 * without a VAT line. In another language, its words, money, rate and country name ('Netto 9,99 $, USt. 19 %
 * (Deutschland) 1,90 $, gesamt 11,89 $.'; docs/decisions/064).
 */
export function taxSentenceOf(taxed: Pick<TaxedAmount, "netCents" | "tax" | "totalCents">, lng: Language): string | null {
  if (lng === DEFAULT_LANGUAGE) {
    const lines = taxLinesOf(taxed);
    return lines ? `Net ${lines.net}, ${lines.label} ${lines.amount}, total ${formatUsd(taxed.totalCents)}.` : null;
  }
  if (!taxed.tax) return null;
  const t = translatorFor(lng);
  const { tax } = taxed;
  const label = tax.reverse_charge
    ? t("emails:billing.tax.reverseCharged")
    : t("emails:billing.tax.vat", { percent: formatNumberIn(lng, tax.rate_basis_points / 100), country: countryNameIn(lng, tax.country) });
  return t("emails:billing.tax.sentence", {
    net: formatMoney(lng, taxed.netCents),
    label,
    vat: formatMoney(lng, tax.amount_cents),
    total: formatMoney(lng, taxed.totalCents),
  });
}

/**
 * An unpaid renewal's net, VAT and total (the dunning emails and the pay banner): the gateway's VAT when it
 * names it (Stripe's invoice, `amountCents` is then the total), else `amountCents` is the renewal's net, taxed
 * at the subscription's treatment (PayPal's cycles, VAT included, are billed at it).
 */
export async function unpaidRenewalTax(db: Database, subscriptionId: number, amountCents: number, taxCents: number | null): Promise<TaxedAmount> {
  const treatment = await renewalTaxTreatment(db, subscriptionId);
  return taxCents === null ? taxedAmount(treatment, amountCents) : taxedByGateway(treatment, amountCents, taxCents);
}

/** The VAT line an invoice recorded (its own VAT cents, the wording of its rate); null where it has none. The receipt, its email and the history read it. */
export function taxLineOfRecorded(recorded: RecordedTax): TaxLine | null {
  const line = taxLineOf(treatmentOfRecorded(recorded), recorded.netCents);
  return line ? { ...line, amount_cents: recorded.vatCents, amount: dollars(recorded.vatCents) } : null;
}

/** The VAT share of `refundedCents` of a payment of `totalCents` with `vatCents` VAT: half-up on the cent, once (a full refund: all of it). */
export function vatShareOf(totalCents: number, vatCents: number, refundedCents: number): number {
  if (totalCents <= 0 || vatCents === 0) return 0;
  if (refundedCents >= totalCents) return vatCents;
  return Math.floor((2 * vatCents * refundedCents + totalCents) / (2 * totalCents));
}
