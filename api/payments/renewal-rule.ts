import { z } from "zod";
import type { Plan } from "../platform/db/schema";
import { dollars } from "./money";

/*
 * THE renewal rule of issue 32 (docs/decisions/048), and each plan's terms per payment method as the
 * API lists them: pure, with no database, so that plans.ts (the plan's answer), the quote (terms.ts),
 * the payment code (PayPal's order or subscription) and the receipt email all use this one function.
 */

/** The ways the checkout offers to pay. */
export const PAYMENT_METHODS = ["card", "saved_card", "wallet", "paypal", "crypto"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** PayPal bills a subscription at most every 12 months: a longer term is one payment that does not renew. */
export const PAYPAL_MAX_INTERVAL_MONTHS = 12;

export type PlanTerms = Pick<Plan, "billing_type" | "duration_months" | "extra_months" | "discounted_price_cents" | "regular_price_cents">;

/** What a method does after the first payment: renews (at the plan's price, every term) or not. */
export type Renewal = { renews: true; priceCents: number; intervalMonths: number } | { renews: false };

/**
 * THE renewal rule. A one-time plan never renews. Crypto never renews by itself (a renewal invoice is
 * emailed). PayPal renews only a term it can bill as a subscription: at most 12 months, its free
 * months too (so the 2-year plan is one PayPal payment that does not renew). Card, saved card and
 * wallet renew every recurring plan.
 */
export function renewalOf(plan: PlanTerms, method: PaymentMethod): Renewal {
  if (plan.billing_type !== "recurring") return { renews: false };
  if (method === "crypto") return { renews: false };
  if (method === "paypal" && (plan.duration_months > PAYPAL_MAX_INTERVAL_MONTHS || plan.extra_months > PAYPAL_MAX_INTERVAL_MONTHS)) {
    return { renews: false };
  }
  return { renews: true, priceCents: plan.discounted_price_cents, intervalMonths: plan.duration_months };
}

/** The method of a recorded payment (transactions.payment_gateway and wallet_payment_type). */
export function methodOfPayment(gateway: string, walletPaymentType: string | null): PaymentMethod {
  if (gateway === "bitpay") return "crypto";
  if (gateway === "paypal") return "paypal";
  if (walletPaymentType === "applepay" || walletPaymentType === "googlepay") return "wallet";
  return "card";
}

export const MethodTermsSchema = z
  .strictObject({
    renews: z.boolean().meta({ description: "Whether paying this way renews by itself." }),
    renewal_price_cents: z.int().nullable().meta({ description: "What each renewal costs, in cents; null when it does not renew." }),
    renewal_price: z.number().nullable().meta({ description: "The same in USD." }),
    interval_months: z.int().nullable().meta({ description: "Months between renewals; null when it does not renew." }),
  })
  .meta({ id: "MethodTerms" });

export const PaymentTermsSchema = z
  .strictObject(Object.fromEntries(PAYMENT_METHODS.map((method) => [method, MethodTermsSchema])) as Record<PaymentMethod, typeof MethodTermsSchema>)
  .meta({ id: "PaymentTerms", description: "Per payment method the checkout offers: whether it renews, at what price and how often." });

export function methodTermsOf(plan: PlanTerms, method: PaymentMethod): z.infer<typeof MethodTermsSchema> {
  const renewal = renewalOf(plan, method);
  return renewal.renews
    ? { renews: true, renewal_price_cents: renewal.priceCents, renewal_price: dollars(renewal.priceCents), interval_months: renewal.intervalMonths }
    : { renews: false, renewal_price_cents: null, renewal_price: null, interval_months: null };
}

export function paymentTermsOf(plan: PlanTerms): z.infer<typeof PaymentTermsSchema> {
  return Object.fromEntries(PAYMENT_METHODS.map((method) => [method, methodTermsOf(plan, method)])) as z.infer<typeof PaymentTermsSchema>;
}

