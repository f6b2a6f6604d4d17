import { z } from "zod";
import type { Ops } from "./context";
import { invalidRequest } from "./errors";
import { newId } from "./ids";
import type { SbAddress, SbPaymentIntent, SbTaxCalculation, SbTaxCalculationLineItem } from "./objects";
import { zAddress, zCurrency, zInt, zList, zListParams, zMetadata } from "./params";
import { type StandInTax, taxCentsOf, taxOfParty, verificationOf } from "./tax";

/*
 * Stripe Tax's calculations (issue 35, docs/decisions/061): the tax of a payment that is no invoice (the
 * product's one-time PaymentIntent), POST /v1/tax/calculations with line items and the customer (or its
 * details), GET /v1/tax/calculations/:id and its /line_items. The same rule as the stand-in's invoices
 * (tax.ts): the customer's address country, a verified EU VAT id of that country reverse charges.
 * A PaymentIntent charges one with hooks.inputs.tax.calculation: its amount must be the calculation's
 * amount_total, and the calculation must not have expired (90 days, as at Stripe).
 */

const EXPIRES_AFTER_SECONDS = 90 * 86_400;

export const taxCalculationCreateParams = z.strictObject({
  currency: zCurrency,
  line_items: zList(
    z.strictObject({
      amount: zInt,
      reference: z.string().min(1).max(500),
      quantity: zInt.pipe(z.number().min(1)).optional(),
      tax_behavior: z.enum(["exclusive", "inclusive"]).optional(),
      tax_code: z.string().optional(),
      product: z.string().optional(),
      metadata: zMetadata.optional(),
    }),
  ),
  customer: z.string().min(1).optional(),
  customer_details: z
    .strictObject({
      address: zAddress.optional(),
      address_source: z.enum(["billing", "shipping"]).optional(),
      ip_address: z.string().optional(),
      tax_ids: zList(z.strictObject({ type: z.string(), value: z.string() })).optional(),
      taxability_override: z.enum(["none", "customer_exempt", "reverse_charge"]).optional(),
    })
    .optional(),
  tax_date: zInt.optional(),
});

export const taxCalculationLineItemsParams = z.strictObject({ ...zListParams });

/** Stripe's tax code for software as a service (what a VPN subscription is taxed as). */
const GENERAL_SAAS = "txcd_10103001";

function fullAddress(address: Partial<SbAddress> | null | undefined): SbAddress | null {
  if (!address) return null;
  return {
    city: address.city ?? null,
    country: address.country ?? null,
    line1: address.line1 ?? null,
    line2: address.line2 ?? null,
    postal_code: address.postal_code ?? null,
    state: address.state ?? null,
  };
}

/** Stripe's percentage_decimal: '19.0', '25.5'. */
function percentageDecimal(basisPoints: number): string {
  const percent = basisPoints / 100;
  return Number.isInteger(percent) ? percent.toFixed(1) : String(percent);
}

/** POST /v1/tax/calculations. */
export async function createTaxCalculation(ops: Ops, p: z.output<typeof taxCalculationCreateParams>): Promise<SbTaxCalculation> {
  if (!p.customer && !p.customer_details) {
    throw invalidRequest("You must specify either `customer` or `customer_details`.", { param: "customer_details" });
  }
  if (p.line_items.length === 0) throw invalidRequest("At least one line item is required.", { param: "line_items" });
  let details: SbTaxCalculation["customer_details"];
  if (p.customer) {
    const customer = await ops.store.require("customer", p.customer, "customer");
    details = {
      address: customer.address ? fullAddress(customer.address) : null,
      address_source: customer.address ? "billing" : null,
      ip_address: null,
      tax_ids: (customer._tax_ids ?? []).map((id) => ({ type: id.type, value: id.value })),
      taxability_override: "none",
    };
  } else {
    const given = p.customer_details!;
    details = {
      address: fullAddress(given.address),
      address_source: given.address ? (given.address_source ?? "billing") : null,
      ip_address: given.ip_address ?? null,
      tax_ids: given.tax_ids ?? [],
      taxability_override: given.taxability_override ?? "none",
    };
  }
  const country = details.address?.country ?? null;
  // Stripe cannot tax without a location.
  if (!country) {
    throw invalidRequest("We could not determine the customer's tax location from the provided customer address.", {
      param: "customer_details[address]",
      code: "customer_tax_location_invalid",
    });
  }
  const tax: StandInTax =
    details.taxability_override === "reverse_charge"
      ? { country, basisPoints: 0, reason: "reverse_charge" }
      : taxOfParty(ops.taxRates, country, details.tax_ids.map((id) => ({ type: id.type, value: id.value, verified: verificationOf(id.value) === "verified" })));
  const id = newId("taxcalc_");
  const lines: SbTaxCalculationLineItem[] = p.line_items.map((line) => ({
    id: newId("tax_li_"),
    object: "tax.calculation_line_item",
    amount: line.amount,
    amount_tax: line.tax_behavior === "inclusive" ? 0 : taxCentsOf(line.amount, tax),
    livemode: false,
    metadata: typeof line.metadata === "object" ? line.metadata : {},
    performance_location: null,
    product: line.product ?? null,
    quantity: line.quantity ?? 1,
    reference: line.reference,
    tax_behavior: line.tax_behavior ?? "exclusive",
    tax_code: line.tax_code ?? GENERAL_SAAS,
  }));
  if (lines.some((line) => line.tax_behavior === "inclusive")) {
    throw invalidRequest("The Stripe sandbox calculates tax-exclusive line items only.", { param: "line_items" });
  }
  const taxable = lines.reduce((sum, line) => sum + line.amount, 0);
  // Tax on the sum, once (the product sends one line): half-up on the cent.
  const taxCents = taxCentsOf(taxable, tax);
  const [first] = lines;
  if (first && lines.length === 1) first.amount_tax = taxCents;
  const calculation: SbTaxCalculation = {
    id,
    object: "tax.calculation",
    amount_total: taxable + taxCents,
    currency: p.currency,
    customer: p.customer ?? null,
    customer_details: details,
    expires_at: ops.now + EXPIRES_AFTER_SECONDS,
    livemode: false,
    ship_from_details: null,
    shipping_cost: null,
    tax_amount_exclusive: taxCents,
    tax_amount_inclusive: 0,
    tax_breakdown: [
      {
        amount: taxCents,
        inclusive: false,
        tax_rate_details: {
          country,
          flat_amount: null,
          percentage_decimal: percentageDecimal(tax.basisPoints),
          rate_type: "percentage",
          state: null,
          tax_type: tax.reason === "not_collecting" ? null : "vat",
        },
        taxability_reason: tax.reason,
        taxable_amount: taxable,
      },
    ],
    tax_date: p.tax_date ?? ops.now,
    _line_items: lines,
  };
  await ops.store.insert("tax_calculation", calculation);
  return calculation;
}

/**
 * A PaymentIntent's hooks.inputs.tax.calculation: the calculation exists, has not expired, is of this
 * amount and currency, and was not used by another intent (then it is kept as used by this one).
 */
export async function useTaxCalculation(ops: Ops, calculationId: string, intent: Pick<SbPaymentIntent, "id" | "amount" | "currency">): Promise<void> {
  const calculation = await ops.store.require("tax_calculation", calculationId, "hooks[inputs][tax][calculation]");
  if (calculation.expires_at !== null && calculation.expires_at < ops.now) {
    throw invalidRequest("The tax calculation has expired.", { param: "hooks[inputs][tax][calculation]" });
  }
  if (calculation.amount_total !== intent.amount || calculation.currency !== intent.currency) {
    throw invalidRequest(
      `The PaymentIntent's amount (${intent.amount} ${intent.currency}) must equal the tax calculation's amount_total (${calculation.amount_total} ${calculation.currency}).`,
      { param: "amount" },
    );
  }
  if (calculation._payment_intent && calculation._payment_intent !== intent.id) {
    throw invalidRequest("This tax calculation was already used by another PaymentIntent.", { param: "hooks[inputs][tax][calculation]" });
  }
  await ops.store.save("tax_calculation", { ...calculation, _payment_intent: intent.id });
}
