import type { Coupon } from "../../platform/db/schema";
import { type PlanTerms, renewalOf } from "../renewal-rule";
import { discountForCoupon } from "./prices";
import { type Stripe, type StripeSetup, isInvalidRequest } from "./client";

// Stripe Checkout, the hosted pages for browsers without JavaScript: paying for a plan, and adding a card.

/** `returnUrl` with a query parameter added (Stripe fills {CHECKOUT_SESSION_ID} in). */
function withParam(returnUrl: string, param: string): string {
  return `${returnUrl}${returnUrl.includes("?") ? "&" : "?"}${param}`;
}

/**
 * The hosted page that pays `price` for the user: a subscription for a recurring plan, else one
 * payment whose card is kept. It comes back to `returnUrl` with session_id, or with checkout=cancelled.
 */
export async function createPaymentCheckoutSession(
  gateway: StripeSetup,
  input: {
    userId: number;
    plan: PlanTerms;
    customer: string;
    price: string;
    coupon: Coupon | null;
    metadata: Stripe.MetadataParam;
    returnUrl: string;
    paymentKey: string;
  },
): Promise<Stripe.Checkout.Session> {
  const { plan, customer, price, coupon, metadata } = input;
  const params: Stripe.Checkout.SessionCreateParams = {
    customer,
    line_items: [{ price, quantity: 1 }],
    success_url: withParam(input.returnUrl, "session_id={CHECKOUT_SESSION_ID}"),
    cancel_url: withParam(input.returnUrl, "checkout=cancelled"),
    client_reference_id: String(input.userId),
    metadata,
    // Stripe Tax: the VAT of the customer's country (set on the Customer before, customers.ts) on top of the price.
    automatic_tax: { enabled: true },
  };
  // A plan that renews by card is a Stripe subscription; any other is one payment.
  if (renewalOf(plan, "card").renews) {
    params.mode = "subscription";
    params.subscription_data = { metadata };
    if (coupon) params.discounts = [await discountForCoupon(gateway, coupon)];
  } else {
    params.mode = "payment";
    params.payment_intent_data = { metadata: { ...metadata, kind: "one_time" }, setup_future_usage: "off_session" };
    if (coupon) params.discounts = [await discountForCoupon(gateway, coupon)];
  }
  return gateway.stripe.checkout.sessions.create(params, { idempotencyKey: `${input.paymentKey}:checkout` });
}

/**
 * Expires the customer's open hosted pages that would start a subscription, but `keep` (Stripe's
 * checkout.sessions.expire): only the newest attempt can pay, so two pages opened one after the other
 * cannot both make a subscription. A session completed meanwhile cannot be expired: left as it is.
 */
export async function expireOpenSubscriptionSessions(gateway: StripeSetup, customer: string, keep?: string): Promise<void> {
  const open = await gateway.stripe.checkout.sessions.list({ customer, status: "open", limit: 100 });
  for (const session of open.data) {
    if (session.mode !== "subscription" || session.id === keep) continue;
    try {
      await gateway.stripe.checkout.sessions.expire(session.id);
    } catch (error) {
      if (!isInvalidRequest(error)) throw error;
    }
  }
}

/** A payment's session with what it paid expanded: the subscription, or the PaymentIntent and its card. */
export function retrievePaymentCheckoutSession(gateway: StripeSetup, sessionId: string): Promise<Stripe.Checkout.Session> {
  return gateway.stripe.checkout.sessions.retrieve(sessionId, { expand: ["subscription", "payment_intent.payment_method"] });
}

/** The hosted page (mode setup) where the user adds a card; back to `returnUrl` with setup_session, or setup=cancelled. */
export function createCardSetupSession(
  gateway: StripeSetup,
  input: { userId: number; customer: string; returnUrl: string },
): Promise<Stripe.Checkout.Session> {
  return gateway.stripe.checkout.sessions.create({
    mode: "setup",
    customer: input.customer,
    currency: "usd",
    success_url: withParam(input.returnUrl, "setup_session={CHECKOUT_SESSION_ID}"),
    cancel_url: withParam(input.returnUrl, "setup=cancelled"),
    client_reference_id: String(input.userId),
    metadata: { user_id: String(input.userId), kind: "card_setup" },
  });
}

/** A card setup session with its SetupIntent expanded. */
export function retrieveCardSetupSession(gateway: StripeSetup, sessionId: string): Promise<Stripe.Checkout.Session> {
  return gateway.stripe.checkout.sessions.retrieve(sessionId, { expand: ["setup_intent"] });
}
