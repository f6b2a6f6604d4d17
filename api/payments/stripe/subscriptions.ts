import type { Coupon } from "../../platform/db/schema";
import { discountForCoupon } from "./prices";
import type { Stripe, StripeSetup } from "./client";

// Card subscriptions at Stripe: made for a plan, renewing or not, which card pays, ended.

/**
 * A subscription to `price` created incomplete (nothing charged yet), its first invoice to be paid with
 * the card (invoices.ts payInvoice); the invoice comes expanded with its confirmation secret for 3-D Secure.
 */
export async function createIncompleteSubscription(
  gateway: StripeSetup,
  input: { customer: string; price: string; paymentMethodId: string; coupon: Coupon | null; metadata: Stripe.MetadataParam; paymentKey: string },
): Promise<Stripe.Subscription> {
  const { customer, price, paymentMethodId, coupon, metadata } = input;
  return gateway.stripe.subscriptions.create(
    {
      customer,
      items: [{ price, quantity: 1 }],
      default_payment_method: paymentMethodId,
      payment_behavior: "default_incomplete",
      // Stripe Tax adds the VAT of the customer's country (address, EU VAT id) to every invoice, renewals included.
      automatic_tax: { enabled: true },
      payment_settings: { save_default_payment_method: "on_subscription" },
      ...(coupon ? { discounts: [await discountForCoupon(gateway, coupon)] } : {}),
      metadata,
      expand: ["latest_invoice.confirmation_secret"],
    },
    { idempotencyKey: `${input.paymentKey}:subscription` },
  );
}

export function retrieveSubscription(gateway: StripeSetup, subscriptionId: string): Promise<Stripe.Subscription> {
  return gateway.stripe.subscriptions.retrieve(subscriptionId);
}

/** Auto-renewal on or off (Stripe's cancel_at_period_end); Stripe refuses it for a canceled subscription (an invalid request). */
export function setRenewal(gateway: StripeSetup, subscriptionId: string, renewing: boolean): Promise<Stripe.Subscription> {
  return gateway.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: !renewing });
}

/** The next charge moves to `trialEnd` (Unix seconds): a free period at Stripe, nothing prorated. */
export async function setFreePeriodUntil(gateway: StripeSetup, subscriptionId: string, trialEnd: number): Promise<void> {
  await gateway.stripe.subscriptions.update(
    subscriptionId,
    { trial_end: trialEnd, proration_behavior: "none" },
    { idempotencyKey: `free-months-${subscriptionId}-${trialEnd}` },
  );
}

/** The card that pays the subscription's next invoices. */
export async function setCardOfSubscription(gateway: StripeSetup, subscriptionId: string, paymentMethodId: string): Promise<void> {
  await gateway.stripe.subscriptions.update(subscriptionId, { default_payment_method: paymentMethodId });
}

/** Ends the subscription now, as part of the operation with key `operationKey` (a payment or a refund). */
export async function cancelSubscription(gateway: StripeSetup, subscriptionId: string, operationKey: string): Promise<void> {
  await gateway.stripe.subscriptions.cancel(subscriptionId, {}, { idempotencyKey: `${operationKey}:cancel` });
}

/** The customer's subscriptions still waiting for their first payment (incomplete: 3-D Secure not finished). */
export async function incompleteSubscriptions(gateway: StripeSetup, customer: string): Promise<Stripe.Subscription[]> {
  const page = await gateway.stripe.subscriptions.list({ customer, status: "incomplete", limit: 100 });
  return page.data;
}
