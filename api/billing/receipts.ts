import { z } from "zod";
import type { Database } from "../platform/db";
import { dollars } from "../payments/money";
import { PAYMENT_METHODS, methodOfPayment, renewalOf } from "../payments/renewal-rule";

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
    amount_cents: z.int().meta({ description: "What was charged, in cents." }),
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
  const discount = row.coupon_code ? Math.max(0, price - row.amount_cents) : 0;
  return {
    transaction_id: Number(row.id),
    created_at: row.created_at,
    plan_id: Number(row.plan_id),
    method,
    payment_gateway: row.payment_gateway,
    wallet_payment_type: row.wallet_payment_type,
    invoice_available: row.invoice_id !== null,
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
        ? { amount_cents: rule.priceCents, amount: dollars(rule.priceCents), interval_months: rule.intervalMonths, renews_on: new Date(endsOn).toISOString() }
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
