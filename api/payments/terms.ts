import { z } from "zod";
import type { Database } from "../platform/db";
import type { Plan } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { checkCoupon } from "./coupons";
import { dollars } from "./money";
import { PAYMENT_METHODS, type PaymentMethod, renewalOf } from "./renewal-rule";
import { accessEndOf, addMonthsUtc } from "./records";
import { TaxLineSchema, type TaxTreatment, taxedAmount } from "./tax";

export { PAYMENT_METHODS, type PaymentMethod, methodOfPayment, renewalOf } from "./renewal-rule";

/*
 * One commercial truth (issue 32, docs/decisions/048): what a customer pays now, what that buys and
 * what renews then, for a plan, a coupon and the way they pay. Decided here once: the checkout's
 * quote (POST /api/checkout/quote, GET /api/account/checkout), each plan's terms per payment method,
 * the payment code that records the outcome (PayPal's order or subscription, crypto's
 * never-renewing plan) and the receipt email all ask these functions. Money is integer cents; the
 * decimal fields the spec shows are computed from them.
 */

export const QuoteSchema = z
  .strictObject({
    plan_id: z.int(),
    method: z.enum(PAYMENT_METHODS),
    coupon_code: z.string().nullable().meta({ description: "The coupon this quote applies; null without one." }),
    price_cents: z.int().meta({ description: "The plan's price (discounted_price), in cents." }),
    price: z.number().meta({ description: "The same in USD." }),
    discount_amount_cents: z.int().meta({ description: "What the coupon takes off, in cents (0 without one)." }),
    discount_amount: z.number().meta({ description: "The same in USD." }),
    country: z.string().nullable().meta({
      description: "ISO 3166-1 alpha-2 of the country the tax is for (the `country` asked, else the saved billing country); null when none is known (no VAT).",
      examples: ["DE"],
    }),
    net_cents: z.int().meta({ description: "What is charged before tax (price − discount), in cents. Prices are tax-exclusive." }),
    net: z.number().meta({ description: "The same in USD." }),
    tax: TaxLineSchema.nullable().meta({ description: "The VAT line (EU: the country's rate, or a reverse charge at 0); null when no VAT applies (outside the EU)." }),
    amount_cents: z.int().meta({ description: "What is charged now, in cents: net_cents + tax.amount_cents." }),
    amount: z.number().meta({ description: "The same in USD." }),
    paid_months: z.int().meta({ description: "The months this payment pays for (the plan's duration_months)." }),
    extra_months: z.int().meta({ description: "The free months the first payment adds." }),
    months: z.int().meta({ description: "paid_months + extra_months." }),
    first_term_ends_on: z.string().meta({ format: "date-time", description: "When the first term ends if paid now (the product's clock)." }),
    renewal: z
      .strictObject({
        net_cents: z.int().meta({ description: "The renewal before tax (the plan's price), in cents." }),
        tax_cents: z.int().meta({ description: "Its VAT at the same rate as now, in cents." }),
        amount_cents: z.int().meta({ description: "What each renewal charges: net_cents + tax_cents." }),
        amount: z.number(),
        interval_months: z.int(),
        renews_on: z.string().meta({ format: "date-time", description: "The first renewal: the end of the first term." }),
      })
      .nullable()
      .meta({ description: "null: this payment does not renew by itself." }),
  })
  .meta({ id: "CheckoutQuote" });

export type Quote = z.infer<typeof QuoteSchema>;

/** The end of a first term of `plan` paid at `now`: its months and free months, as the payment records them. */
export function firstTermEnd(plan: Pick<Plan, "duration_months" | "extra_months">, now: Date): Date {
  return accessEndOf(plan, addMonthsUtc(now, plan.duration_months), true);
}

/** No country known: no VAT (docs/decisions/061). */
export const UNTAXED: TaxTreatment = { country: null, rateBasisPoints: null, reverseCharge: false };

/** The quote of one method from the numbers (no coupon lookup), taxed by `treatment` (tax.ts). */
export function quoteOf(
  plan: Plan,
  method: PaymentMethod,
  now: Date,
  coupon: { code: string; discountCents: number } | null,
  treatment: TaxTreatment = UNTAXED,
): Quote {
  const price = plan.discounted_price_cents;
  const discount = coupon ? Math.min(price, Math.max(0, coupon.discountCents)) : 0;
  const ends = firstTermEnd(plan, now);
  const renewal = renewalOf(plan, method);
  const charged = taxedAmount(treatment, price - discount);
  const renewed = renewal.renews ? taxedAmount(treatment, renewal.priceCents) : null;
  return {
    plan_id: Number(plan.id),
    method,
    coupon_code: coupon?.code ?? null,
    price_cents: price,
    price: dollars(price),
    discount_amount_cents: discount,
    discount_amount: dollars(discount),
    country: charged.country,
    net_cents: charged.netCents,
    net: dollars(charged.netCents),
    tax: charged.tax,
    amount_cents: charged.totalCents,
    amount: dollars(charged.totalCents),
    paid_months: plan.duration_months,
    extra_months: plan.extra_months,
    months: plan.duration_months + plan.extra_months,
    first_term_ends_on: ends.toISOString(),
    renewal: renewed && renewal.renews
      ? {
          net_cents: renewed.netCents,
          tax_cents: renewed.taxCents,
          amount_cents: renewed.totalCents,
          amount: dollars(renewed.totalCents),
          interval_months: renewal.intervalMonths,
          renews_on: ends.toISOString(),
        }
      : null,
  };
}

/**
 * The quotes of a plan for `methods`, with a coupon (checked: 422 coupon_invalid under `coupon` when
 * it cannot be used) or without.
 */
export async function quotesFor(
  db: Database,
  plan: Plan,
  opts: { methods: readonly PaymentMethod[]; coupon?: string | null; now: Date; tax?: TaxTreatment },
): Promise<Quote[]> {
  let coupon: { code: string; discountCents: number } | null = null;
  if (opts.coupon) {
    const check = await checkCoupon(db, opts.coupon, plan, opts.now);
    if (!check.ok) throw new DomainError("coupon_invalid", check.message, { field: "coupon" });
    coupon = { code: check.coupon.code, discountCents: check.discountCents };
  }
  return opts.methods.map((method) => quoteOf(plan, method, opts.now, coupon, opts.tax));
}
