import type { Logger } from "../platform/logger";
import type { TaxRates } from "../platform/tax-rates";
import { type RecordedTax, accountTaxTreatment, recordedTaxOf, splitTotal, taxPartyOf, taxedAmount } from "./tax";
import type { Database } from "../platform/db";
import type { Plan, User } from "../platform/db/schema";
import type { Clock } from "../platform/clock";
import { DomainError, isRefusal } from "../platform/errors";
import { isActiveAt } from "./plans";
import type { RenewalEvents } from "./renewal-events";
import { type PaidHook, tellPaid } from "./paid";
import { COUPON_MESSAGES, type CouponCheck, checkCoupon, releaseCouponHold, reserveCoupon } from "./coupons";
import { type CardDetails, accessEndOf, addMonthsUtc, fromUnix, recordFailedPayment, recordPaidInvoice, saveCard } from "./records";
import { attachCard, retrieveCard } from "./stripe/cards";
import { createPaymentCheckoutSession, expireOpenSubscriptionSessions, retrievePaymentCheckoutSession } from "./stripe/checkout";
import { type Stripe, type StripeSetup, isCardError, isGatewayFailure, isInvalidRequest } from "./stripe/client";
import { createCustomer, syncCustomerTaxDetails } from "./stripe/customers";
import { payInvoice, retrieveInvoice, retrieveInvoiceWithPayments } from "./stripe/invoices";
import { calculateTax, cancelPaymentIntent, chargeOnce, confirmForRedirect, retrievePaymentIntentWithCard, taxCalculationOf } from "./stripe/payment-intents";
import { followSubscriptionCard } from "./renewal-card";
import { renewalOf } from "./renewal-rule";
import { cardDetails, receiptCard } from "./paying-card";

export { cardDetails };
import { priceForPlan } from "./stripe/prices";
import {
  cancelSubscription,
  createIncompleteSubscription,
  incompleteSubscriptions,
  retrieveSubscription,
  setFreePeriodUntil,
} from "./stripe/subscriptions";
import { endRecurringRenewal, withPurchaseClaim } from "./subscription-guard";
import { isSecondSubscription, refundedRefusal } from "./one-subscription";
import { refundPayment } from "./stripe/refunds";
import type { PayPalClient } from "./paypal/client";

/*
 * Card payments through Stripe (live, or the sandbox that speaks the same API).
 *
 * With JavaScript the browser turns the card into a PaymentMethod (Stripe.js, or the sandbox's
 * inline form) and the page posts its id here. A recurring plan becomes a Stripe subscription
 * created `default_incomplete` and confirmed with that card; a card that needs 3-D Secure answers
 * the client secret so the browser confirms it. The 5-year plan is one PaymentIntent that never
 * renews. Without JavaScript the page starts a Checkout Session (Stripe's hosted page).
 * Either way the result is recorded by records.ts, and the webhooks record the same payment again
 * harmlessly.
 */

export interface PaymentsDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  gateway: StripeSetup;
  /** PayPal, while it is on: a 5-year plan paid by card suspends a running PayPal subscription (decision 028). */
  paypal?: PayPalClient | null;
  /** The portal's public origin, for the hosted page's return URLs. */
  publicUrl: string;
  /** Told of failed and paid renewals and of ended subscriptions (failed renewals, api/billing/dunning.ts). */
  renewals?: RenewalEvents;
  /** Told after each paid payment is recorded (its receipt, api/billing/notices.ts, wired by the HTTP layer). */
  onPaid?: PaidHook;
  /** The tax table (config): what we expect Stripe Tax to charge, and the one-time payments' VAT (tax.ts). */
  taxRates: TaxRates;
}

/**
 * The card gateway's deps, built whole by the API (api/http/app.ts) with everything it reports to: the
 * receipts (onPaid) and the rules of failed renewals (renewals). Nothing is added to them later.
 */
export function createCardPayments(deps: PaymentsDeps & Required<Pick<PaymentsDeps, "renewals" | "onPaid" | "paypal">>): PaymentsDeps {
  return { ...deps };
}

export const PAYMENT_MESSAGES = {
  paid: "Payment successful.",
  savedCardNotFound: "This saved card was not found. Please choose another payment method.",
  cardNotUsable: "This card cannot be used. Please enter your card again.",
  emailMismatch: "This email does not match your account.",
  failed: "Failed to create Stripe payment",
  sessionNotFound: "This payment session was not found.",
  sessionUnpaid: "The payment was not completed.",
  alreadyCurrent: "This is already your current plan.",
  /** Stripe's message for a failed 3-D Secure, also said when the challenge was abandoned. */
  authenticationFailed: "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
  authenticationNotFound: "This payment was not found.",
  confirmWithBank: "Please confirm the payment with your bank.",
} as const;

/** Buying the plan one already has, still renewing, would only pay twice: refused (409). */
async function refuseCurrentPlan(deps: PaymentsDeps, user: User, plan: Plan): Promise<void> {
  const current = await deps.db
    .selectFrom("subscriptions")
    .select("id")
    .where("user_id", "=", user.id)
    .where("plan_id", "=", plan.id)
    // Past due within its grace period counts: it is paid on the pay page, not bought again.
    .where(isActiveAt(deps.clock.now()))
    .where("cancel_at_period_end", "=", 0)
    .where("billing_type", "=", "recurring")
    .executeTakeFirst();
  if (current) throw new DomainError("plan_already_current", PAYMENT_MESSAGES.alreadyCurrent, { field: "planId" });
}

export type CardPaymentOutcome =
  | { status: "paid"; subscriptionId: number }
  | { status: "requires_action"; authentication: Authentication }
  | { status: "declined"; message: string };

/** A payment waiting for the bank's 3-D Secure challenge, and where the browser meets it. */
export type Authentication = {
  clientSecret: string;
  paymentIntent: string;
  /** The Stripe subscription whose first invoice the PaymentIntent pays; null for a one-time payment. */
  subscription: string | null;
  /** The challenge as a page to redirect to (when the payment was given a return URL). */
  redirectUrl: string | null;
  /** The sandbox's challenge page (Stripe.js's own, live): for the checkout's challenge dialog. */
  authenticationUrl: string | null;
};

/**
 * What the browser needs for an intent in requires_action. With `returnUrl` the intent is confirmed
 * again when its next action is not yet a redirect (an invoice's PaymentIntent, an off-session charge).
 */
async function authenticationOf(
  deps: PaymentsDeps,
  intent: Stripe.PaymentIntent,
  subscription: string | null,
  returnUrl: string | undefined,
  key: string,
): Promise<Authentication> {
  let current = intent;
  if (returnUrl && current.next_action?.type !== "redirect_to_url") {
    current = await confirmForRedirect(deps.gateway, current.id, returnUrl, key);
  }
  return {
    clientSecret: current.client_secret ?? "",
    paymentIntent: current.id,
    subscription,
    ...challengeUrls(deps, current.next_action),
  };
}

/** The challenge's URLs of an intent's next action (PaymentIntent or SetupIntent). */
export function challengeUrls(
  deps: Pick<PaymentsDeps, "gateway">,
  next: Stripe.PaymentIntent.NextAction | Stripe.SetupIntent.NextAction | null,
): { redirectUrl: string | null; authenticationUrl: string | null } {
  const redirectUrl = next?.type === "redirect_to_url" ? (next.redirect_to_url?.url ?? null) : null;
  const sdk = next?.type === "use_stripe_sdk" ? (next.use_stripe_sdk as { stripe_js?: unknown } | undefined) : undefined;
  const stripeJs = typeof sdk?.stripe_js === "string" ? sdk.stripe_js : null;
  // Live, Stripe.js runs the challenge itself; the sandbox's page is the portal's to frame.
  const authenticationUrl = deps.gateway.mode === "sandbox" ? (stripeJs ?? redirectUrl) : null;
  return { redirectUrl, authenticationUrl };
}

function withQuery(url: string, params: Record<string, string>): string {
  const next = new URL(url);
  for (const [name, value] of Object.entries(params)) next.searchParams.set(name, value);
  return next.toString();
}

/** The PaymentIntent of an invoice (API 2025+: in its payments). */
function invoicePaymentIntentId(invoice: Stripe.Invoice): string | null {
  for (const entry of invoice.payments?.data ?? []) {
    const pi = entry.payment?.payment_intent;
    const id = typeof pi === "string" ? pi : pi?.id;
    if (id) return id;
  }
  return null;
}

/** The gateway's customer of a user, created on first use. */
export async function ensureCustomer(deps: PaymentsDeps, user: User): Promise<string> {
  if (user.stripe_customer_id) return user.stripe_customer_id;
  const customer = await createCustomer(deps.gateway, user);
  await deps.db
    .updateTable("users")
    .set({ stripe_customer_id: customer.id })
    .where("id", "=", user.id)
    .where("stripe_customer_id", "is", null)
    .execute();
  const row = await deps.db.selectFrom("users").select("stripe_customer_id").where("id", "=", user.id).executeTakeFirstOrThrow();
  return row.stripe_customer_id ?? customer.id;
}

/** How long a card payment holds its coupon when it neither pays nor fails (3-D Secure never confirmed). */
export const CARD_COUPON_HOLD_MS = 60 * 60_000;
/** A hosted page's hold: Stripe's Checkout Session lives 24 hours (checkout.session.expired releases it sooner). */
export const CHECKOUT_COUPON_HOLD_MS = 25 * 3600_000;

/** The hold of one payment (`key`: the payment's idempotency-derived key), so a retry finds it. */
export function couponReservationKey(key: string): string {
  return `coupon:${key}`;
}

/**
 * Takes the coupon's hold for this payment before anything is charged (coupons.ts): 422 with the
 * coupon message when the coupon was used up meanwhile (by a parallel payment).
 */
async function holdCoupon(
  deps: PaymentsDeps,
  coupon: Extract<CouponCheck, { ok: true }> | null,
  key: string,
  user: User,
  holdMs: number,
): Promise<string | null> {
  if (!coupon) return null;
  const now = deps.clock.now();
  const reservation = couponReservationKey(key);
  const held = await reserveCoupon(deps.db, {
    couponId: Number(coupon.coupon.id),
    key: reservation,
    userId: user.id,
    now,
    expiresAt: new Date(now.getTime() + holdMs),
  });
  if (!held) throw new DomainError("coupon_invalid", COUPON_MESSAGES.invalid, { field: "coupon" });
  return reservation;
}

/**
 * Runs the charging part of a payment that holds a coupon: the hold is given back when nothing was
 * bought (declined, or refused as the request's fault). A gateway failure keeps it (the charge may
 * have gone through; the webhook records it, or the hold expires).
 */
async function releasingOnFailure<T extends { status: string }>(deps: PaymentsDeps, reservation: string | null, work: () => Promise<T>): Promise<T> {
  let outcome: T;
  try {
    outcome = await work();
  } catch (error) {
    if (isRefusal(error)) await releaseCouponHold(deps.db, reservation, deps.clock.now());
    throw error;
  }
  if (outcome.status === "declined") await releaseCouponHold(deps.db, reservation, deps.clock.now());
  return outcome;
}

async function couponFor(deps: PaymentsDeps, code: string | undefined, plan: Plan) {
  if (!code) return null;
  const check = await checkCoupon(deps.db, code, plan, deps.clock.now());
  if (!check.ok) throw new DomainError("coupon_invalid", check.message, { field: "coupon" });
  return check;
}

/** The subscription that a Stripe invoice pays, from the invoice (API 2025+ shape). */
export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  const sub = invoice.parent?.subscription_details?.subscription;
  return typeof sub === "string" ? sub : (sub?.id ?? null);
}

/**
 * The plan's free months ('1 Year (+2 Months Free)'): the next charge moves to the end of them, as a
 * free period at Stripe (trial_end), so the first payment buys the paid period plus the free months.
 */
async function giveFreeMonths(deps: PaymentsDeps, subscription: Stripe.Subscription, until: Date): Promise<void> {
  const trialEnd = Math.floor(until.getTime() / 1000);
  if (subscription.trial_end === trialEnd || subscription.status === "canceled") return;
  await setFreePeriodUntil(deps.gateway, subscription.id, trialEnd);
}

/** Records a paid subscription invoice (first or renewal), with the subscription's metadata naming user and plan. */
export async function recordStripeInvoice(
  deps: PaymentsDeps,
  invoice: Stripe.Invoice,
  subscription: Stripe.Subscription,
  plan: Plan,
  userId: number,
): Promise<number> {
  const item = subscription.items.data[0];
  const first = invoice.billing_reason === "subscription_create";
  // A plan change now is a purchase of the new plan's card (docs/decisions/051): its invoice buys the card's months, free ones included.
  const buysCard = first || invoice.billing_reason === "subscription_update";
  // The period this invoice paid for (the subscription's own period may have moved on since); on a
  // plan change's invoice, the new plan's line, not the credit for the old one's unused time.
  const lines = invoice.lines?.data ?? [];
  const line = (lines.find((l) => !l.parent?.subscription_item_details?.proration) ?? lines[0])?.period;
  const periodStart = fromUnix(line?.start ?? item?.current_period_start ?? invoice.period_start);
  const periodEnd = fromUnix(line?.end ?? item?.current_period_end ?? invoice.period_end);
  if (buysCard && plan.extra_months > 0) await giveFreeMonths(deps, subscription, accessEndOf(plan, periodEnd, true));
  const couponCode = subscription.metadata?.coupon_code || null;
  const couponId = subscription.metadata?.coupon_id ? Number(subscription.metadata.coupon_id) : null;
  const couponReservation = subscription.metadata?.coupon_reservation || null;
  // Stripe Tax computed the invoice's VAT: its numbers are what was charged (checked against our table).
  const stripeTax = (invoice.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
  const tax = await stripeChargedTax(deps, userId, invoice.amount_paid, invoice.automatic_tax?.enabled ? stripeTax : null, invoice.id ?? subscription.id);
  const cardCountry = await cardCountryOf(deps, subscription.default_payment_method);
  let row: Awaited<ReturnType<typeof recordPaidInvoice>>;
  try {
    row = await recordPaidInvoice(deps.db, {
      userId,
      plan,
      gatewayRef: invoice.id ?? `invoice-of-${subscription.id}`,
      amountCents: invoice.amount_paid,
      tax,
      cardCountry,
      gateway: "stripe",
      walletPaymentType: subscription.metadata?.wallet_payment_type || "card",
      stripeSubId: subscription.id,
      periodStart,
      periodEnd,
      first: buysCard,
      couponId: first ? couponId : null,
      couponCode: first ? couponCode : null,
      couponReservation: first ? couponReservation : null,
      hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
      gatewayInvoiceId: invoice.id ?? null,
      now: deps.clock.now(),
    });
  } catch (error) {
    if (!isSecondSubscription(error)) throw error;
    await giveBackSecondSubscription(deps, invoice, subscription);
    throw refundedRefusal();
  }
  await tellPaid(deps, {
    userId,
    gatewayRef: invoice.id ?? `invoice-of-${subscription.id}`,
    periodStart,
    periodEnd: accessEndOf(plan, periodEnd, buysCard),
    card: () => receiptCard(deps, userId, { paymentMethodId: null, stripeSubId: subscription.id }),
  });
  await keepPayingCard(deps, userId, subscription).catch((error) => {
    deps.logger.warn(`Could not make the card of ${subscription.id} the default: ${String(error)}`);
  });
  return Number(row.id);
}

/**
 * A first invoice paid for a second recurring subscription (one-subscription.ts: another completed
 * first, e.g. a PayPal checkout, or a hosted page or 3-D Secure challenge answered late): the Stripe
 * subscription ends now, so it never renews, and what it charged is refunded. Keys derive from the
 * invoice, so the page and the webhook doing it both make one cancel and one refund.
 */
async function giveBackSecondSubscription(deps: PaymentsDeps, invoice: Stripe.Invoice, subscription: Stripe.Subscription): Promise<void> {
  const key = `second-subscription-${invoice.id ?? subscription.id}`;
  await cancelSubscription(deps.gateway, subscription.id, key).catch((error) => {
    // Already ended at Stripe (the other completion of the same payment did it).
    if (!isInvalidRequest(error)) throw error;
  });
  if (invoice.id && invoice.amount_paid > 0) {
    const intentId = invoicePaymentIntentId(await retrieveInvoiceWithPayments(deps.gateway, invoice.id));
    if (intentId) await refundPayment(deps.gateway, { paymentIntentId: intentId, transactionId: null, refundKey: `${key}:refund` }).catch((error) => {
      if (!isInvalidRequest(error)) throw error; // charge_already_refunded: given back before
    });
  }
  await releaseCouponHold(deps.db, subscription.metadata?.coupon_reservation, deps.clock.now());
  deps.logger.warn(`Stripe subscription ${subscription.id} of user ${subscription.metadata?.user_id} was a second recurring subscription: cancelled and refunded.`);
}

/**
 * The card that paid now pays the renewals (Stripe saved it on the subscription): saved to the account
 * if it was not (an unpaid renewal paid on the hosted invoice page), it becomes the default card.
 */
async function keepPayingCard(deps: PaymentsDeps, userId: number, subscription: Stripe.Subscription): Promise<void> {
  const pm = subscription.default_payment_method;
  const paymentMethodId = typeof pm === "string" ? pm : (pm?.id ?? null);
  if (!paymentMethodId) return;
  const saved = await deps.db.selectFrom("payment_methods").select("id").where("payment_method_id", "=", paymentMethodId).executeTakeFirst();
  if (!saved) {
    const details = cardDetails(await retrieveCard(deps.gateway, paymentMethodId));
    if (details) await saveCard(deps.db, userId, details, deps.clock.now());
  }
  await followSubscriptionCard(deps, userId, subscription);
}

/**
 * The tax of a card payment of `totalCents`: Stripe's VAT when Stripe Tax computed it (`stripeTaxCents`), else
 * the split of the total by our table. Our table's answer for the same net is compared: when they disagree
 * Stripe's number is what was charged, so it is recorded, and a warning says so.
 */
async function stripeChargedTax(deps: PaymentsDeps, userId: number, totalCents: number, stripeTaxCents: number | null, ref: string): Promise<RecordedTax> {
  const treatment = await accountTaxTreatment(deps.db, deps.taxRates, userId);
  const ours = recordedTaxOf(taxedAmount(treatment, 0));
  if (stripeTaxCents === null) return splitTotal(totalCents, ours);
  const net = totalCents - stripeTaxCents;
  const expected = taxedAmount(treatment, net).taxCents;
  if (expected !== stripeTaxCents) {
    deps.logger.warn(`Stripe Tax charged ${stripeTaxCents} cents of tax on ${ref}, our table says ${expected}: Stripe's is recorded.`);
  }
  return { ...ours, netCents: net, vatCents: stripeTaxCents };
}

/** The paying card's country (card.country), as evidence of where the customer is; null when Stripe does not say. */
async function cardCountryOf(deps: PaymentsDeps, pm: string | Stripe.PaymentMethod | null | undefined): Promise<string | null> {
  if (!pm) return null;
  try {
    const card = typeof pm === "string" ? await retrieveCard(deps.gateway, pm) : pm;
    return card.card?.country ?? null;
  } catch (error) {
    // Evidence only: a payment is recorded without it.
    deps.logger.warn(`Could not read the country of card ${typeof pm === "string" ? pm : pm.id}: ${String(error)}`);
    return null;
  }
}

/**
 * The account's billing country and EU VAT number on its Stripe Customer, which Stripe Tax taxes by: before
 * every payment, so a change of billing details reaches Stripe before it charges.
 */
export async function syncTaxDetails(deps: PaymentsDeps, userId: number, customer: string): Promise<void> {
  const party = await taxPartyOf(deps.db, userId);
  const vat = party.vatNumber && party.vatNumberStatus !== "invalid" ? party.vatNumber : null;
  await syncCustomerTaxDetails(deps.gateway, customer, { country: party.country, euVat: vat });
}

/** Records a paid one-time PaymentIntent (the 5-year plan): access for the plan's term from now. */
export async function recordOneTimePayment(
  deps: PaymentsDeps,
  intent: Stripe.PaymentIntent,
  plan: Plan,
  userId: number,
  /** Stripe Tax's VAT of a hosted page's payment (the session's total_details.amount_tax); else the intent's metadata. */
  stripeTaxCents: number | null = null,
): Promise<number> {
  const now = deps.clock.now();
  const couponId = intent.metadata?.coupon_id ? Number(intent.metadata.coupon_id) : null;
  const charged = intent.amount_received || intent.amount;
  // Stripe Tax's VAT: the session's, else the calculation the intent charged, else the intent's metadata.
  const calculation = stripeTaxCents === null ? await taxCalculationOf(deps.gateway, intent) : null;
  const taxCents = stripeTaxCents ?? calculation?.tax_amount_exclusive ?? (intent.metadata?.tax_cents ? Number(intent.metadata.tax_cents) : null);
  const pm = intent.payment_method;
  const row = await recordPaidInvoice(deps.db, {
    userId,
    plan,
    gatewayRef: intent.id,
    amountCents: charged,
    tax: await stripeChargedTax(deps, userId, charged, taxCents, intent.id),
    cardCountry: await cardCountryOf(deps, pm),
    gateway: "stripe",
    walletPaymentType: intent.metadata?.wallet_payment_type || "card",
    stripeSubId: null,
    periodStart: now,
    periodEnd: addMonthsUtc(now, plan.duration_months),
    first: true,
    couponId,
    couponCode: intent.metadata?.coupon_code || null,
    couponReservation: intent.metadata?.coupon_reservation || null,
    hostedInvoiceUrl: null,
    gatewayInvoiceId: null,
    now,
  });
  const card = typeof intent.payment_method === "string" ? intent.payment_method : (intent.payment_method?.id ?? null);
  await tellPaid(deps, {
    userId,
    gatewayRef: intent.id,
    periodStart: now,
    periodEnd: addMonthsUtc(now, plan.duration_months),
    paymentMethodId: card,
    card: () => receiptCard(deps, userId, { paymentMethodId: card, stripeSubId: null }),
  });
  // The 5-year plan replaces a recurring one: that one stops renewing (decision 028).
  await endRecurringRenewal(deps, userId);
  return Number(row.id);
}

/**
 * An earlier attempt whose 3-D Secure was never finished (the page closed) leaves an incomplete
 * subscription whose challenge could still be answered: it is cancelled before a new attempt, so the
 * two can never both charge. This attempt's own subscription (a retry with the same key) is kept.
 */
export async function endAbandonedAttempts(
  deps: Pick<PaymentsDeps, "db" | "clock" | "gateway">,
  customer: string,
  key: string,
  hostedPages = true,
): Promise<void> {
  // A hosted page still open would start a second subscription if paid after this attempt.
  if (hostedPages) await expireOpenSubscriptionSessions(deps.gateway, customer);
  for (const stale of await incompleteSubscriptions(deps.gateway, customer)) {
    if (stale.metadata?.payment_key === key) continue;
    await cancelSubscription(deps.gateway, stale.id, `abandoned-${stale.id}`).catch((error) => {
      if (!isInvalidRequest(error)) throw error;
    });
    await releaseCouponHold(deps.db, stale.metadata?.coupon_reservation, deps.clock.now());
  }
}

function metadataFor(
  user: User,
  plan: Plan,
  coupon: Extract<CouponCheck, { ok: true }> | null,
  wallet: string,
  reservation: string | null,
) {
  return {
    user_id: String(user.id),
    plan_id: String(plan.id),
    wallet_payment_type: wallet,
    ...(coupon ? { coupon_code: coupon.coupon.code, coupon_id: String(coupon.coupon.id) } : {}),
    // The hold the payment took: paying turns it into the redemption, an expired session releases it.
    ...(reservation ? { coupon_reservation: reservation } : {}),
  };
}

/**
 * The gateway failed or its answer was lost (after the SDK's own retries with the same keys): 502
 * 'Failed to create Stripe payment'. Nothing is recorded as failed, because the payment may have gone
 * through; if it did, Stripe's webhook records it, and a retry with the same idempotency key gets
 * Stripe's stored answers, so it is never a second charge.
 */
async function gatewayCall<T>(deps: PaymentsDeps, what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isGatewayFailure(error)) throw error;
    deps.logger.warn(`${what}: the card gateway failed or did not answer (${(error as Error).name}); the webhook will tell.`);
    throw new DomainError("gateway_failed", PAYMENT_MESSAGES.failed);
  }
}

/**
 * Pays `plan` with a card: a new one (a PaymentMethod the browser made) or one saved to the account.
 * `key` is the page's idempotency key; every Stripe call carries a key derived from it.
 */
export function payWithCard(
  deps: PaymentsDeps,
  input: Parameters<typeof payWithCardAtGateway>[1],
): Promise<CardPaymentOutcome> {
  // One recurring subscription per account (subscription-guard.ts): the claim holds while the bank authenticates.
  const claim = { userId: input.user.id, plan: input.plan, key: input.key, keep: (o: CardPaymentOutcome) => o.status === "requires_action" };
  return gatewayCall(deps, "Card payment", () => withPurchaseClaim(deps, claim, () => payWithCardAtGateway(deps, input)));
}

async function payWithCardAtGateway(
  deps: PaymentsDeps,
  input: {
    user: User;
    plan: Plan;
    paymentMethodId: string;
    saved: boolean;
    couponCode?: string;
    key: string;
    walletPaymentType?: string;
    /** The portal page the bank's challenge returns to (a full URL of the portal's origin). */
    returnUrl?: string;
  },
): Promise<CardPaymentOutcome> {
  const { user, plan, paymentMethodId, key } = input;
  const wallet = input.walletPaymentType ?? "card";

  if (input.saved) {
    const saved = await deps.db
      .selectFrom("payment_methods")
      .select("id")
      .where("user_id", "=", user.id)
      .where("payment_method_id", "=", paymentMethodId)
      .executeTakeFirst();
    if (!saved) throw new DomainError("not_found", PAYMENT_MESSAGES.savedCardNotFound, { field: "paymentMethodId" });
  }
  await refuseCurrentPlan(deps, user, plan);
  const coupon = await couponFor(deps, input.couponCode, plan);
  const customer = await ensureCustomer(deps, user);
  await syncTaxDetails(deps, user.id, customer);
  const amount = coupon ? coupon.totalCents : plan.discounted_price_cents;
  const failed = (message: string, gatewayRef: string | null) =>
    recordFailedPayment(deps.db, {
      userId: user.id,
      planId: plan.id,
      amountCents: amount,
      gatewayRef,
      walletPaymentType: wallet,
      message,
      now: deps.clock.now(),
    });

  let card: Stripe.PaymentMethod;
  try {
    card = await retrieveCard(deps.gateway, paymentMethodId);
  } catch {
    throw new DomainError("card_unusable", PAYMENT_MESSAGES.cardNotUsable, { field: "paymentMethodId" });
  }
  const owner = typeof card.customer === "string" ? card.customer : card.customer?.id;
  if (owner && owner !== customer) {
    throw new DomainError("card_unusable", PAYMENT_MESSAGES.cardNotUsable, { field: "paymentMethodId" });
  }
  if (!owner) {
    try {
      card = await attachCard(deps.gateway, paymentMethodId, customer, key);
    } catch (error) {
      if (!isCardError(error)) throw error;
      await failed(error.message, null);
      return { status: "declined", message: error.message };
    }
  }
  const details = cardDetails(card);
  // The coupon is held before the charge, so parallel payments cannot take more than its limit.
  const reservation = await holdCoupon(deps, coupon, key, user, CARD_COUPON_HOLD_MS);
  const metadata = metadataFor(user, plan, coupon, wallet, reservation);
  return releasingOnFailure(deps, reservation, () =>
    chargeCard(deps, { user, plan, paymentMethodId, key, saved: input.saved, customer, amount, coupon, details, metadata, failed, returnUrl: input.returnUrl }),
  );
}

async function chargeCard(
  deps: PaymentsDeps,
  input: {
    user: User;
    plan: Plan;
    paymentMethodId: string;
    key: string;
    saved: boolean;
    customer: string;
    amount: number;
    coupon: Extract<CouponCheck, { ok: true }> | null;
    details: CardDetails | null;
    metadata: Stripe.MetadataParam;
    failed: (message: string, gatewayRef: string | null) => Promise<void>;
    returnUrl?: string;
  },
): Promise<CardPaymentOutcome> {
  const { user, plan, paymentMethodId, key, customer, amount, coupon, details, metadata, failed, returnUrl } = input;
  // A plan that does not renew by card is one payment; any other a Stripe subscription (as on the hosted page).
  if (!renewalOf(plan, "card").renews) {
    let intent: Stripe.PaymentIntent;
    try {
      // Net + VAT: Stripe Tax's calculation where the customer's country is known (Stripe taxes by location; none
      // known: no VAT, decision 061), checked against our table (the quote); the intent charges the calculation,
      // which the payment is recorded from (recordOneTimePayment). Its VAT is in metadata too.
      const treatment = await accountTaxTreatment(deps.db, deps.taxRates, user.id);
      const taxed = taxedAmount(treatment, amount);
      const calculation = treatment.country
        ? await calculateTax(deps.gateway, { customer, netCents: amount, reference: `${plan.title} ${key}`.slice(0, 500), paymentKey: key })
        : null;
      if (calculation && calculation.tax_amount_exclusive !== taxed.taxCents) {
        deps.logger.warn(`Stripe Tax calculated ${calculation.tax_amount_exclusive} cents of tax for ${key}, our table says ${taxed.taxCents}: Stripe's is charged.`);
      }
      intent = await chargeOnce(deps.gateway, {
        amount: calculation?.amount_total ?? taxed.totalCents,
        customer,
        paymentMethodId,
        saved: input.saved,
        plan,
        metadata: { ...metadata, tax_cents: String(calculation?.tax_amount_exclusive ?? taxed.taxCents) },
        paymentKey: key,
        returnUrl,
        taxCalculation: calculation?.id ?? null,
      });
    } catch (error) {
      if (!isCardError(error)) throw error;
      // A saved card that needs the customer present (off-session, authentication_required): the
      // intent waits in requires_action, and the customer authenticates now.
      if (error.payment_intent?.status === "requires_action") {
        return { status: "requires_action", authentication: await authenticationOf(deps, error.payment_intent, null, returnUrl, key) };
      }
      await failed(error.message, error.payment_intent?.id ? `failed:${error.payment_intent.id}` : null);
      return { status: "declined", message: error.message };
    }
    if (intent.status === "requires_action" && intent.client_secret) {
      return { status: "requires_action", authentication: await authenticationOf(deps, intent, null, returnUrl, key) };
    }
    if (intent.status !== "succeeded") {
      const message = intent.last_payment_error?.message ?? PAYMENT_MESSAGES.failed;
      await failed(message, `failed:${intent.id}`);
      return { status: "declined", message };
    }
    if (details) await saveCard(deps.db, user.id, details, deps.clock.now());
    return { status: "paid", subscriptionId: await recordOneTimePayment(deps, intent, plan, user.id) };
  }

  const price = await priceForPlan(deps.gateway, plan);
  await endAbandonedAttempts(deps, customer, key);
  let subscription = await createIncompleteSubscription(deps.gateway, {
    customer,
    price,
    paymentMethodId,
    coupon: coupon ? coupon.coupon : null,
    metadata: { ...metadata, payment_key: key },
    paymentKey: key,
  });
  let invoice = subscription.latest_invoice as Stripe.Invoice;
  if (invoice.status !== "paid") {
    try {
      invoice = await payInvoice(deps.gateway, invoice.id!, paymentMethodId, key);
    } catch (error) {
      if (isCardError(error) && error.code === "invoice_payment_intent_requires_action") {
        const withPayments = await retrieveInvoiceWithPayments(deps.gateway, invoice.id!);
        const intentId = invoicePaymentIntentId(withPayments);
        if (intentId) {
          const intent = await retrievePaymentIntentWithCard(deps.gateway, intentId);
          // The way back names the subscription, whose first invoice the intent pays.
          const back = returnUrl ? withQuery(returnUrl, { subscription: subscription.id }) : undefined;
          return { status: "requires_action", authentication: await authenticationOf(deps, intent, subscription.id, back, key) };
        }
      }
      if (!isCardError(error)) throw error;
      await failed(error.message, `failed:${invoice.id}`);
      // Nothing was bought: the incomplete subscription goes, so it never bills later.
      await cancelSubscription(deps.gateway, subscription.id, key).catch((cancelError) => {
        deps.logger.warn(`Could not cancel the incomplete subscription ${subscription.id}: ${String(cancelError)}`);
      });
      return { status: "declined", message: error.message };
    }
  }
  subscription = await retrieveSubscription(deps.gateway, subscription.id);
  if (details) await saveCard(deps.db, user.id, details, deps.clock.now());
  return { status: "paid", subscriptionId: await recordStripeInvoice(deps, invoice, subscription, plan, user.id) };
}

/** The hosted payment page (Stripe Checkout) for a plan: where the browser without JavaScript pays. */
export function startCheckoutSession(
  deps: PaymentsDeps,
  input: { user: User; plan: Plan; couponCode?: string; key: string; returnPath: string },
): Promise<{ id: string; url: string }> {
  const claim = { userId: input.user.id, plan: input.plan, key: input.key };
  return gatewayCall(deps, "Checkout Session", () => withPurchaseClaim(deps, claim, () => startCheckoutSessionAtGateway(deps, input)));
}

async function startCheckoutSessionAtGateway(
  deps: PaymentsDeps,
  input: { user: User; plan: Plan; couponCode?: string; key: string; returnPath: string },
): Promise<{ id: string; url: string }> {
  const { user, plan, key } = input;
  await refuseCurrentPlan(deps, user, plan);
  const coupon = await couponFor(deps, input.couponCode, plan);
  const customer = await ensureCustomer(deps, user);
  await syncTaxDetails(deps, user.id, customer);
  // A card attempt still waiting for its challenge ends here too: the hosted page is the new attempt.
  // The hosted pages opened before this one expire once it exists (a retry with this key answers this one).
  if (renewalOf(plan, "card").renews) await endAbandonedAttempts(deps, customer, key, false);
  const price = await priceForPlan(deps.gateway, plan);
  const reservation = await holdCoupon(deps, coupon, key, user, CHECKOUT_COUPON_HOLD_MS);
  const metadata = metadataFor(user, plan, coupon, "card", reservation);
  let created: { id: string; url: string };
  try {
    created = await createCheckoutSession(deps, { user, plan, key, returnPath: input.returnPath, coupon, customer, price, metadata });
  } catch (error) {
    // Refused: no session exists, so nothing can pay with the hold.
    if (isRefusal(error) || isInvalidRequest(error)) {
      await releaseCouponHold(deps.db, reservation, deps.clock.now());
    }
    throw error;
  }
  if (renewalOf(plan, "card").renews) await expireOpenSubscriptionSessions(deps.gateway, customer, created.id);
  return created;
}

async function createCheckoutSession(
  deps: PaymentsDeps,
  input: {
    user: User;
    plan: Plan;
    key: string;
    returnPath: string;
    coupon: Extract<CouponCheck, { ok: true }> | null;
    customer: string;
    price: string;
    metadata: Stripe.MetadataParam;
  },
): Promise<{ id: string; url: string }> {
  const { user, plan, key, coupon, customer, price, metadata } = input;
  const back = `${deps.publicUrl}${input.returnPath}`;
  const session = await createPaymentCheckoutSession(deps.gateway, {
    userId: user.id,
    plan,
    customer,
    price,
    coupon: coupon ? coupon.coupon : null,
    metadata,
    returnUrl: back,
    paymentKey: key,
  });
  if (!session.url) throw new Error("Stripe answered a Checkout Session without a URL");
  return { id: session.id, url: session.url };
}

/**
 * Records what a completed Checkout Session paid (the page coming back from it, and the
 * checkout.session.completed webhook). `userId`, when given, must be the session's user.
 */
export async function completeCheckoutSession(
  deps: PaymentsDeps,
  sessionId: string,
  userId?: number,
): Promise<{ subscriptionId: number } | null> {
  let session: Stripe.Checkout.Session;
  try {
    session = await retrievePaymentCheckoutSession(deps.gateway, sessionId);
  } catch (error) {
    // Stripe not answering is not "no such session": the customer may have paid (the webhook records it).
    if (isGatewayFailure(error)) throw new DomainError("gateway_failed", PAYMENT_MESSAGES.failed);
    throw new DomainError("not_found", PAYMENT_MESSAGES.sessionNotFound, { field: "sessionId" });
  }
  const owner = Number(session.metadata?.user_id);
  if (userId !== undefined && owner !== userId) {
    throw new DomainError("not_found", PAYMENT_MESSAGES.sessionNotFound, { field: "sessionId" });
  }
  if (session.status === "expired") await releaseCouponHold(deps.db, session.metadata?.coupon_reservation, deps.clock.now());
  if (session.status !== "complete" || session.payment_status !== "paid") return null;
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", Number(session.metadata?.plan_id)).executeTakeFirst();
  if (!plan || !Number.isSafeInteger(owner)) throw new Error(`Checkout Session ${session.id} has no plan or user in its metadata`);

  if (session.mode === "subscription" && session.subscription) {
    const subscription =
      typeof session.subscription === "string" ? await retrieveSubscription(deps.gateway, session.subscription) : session.subscription;
    const invoiceId = typeof subscription.latest_invoice === "string" ? subscription.latest_invoice : subscription.latest_invoice?.id;
    if (!invoiceId) return null;
    const invoice = await retrieveInvoice(deps.gateway, invoiceId);
    const pmId = typeof subscription.default_payment_method === "string" ? subscription.default_payment_method : subscription.default_payment_method?.id;
    if (pmId) {
      const details = cardDetails(await retrieveCard(deps.gateway, pmId));
      if (details) await saveCard(deps.db, owner, details, deps.clock.now());
    }
    return { subscriptionId: await recordStripeInvoice(deps, invoice, subscription, plan, owner) };
  }
  if (session.mode === "payment" && session.payment_intent) {
    const intent =
      typeof session.payment_intent === "string"
        ? await retrievePaymentIntentWithCard(deps.gateway, session.payment_intent)
        : session.payment_intent;
    const pm = intent.payment_method;
    if (pm && typeof pm !== "string") {
      const details = cardDetails(pm);
      if (details) await saveCard(deps.db, owner, details, deps.clock.now());
    }
    const stripeTax = session.automatic_tax?.enabled ? (session.total_details?.amount_tax ?? 0) : null;
    return { subscriptionId: await recordOneTimePayment(deps, intent, plan, owner, stripeTax) };
  }
  return null;
}

export type AuthenticationOutcome =
  | { status: "paid"; subscriptionId: number }
  | { status: "declined"; message: string }
  | { status: "pending" };

/**
 * Finishes a card payment after the bank's 3-D Secure challenge (the browser came back from it, or
 * the challenge dialog closed). The PaymentIntent is read from Stripe, never from the browser's word:
 * paid, it is recorded (once: the webhook may have recorded it already); failed or abandoned, nothing
 * is bought, the attempt is recorded 'Payment failed', the incomplete subscription is cancelled (it
 * never bills) or the PaymentIntent cancelled (it can never charge later), and the coupon's hold is
 * given back, so a new attempt can start at once.
 */
export function finishAuthentication(
  deps: PaymentsDeps,
  input: { user: User; paymentIntentId: string; subscriptionId?: string },
): Promise<AuthenticationOutcome> {
  return gatewayCall(deps, "3-D Secure completion", () => finishAuthenticationAtGateway(deps, input));
}

const notFound = () => new DomainError("not_found", PAYMENT_MESSAGES.authenticationNotFound, { field: "payment_intent" });

async function finishAuthenticationAtGateway(
  deps: PaymentsDeps,
  input: { user: User; paymentIntentId: string; subscriptionId?: string },
): Promise<AuthenticationOutcome> {
  const { user } = input;
  if (!user.stripe_customer_id) throw notFound();
  const read = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (isInvalidRequest(error)) throw notFound();
      throw error;
    }
  };
  let intent = await read(() => retrievePaymentIntentWithCard(deps.gateway, input.paymentIntentId));
  const customer = typeof intent.customer === "string" ? intent.customer : intent.customer?.id;
  if (customer !== user.stripe_customer_id) throw notFound();

  if (input.subscriptionId) {
    const subscriptionId = input.subscriptionId;
    let subscription = await read(() => retrieveSubscription(deps.gateway, subscriptionId));
    if (Number(subscription.metadata?.user_id) !== user.id) throw notFound();
    const invoiceId = typeof subscription.latest_invoice === "string" ? subscription.latest_invoice : subscription.latest_invoice?.id;
    if (!invoiceId) throw notFound();
    let invoice = await retrieveInvoiceWithPayments(deps.gateway, invoiceId);
    if (invoicePaymentIntentId(invoice) !== intent.id) throw notFound();
    const plan = await planOf(deps, subscription.metadata?.plan_id);
    if (invoice.status === "paid" || intent.status === "succeeded") {
      if (invoice.status !== "paid") invoice = await retrieveInvoice(deps.gateway, invoiceId);
      subscription = await retrieveSubscription(deps.gateway, subscription.id);
      await saveCardOf(deps, user.id, intent);
      return { status: "paid", subscriptionId: await recordStripeInvoice(deps, invoice, subscription, plan, user.id) };
    }
    if (intent.status === "processing") return { status: "pending" };
    const message = failureMessage(intent);
    await recordAuthenticationFailure(deps, user, plan, intent, `failed:${invoice.id}`, message, subscription.metadata?.wallet_payment_type);
    // Nothing was bought: the incomplete subscription goes (its invoice with it), so it never bills.
    if (subscription.status !== "canceled" && subscription.status !== "incomplete_expired") {
      await cancelSubscription(deps.gateway, subscription.id, `authentication-${intent.id}`).catch((error) => {
        if (!isInvalidRequest(error)) throw error;
      });
    }
    await releaseCouponHold(deps.db, subscription.metadata?.coupon_reservation, deps.clock.now());
    return { status: "declined", message };
  }

  if (intent.metadata?.kind !== "one_time" || Number(intent.metadata?.user_id) !== user.id) throw notFound();
  const plan = await planOf(deps, intent.metadata?.plan_id);
  if (intent.status === "requires_action" || intent.status === "requires_payment_method" || intent.status === "requires_confirmation") {
    // Abandoned or failed: cancelled first, so the challenge cannot still be completed and charge.
    try {
      intent = await cancelPaymentIntent(deps.gateway, intent.id);
    } catch (error) {
      if (!isInvalidRequest(error)) throw error;
      intent = await retrievePaymentIntentWithCard(deps.gateway, intent.id);
    }
  }
  if (intent.status === "succeeded") {
    await saveCardOf(deps, user.id, intent);
    return { status: "paid", subscriptionId: await recordOneTimePayment(deps, intent, plan, user.id) };
  }
  if (intent.status === "processing") return { status: "pending" };
  const message = failureMessage(intent);
  await recordAuthenticationFailure(deps, user, plan, intent, `failed:${intent.id}`, message);
  await releaseCouponHold(deps.db, intent.metadata?.coupon_reservation, deps.clock.now());
  return { status: "declined", message };
}

async function planOf(deps: PaymentsDeps, planId: string | undefined): Promise<Plan> {
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", Number(planId)).executeTakeFirst();
  if (!plan) throw notFound();
  return plan;
}

/** The card's decline after a completed challenge, or Stripe's authentication message (failed or abandoned). */
function failureMessage(intent: Stripe.PaymentIntent): string {
  const error = intent.last_payment_error;
  // Abandoned, the error is still the one that asked for authentication: not the customer's answer.
  const asked = error?.code === "authentication_required" || error?.decline_code === "authentication_required";
  if (error?.message && !asked && error.code !== "payment_intent_authentication_failure") return error.message;
  return PAYMENT_MESSAGES.authenticationFailed;
}

async function saveCardOf(deps: PaymentsDeps, userId: number, intent: Stripe.PaymentIntent): Promise<void> {
  let pm = intent.payment_method;
  if (typeof pm === "string") pm = await retrieveCard(deps.gateway, pm);
  const details = pm ? cardDetails(pm) : null;
  if (details) await saveCard(deps.db, userId, details, deps.clock.now());
}

function recordAuthenticationFailure(
  deps: PaymentsDeps,
  user: User,
  plan: Plan,
  intent: Stripe.PaymentIntent,
  gatewayRef: string,
  message: string,
  wallet?: string,
) {
  return recordFailedPayment(deps.db, {
    userId: user.id,
    planId: plan.id,
    amountCents: intent.amount,
    gatewayRef,
    walletPaymentType: wallet || intent.metadata?.wallet_payment_type || "card",
    message,
    now: deps.clock.now(),
  });
}
