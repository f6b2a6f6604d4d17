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
    /** Where the bank's challenge sends the browser back (3-D Secure without Stripe.js). */
    returnUrl?: string;
    /** Stripe Tax's calculation this charge is (its amount_total is `amount`): Stripe records the tax with the payment. */
    taxCalculation?: string | null;
  },
): Promise<Stripe.PaymentIntent> {
  const { amount, customer, paymentMethodId, plan, metadata } = input;
  return gateway.stripe.paymentIntents.create(
    {
      amount,
      currency: "usd",
      customer,
      payment_method: paymentMethodId,
      // No redirecting methods unless there is a way back (a return_url: 3-D Secure's challenge as a page).
      automatic_payment_methods: { enabled: true, allow_redirects: input.returnUrl ? "always" : "never" },
      confirm: true,
      ...(input.returnUrl ? { return_url: input.returnUrl } : {}),
      ...(input.saved ? { off_session: true } : { setup_future_usage: "off_session" }),
      description: `VPN ${plan.title} (one-time)`,
      metadata: { ...metadata, kind: "one_time" },
      ...(input.taxCalculation ? { hooks: { inputs: { tax: { calculation: input.taxCalculation } } } } : {}),
    },
    { idempotencyKey: `${input.paymentKey}:intent` },
  );
}

/**
 * Stripe Tax's calculation of a one-time payment of `netCents` (tax-exclusive) to the customer, by the address
 * and VAT id on the Stripe Customer (syncTaxDetails put them there). One per payment key.
 */
export function calculateTax(
  gateway: StripeSetup,
  input: { customer: string; netCents: number; reference: string; paymentKey: string },
): Promise<Stripe.Tax.Calculation> {
  return gateway.stripe.tax.calculations.create(
    {
      currency: "usd",
      customer: input.customer,
      // Software as a service, tax-exclusive: our prices are net.
      line_items: [{ amount: input.netCents, reference: input.reference, tax_behavior: "exclusive", tax_code: "txcd_10103001" }],
    },
    { idempotencyKey: `${input.paymentKey}:tax` },
  );
}

/** Stripe Tax's calculation a PaymentIntent charged (hooks.inputs.tax.calculation), if any. */
export async function taxCalculationOf(gateway: StripeSetup, intent: Pick<Stripe.PaymentIntent, "hooks">): Promise<Stripe.Tax.Calculation | null> {
  const id = intent.hooks?.inputs?.tax?.calculation;
  return id ? gateway.stripe.tax.calculations.retrieve(id) : null;
}

/** The PaymentIntent with the card that paid it expanded. */
export function retrievePaymentIntentWithCard(gateway: StripeSetup, paymentIntentId: string): Promise<Stripe.PaymentIntent> {
  return gateway.stripe.paymentIntents.retrieve(paymentIntentId, { expand: ["payment_method"] });
}

/**
 * Confirms a PaymentIntent waiting for 3-D Secure again with `returnUrl`, so its next action is a
 * redirect to the bank's challenge (the browser without Stripe.js, or the sandbox's challenge dialog).
 */
export function confirmForRedirect(gateway: StripeSetup, paymentIntentId: string, returnUrl: string, operationKey: string): Promise<Stripe.PaymentIntent> {
  return gateway.stripe.paymentIntents.confirm(paymentIntentId, { return_url: returnUrl }, { idempotencyKey: `${operationKey}:redirect` });
}

/** Ends a PaymentIntent that did not pay (failed or abandoned authentication), so it can never charge later. */
export async function cancelPaymentIntent(gateway: StripeSetup, paymentIntentId: string): Promise<Stripe.PaymentIntent> {
  return gateway.stripe.paymentIntents.cancel(paymentIntentId, {}, { idempotencyKey: `cancel-${paymentIntentId}` });
}
