import { z } from "zod";
import type { Database } from "../platform/db";
import { dollars } from "../payments/money";
import { PAYMENT_METHODS, methodOfPayment, renewalOf } from "../payments/renewal-rule";
import { TaxLineSchema, recordedTaxOfRow, taxLineOfRecorded, taxedAmount, treatmentOfRecorded } from "../payments/tax";

/*
 * The receipt of the payment just made for a plan (the checkout once paid, issue 21), as the API
 * recorded it and by the rule the quote used (api/payments/terms.ts, issue 32): what was charged (a
 * coupon's part apart), what it buys, when the first term ends (the subscription as recorded) and
 * what renews then, or why nothing does. The portal formats it and computes nothing.
 */

export const PaymentReceiptSchema = z
  .strictObject({
    transaction_id: z.int(),
    created_at: z.string().meta({ format: "date-time" }),
    plan_id: z.int(),
    method: z.enum(PAYMENT_METHODS),
    payment_gateway: z.string().meta({ examples: ["stripe"] }),
    wallet_payment_type: z.string().nullable().meta({ examples: ["card"] }),
    invoice_available: z.boolean(),
    country: z.string().nullable().meta({ description: "The country whose VAT was charged (the invoice's); null when none applied." }),
    net_cents: z.int().meta({ description: "What was charged before tax, in cents (the invoice's net)." }),
    net: z.number(),
    tax: TaxLineSchema.nullable().meta({ description: "The invoice's VAT line, as the quote words it; null when no VAT applied." }),
    amount_cents: z.int().meta({ description: "What was charged, in cents: net + tax." }),
    amount: z.number().meta({ description: "The same in USD." }),
    price_cents: z.int().meta({ description: "The plan's price, in cents." }),
    price: z.number(),
    coupon_code: z.string().nullable(),
    discount_amount_cents: z.int().meta({ description: "What the coupon took off, in cents (0 without one)." }),
    discount_amount: z.number(),
    paid_months: z.int(),
    extra_months: z.int(),
    months: z.int(),
    first_term_ends_on: z.string().meta({ format: "date-time", description: "The subscription's paid-through date as recorded." }),
    renewal: z
      .strictObject({
        net_cents: z.int(),
        tax_cents: z.int().meta({ description: "The renewal's VAT at the rate of this payment." }),
        amount_cents: z.int(),
        amount: z.number(),
        interval_months: z.int(),
        renews_on: z.string().meta({ format: "date-time" }),
      })
      .nullable(),
    does_not_renew_because: z
      .enum(["one_time", "crypto", "paypal_term", "auto_renewal_off"])
      .nullable()
      .meta({ description: "Why renewal is null: a one-time plan, crypto, a term PayPal cannot bill (over 12 months), or auto-renewal turned off since." }),
    later_payment_for_another_plan: z.boolean().meta({ description: "A newer payment was for another plan (a plan change since)." }),
  })
  .meta({ id: "PaymentReceipt" });

export type PaymentReceipt = z.infer<typeof PaymentReceiptSchema>;

/** The account's newest paid payment for `planId` with its terms; null when there is none. */
export async function paymentReceiptOf(db: Database, userId: number, planId: number): Promise<PaymentReceipt | null> {
  const row = await db
    .selectFrom("transactions")
    .innerJoin("plans", "plans.id", "transactions.plan_id")
    .leftJoin("invoices", "invoices.transaction_id", "transactions.id")
    .leftJoin("subscriptions", "subscriptions.id", "transactions.subscription_id")
    .select([
      "transactions.id",
      "transactions.created_at",
      "transactions.amount_cents",
      "transactions.payment_gateway",
      "transactions.wallet_payment_type",
      "transactions.coupon_code",
      "plans.id as plan_id",
      "plans.billing_type",
      "plans.duration_months",
      "plans.extra_months",
      "plans.discounted_price_cents",
      "plans.regular_price_cents",
      "invoices.id as invoice_id",
      "invoices.net_cents",
      "invoices.vat_cents",
      "invoices.vat_rate",
      "invoices.tax_country",
      "invoices.reverse_charge",
      "subscriptions.sub_exp_date",
      "subscriptions.cancel_at_period_end",
    ])
    .where("transactions.user_id", "=", userId)
    .where("transactions.plan_id", "=", planId)
    .where("transactions.status", "=", "paid")
    .orderBy("transactions.id", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const later = await db
    .selectFrom("transactions")
    .select("id")
    .where("user_id", "=", userId)
    .where("status", "=", "paid")
    .where("plan_id", "!=", planId)
    .where("id", ">", row.id)
    .executeTakeFirst();
  const method = methodOfPayment(row.payment_gateway, row.wallet_payment_type);
  const rule = renewalOf(row, method);
  const endsOn = row.sub_exp_date ?? row.created_at;
  const off = rule.renews && Number(row.cancel_at_period_end ?? 0) === 1;
  const price = row.discounted_price_cents;
  // The tax as the invoice recorded it; the renewal at the same rate, as the quote said.
  const recorded = recordedTaxOfRow({ ...row, vat_cents: row.vat_cents ?? 0 });
  const treatment = treatmentOfRecorded(recorded);
  const tax = taxLineOfRecorded(recorded);
  const discount = row.coupon_code ? Math.max(0, price - recorded.netCents) : 0;
  return {
    transaction_id: Number(row.id),
    created_at: row.created_at,
    plan_id: Number(row.plan_id),
    method,
    payment_gateway: row.payment_gateway,
    wallet_payment_type: row.wallet_payment_type,
    invoice_available: row.invoice_id !== null,
    country: recorded.vatRate === null ? null : recorded.country,
    net_cents: recorded.netCents,
    net: dollars(recorded.netCents),
    tax,
    amount_cents: row.amount_cents,
    amount: dollars(row.amount_cents),
    price_cents: price,
    price: dollars(price),
    coupon_code: row.coupon_code,
    discount_amount_cents: discount,
    discount_amount: dollars(discount),
    paid_months: row.duration_months,
    extra_months: row.extra_months,
    months: row.duration_months + row.extra_months,
    first_term_ends_on: new Date(endsOn).toISOString(),
    renewal:
      rule.renews && !off
        ? (() => {
            const renewed = taxedAmount(treatment, rule.priceCents);
            return {
              net_cents: renewed.netCents,
              tax_cents: renewed.taxCents,
              amount_cents: renewed.totalCents,
              amount: dollars(renewed.totalCents),
              interval_months: rule.intervalMonths,
              renews_on: new Date(endsOn).toISOString(),
            };
          })()
        : null,
    does_not_renew_because: off
      ? "auto_renewal_off"
      : rule.renews
        ? null
        : row.billing_type !== "recurring"
          ? "one_time"
          : method === "crypto"
            ? "crypto"
            : "paypal_term",
    later_payment_for_another_plan: later !== undefined,
  };
}
