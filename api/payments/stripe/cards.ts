import type { Stripe, StripeSetup } from "./client";

// Cards at Stripe (PaymentMethods, and the SetupIntent that attaches one for later payments).

export function retrieveCard(gateway: StripeSetup, paymentMethodId: string): Promise<Stripe.PaymentMethod> {
  return gateway.stripe.paymentMethods.retrieve(paymentMethodId);
}

/** Attaches a new card to the customer as part of the payment with key `paymentKey`. */
export function attachCard(gateway: StripeSetup, paymentMethodId: string, customer: string, paymentKey: string): Promise<Stripe.PaymentMethod> {
  return gateway.stripe.paymentMethods.attach(paymentMethodId, { customer }, { idempotencyKey: `${paymentKey}:attach` });
}

/** Saves a card to the customer for later payments without the customer present: a SetupIntent confirmed with it. */
export function confirmCardSetup(
  gateway: StripeSetup,
  input: { userId: number; customer: string; paymentMethodId: string; returnUrl?: string; metadata?: Stripe.MetadataParam },
): Promise<Stripe.SetupIntent> {
  return gateway.stripe.setupIntents.create(
    {
      customer: input.customer,
      payment_method: input.paymentMethodId,
      automatic_payment_methods: { enabled: true, allow_redirects: input.returnUrl ? "always" : "never" },
      usage: "off_session",
      confirm: true,
      // 3-D Secure's challenge as a redirect back here (no Stripe.js, or the sandbox's dialog).
      ...(input.returnUrl ? { return_url: input.returnUrl } : {}),
      metadata: { ...input.metadata, user_id: String(input.userId) },
    },
    { idempotencyKey: `add-card-${input.userId}-${input.paymentMethodId}${input.returnUrl ? "-redirect" : ""}` },
  );
}

/** Ends a SetupIntent whose authentication failed or was abandoned: its challenge can no longer save the card. */
export function cancelSetupIntent(gateway: StripeSetup, setupIntentId: string): Promise<Stripe.SetupIntent> {
  return gateway.stripe.setupIntents.cancel(setupIntentId, {}, { idempotencyKey: `cancel-${setupIntentId}` });
}

export function retrieveSetupIntent(gateway: StripeSetup, setupIntentId: string): Promise<Stripe.SetupIntent> {
  return gateway.stripe.setupIntents.retrieve(setupIntentId);
}

/** The cardholder name and postal code the customer entered (an absent one is left as it is). */
export function setCardBillingDetails(
  gateway: StripeSetup,
  paymentMethodId: string,
  input: { name?: string; postal?: string },
): Promise<Stripe.PaymentMethod> {
  const { name, postal } = input;
  return gateway.stripe.paymentMethods.update(paymentMethodId, {
    billing_details: { ...(name ? { name } : {}), ...(postal ? { address: { postal_code: postal } } : {}) },
  });
}

/** A new expiry and cardholder name; Stripe checks the expiry (a card error or an invalid request naming the field). */
export function setCardExpiryAndName(
  gateway: StripeSetup,
  paymentMethodId: string,
  input: { expMonth: number; expYear: number; billingName: string },
): Promise<Stripe.PaymentMethod> {
  return gateway.stripe.paymentMethods.update(paymentMethodId, {
    card: { exp_month: input.expMonth, exp_year: input.expYear },
    billing_details: { name: input.billingName },
  });
}

export async function detachCard(gateway: StripeSetup, paymentMethodId: string): Promise<void> {
  await gateway.stripe.paymentMethods.detach(paymentMethodId);
}
