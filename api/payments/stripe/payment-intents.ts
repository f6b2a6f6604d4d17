import type { Plan } from "../../platform/db/schema";
import type { Stripe, StripeSetup } from "./client";

// One-time card payments (the plans that never renew) as Stripe PaymentIntents.

/**
 * Charges `amount` cents to the card at once, as the payment with key `paymentKey`. A new card is
 * kept for later payments; a saved one is charged without the customer present.
 */
export function chargeOnce(
  gateway: StripeSetup,
  input: {
    amount: number;
    customer: string;
    paymentMethodId: string;
    saved: boolean;
    plan: Pick<Plan, "title">;
    metadata: Stripe.MetadataParam;
    paymentKey: string;
  },
): Promise<Stripe.PaymentIntent> {
  const { amount, customer, paymentMethodId, plan, metadata } = input;
  return gateway.stripe.paymentIntents.create(
    {
      amount,
      currency: "usd",
      customer,
      payment_method: paymentMethodId,
      // Cards only, and no redirecting methods: nothing here has a return_url.
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      confirm: true,
      ...(input.saved ? { off_session: true } : { setup_future_usage: "off_session" }),
      description: `VPN ${plan.title} (one-time)`,
      metadata: { ...metadata, kind: "one_time" },
    },
    { idempotencyKey: `${input.paymentKey}:intent` },
  );
}

/** The PaymentIntent with the card that paid it expanded. */
export function retrievePaymentIntentWithCard(gateway: StripeSetup, paymentIntentId: string): Promise<Stripe.PaymentIntent> {
  return gateway.stripe.paymentIntents.retrieve(paymentIntentId, { expand: ["payment_method"] });
}
