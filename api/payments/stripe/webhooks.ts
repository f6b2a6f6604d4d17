import type Stripe from "stripe";
import { DomainError } from "../../platform/errors";
import {
  type PaymentsDeps,
  completeCheckoutSession,
  invoiceSubscriptionId,
  recordOneTimePayment,
  recordStripeInvoice,
} from "../card-payments";
import { couponDiscountCents, releaseCouponHold } from "../coupons";
import { handleWebhookOnce } from "../webhook-events";
import { AUTHENTICATION_NEEDED } from "../renewal-events";
import { followStripePlan, planOfSubscription } from "../plan-changes";
import { FAILED_STATUS, fromUnix, recordFailedPayment, recordSubscriptionState } from "../records";
import { isInvalidRequest } from "./client";
import { invoiceTaxCents, retrieveInvoiceWithPayments } from "./invoices";
import { setRenewal } from "./subscriptions";

/*
 * Stripe's webhooks drive the subscription state: renewals (invoice.paid), failed renewals
 * (invoice.payment_failed), auto-renewal switched on or off (customer.subscription.updated), the end
 * (customer.subscription.deleted), and payments made on the hosted page (checkout.session.completed).
 * Failed renewals (invoice.payment_failed, invoice.payment_action_required) and what ends them are
 * also told to deps.renewals (api/billing/dunning.ts: past due, grace period, emails).
 * Verified on the raw body with the signing secret; an event id is recorded once handled (webhook_events),
 * and a recorded one is not handled again; every handler is idempotent, so replays, deliveries at once
 * and out-of-order delivery change nothing twice.
 */

export const WEBHOOK_MESSAGES = {
  badSignature: "The webhook signature could not be verified.",
  received: "Received.",
} as const;

/** Verifies and handles one delivery. Throws signature_invalid for a bad signature. */
export async function handleStripeWebhook(deps: PaymentsDeps, rawBody: string | Buffer, signature: string | undefined): Promise<void> {
  let event: Stripe.Event;
  try {
    event = deps.gateway.stripe.webhooks.constructEvent(rawBody, signature ?? "", deps.gateway.webhookSecret);
  } catch {
    throw new DomainError("signature_invalid", WEBHOOK_MESSAGES.badSignature);
  }
  // A refusal is the event's answer for good (a second subscription given back: one-subscription.ts).
  await handleWebhookOnce(deps, { id: event.id, source: "stripe", type: event.type }, () => handleEvent(deps, event), (error) => {
    deps.logger.warn(`Webhook ${event.id} (${event.type}) refused: ${error.message}`);
  });
}

async function planAndUser(deps: PaymentsDeps, metadata: Stripe.Metadata | null | undefined) {
  const planId = Number(metadata?.plan_id);
  const userId = Number(metadata?.user_id);
  if (!Number.isSafeInteger(planId) || !Number.isSafeInteger(userId)) return null;
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", planId).executeTakeFirst();
  const user = await deps.db.selectFrom("users").select("id").where("id", "=", userId).executeTakeFirst();
  return plan && user ? { plan, userId } : null;
}

/**
 * An object as Stripe has it now, or null when Stripe does not know it (an event naming an object
 * that does not exist acts on nothing). Gateway failures throw, so that Stripe's retry is handled.
 */
async function fromStripe<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isInvalidRequest(error)) return null;
    throw error;
  }
}

/** What a one-time plan's payment must have received: the plan's price, less its coupon's discount. */
async function expectedOneTimeCents(deps: PaymentsDeps, plan: { discounted_price_cents: number }, metadata: Stripe.Metadata): Promise<number | null> {
  if (!metadata.coupon_id) return plan.discounted_price_cents;
  const coupon = await deps.db.selectFrom("coupons").selectAll().where("id", "=", Number(metadata.coupon_id)).executeTakeFirst();
  if (!coupon) return null;
  return plan.discounted_price_cents - couponDiscountCents(coupon, plan.discounted_price_cents);
}

/** Why the invoice's payment failed, as the card's bank said it: its PaymentIntent's last error. */
async function declineMessage(deps: PaymentsDeps, invoice: Stripe.Invoice): Promise<string | null> {
  const { stripe } = deps.gateway;
  const full = await stripe.invoices.retrieve(invoice.id!, { expand: ["payments"] });
  const payments = full.payments?.data ?? [];
  const ref = payments[payments.length - 1]?.payment?.payment_intent;
  if (!ref) return null;
  const intent = typeof ref === "string" ? await stripe.paymentIntents.retrieve(ref) : ref;
  return intent.last_payment_error?.message ?? null;
}

/**
 * A renewal invoice still open after an attempt, as Stripe has it now (the event may be old): the
 * rules of failed renewals take it from here. A first payment (subscription_create) is not a renewal.
 */
async function reportFailedRenewal(
  deps: PaymentsDeps,
  invoiceId: string,
  subscription: Stripe.Subscription,
  failure: { message: string; requiresAction: boolean },
): Promise<void> {
  if (!deps.renewals) return;
  const invoice = await deps.gateway.stripe.invoices.retrieve(invoiceId);
  if (invoice.status !== "open" || invoice.billing_reason !== "subscription_cycle") return;
  if (!["past_due", "unpaid", "active"].includes(subscription.status)) return;
  const row = await deps.db.selectFrom("subscriptions").selectAll().where("stripe_sub_id", "=", subscription.id).executeTakeFirst();
  if (!row) return;
  const card = subscription.default_payment_method;
  await deps.renewals.failed({
    subscription: row,
    key: invoiceId,
    amountCents: invoice.amount_due,
    taxCents: invoiceTaxCents(invoice),
    dueAt: fromUnix(invoice.created),
    message: failure.message,
    paymentMethodId: typeof card === "string" ? card : (card?.id ?? null),
    payableHere: true,
  });
}

/**
 * An invoice of the subscription is paid (and recorded): told to the rules of failed renewals. Auto-renewal
 * turned off while past due (the retries stopped), then paid anyway: the paid period runs, and the choice
 * stands at Stripe too, so the next period is not charged.
 */
export async function reportPaidRenewal(deps: Pick<PaymentsDeps, "db" | "gateway" | "renewals">, stripeSubId: string, invoiceId: string): Promise<void> {
  if (!deps.renewals) return;
  const row = await deps.db
    .selectFrom("subscriptions")
    .select(["id", "cancel_at_period_end", "past_due_invoice_id"])
    .where("stripe_sub_id", "=", stripeSubId)
    .executeTakeFirst();
  if (!row) return;
  if (row.past_due_invoice_id === invoiceId && row.cancel_at_period_end) await setRenewal(deps.gateway, stripeSubId, false);
  await deps.renewals.paid({ subscriptionId: Number(row.id), key: invoiceId });
}

/** The subscription ended at Stripe (and was recorded): told to the rules of failed renewals. */
async function reportEnded(deps: PaymentsDeps, stripeSubId: string, endedAt: Date): Promise<void> {
  if (!deps.renewals) return;
  const row = await deps.db.selectFrom("subscriptions").select("id").where("stripe_sub_id", "=", stripeSubId).executeTakeFirst();
  if (row) await deps.renewals.ended({ subscriptionId: Number(row.id), endedAt });
}


async function handleEvent(deps: PaymentsDeps, event: Stripe.Event): Promise<void> {
  const { stripe } = deps.gateway;
  switch (event.type) {
    case "invoice.paid": {
      const subId = invoiceSubscriptionId(event.data.object);
      if (!subId) return;
      const subscription = await stripe.subscriptions.retrieve(subId);
      const owner = await planAndUser(deps, subscription.metadata);
      if (!owner) return;
      // The event may be old: record the invoice as Stripe has it now.
      const invoice = await stripe.invoices.retrieve(event.data.object.id!);
      if (invoice.status !== "paid") return;
      await recordStripeInvoice(deps, invoice, subscription, owner.plan, owner.userId);
      await reportPaidRenewal(deps, subscription.id, invoice.id!);
      await followStripePlan(deps.db, planOfSubscription(subscription, deps.clock.now()));
      return;
    }
    case "invoice.payment_failed": {
      const invoice = event.data.object;
      const subId = invoiceSubscriptionId(invoice);
      if (!subId) return;
      const subscription = await stripe.subscriptions.retrieve(subId);
      const owner = await planAndUser(deps, subscription.metadata);
      if (!owner) return;
      // A first payment waiting for the customer's 3-D Secure is not a failure yet: the page records its end.
      if (subscription.status === "incomplete" && (await awaitsAuthentication(deps, invoice))) return;
      const row = await deps.db.selectFrom("subscriptions").select("id").where("stripe_sub_id", "=", subId).executeTakeFirst();
      const message = (await declineMessage(deps, invoice)) ?? FAILED_STATUS;
      await recordFailedPayment(deps.db, {
        userId: owner.userId,
        planId: owner.plan.id,
        subscriptionId: row ? Number(row.id) : null,
        amountCents: invoice.amount_due,
        // One row per failed attempt of an invoice (a first payment refused on the page is recorded as failed:<invoice> too).
        gatewayRef: `failed:${invoice.id}${invoice.attempt_count > 1 ? `:${invoice.attempt_count}` : ""}`,
        walletPaymentType: subscription.metadata?.wallet_payment_type || "card",
        message,
        now: deps.clock.now(),
      });
      await reportFailedRenewal(deps, invoice.id!, subscription, { message, requiresAction: false });
      return;
    }
    case "invoice.payment_action_required": {
      // An off-session renewal the bank wants authenticated: past due like a decline, paid with the customer present.
      const subId = invoiceSubscriptionId(event.data.object);
      if (!subId) return;
      const subscription = await stripe.subscriptions.retrieve(subId);
      if (!(await planAndUser(deps, subscription.metadata))) return;
      await reportFailedRenewal(deps, event.data.object.id!, subscription, { message: AUTHENTICATION_NEEDED, requiresAction: true });
      return;
    }
    case "customer.subscription.updated": {
      // The event may be old (replayed, or overtaken by a newer one): follow the subscription as Stripe has it now.
      const subscription = await stripe.subscriptions.retrieve(event.data.object.id);
      if (subscription.status === "canceled") {
        const endedAt = subscription.ended_at ? fromUnix(subscription.ended_at) : deps.clock.now();
        await recordSubscriptionState(deps.db, { stripeSubId: subscription.id, renewing: false, endedAt, now: deps.clock.now() });
        await reportEnded(deps, subscription.id, endedAt);
        return;
      }
      await recordSubscriptionState(deps.db, {
        stripeSubId: subscription.id,
        renewing:
          !subscription.cancel_at_period_end &&
          ["active", "trialing", "past_due"].includes(subscription.status) &&
          !(await collectionStopped(stripe, subscription)),
        now: deps.clock.now(),
      });
      // A plan change (now, or a schedule's phase at renewal) or a pending change released.
      await followStripePlan(deps.db, planOfSubscription(subscription, deps.clock.now()));
      return;
    }
    case "customer.subscription.deleted": {
      // The body is only a trigger: end nothing unless Stripe says the subscription has ended.
      const subscription = await fromStripe(() => stripe.subscriptions.retrieve(event.data.object.id));
      if (!subscription || !["canceled", "incomplete_expired"].includes(subscription.status)) {
        if (subscription === null) deps.logger.warn(`Webhook ${event.id}: subscription ${event.data.object.id} is unknown to Stripe; ignored.`);
        return;
      }
      // Never paid (3-D Secure left unconfirmed): its coupon hold goes back (a paid one is redeemed already).
      await releaseCouponHold(deps.db, subscription.metadata?.coupon_reservation, deps.clock.now());
      const endedAt = subscription.ended_at ? fromUnix(subscription.ended_at) : deps.clock.now();
      await recordSubscriptionState(deps.db, { stripeSubId: subscription.id, renewing: false, endedAt, now: deps.clock.now() });
      await reportEnded(deps, subscription.id, endedAt);
      return;
    }
    case "checkout.session.completed": {
      await completeCheckoutSession(deps, event.data.object.id);
      return;
    }
    case "checkout.session.expired": {
      // The hosted page was never paid: its coupon hold goes back (read from Stripe, not from the body).
      const session = await fromStripe(() => stripe.checkout.sessions.retrieve(event.data.object.id));
      if (session?.status === "expired") await releaseCouponHold(deps.db, session.metadata?.coupon_reservation, deps.clock.now());
      return;
    }
    case "payment_intent.succeeded": {
      // The body is only a trigger: record the PaymentIntent as Stripe has it, and only for what the plan costs.
      const intent = await fromStripe(() => stripe.paymentIntents.retrieve(event.data.object.id));
      if (!intent) {
        deps.logger.warn(`Webhook ${event.id}: PaymentIntent ${event.data.object.id} is unknown to Stripe; ignored.`);
        return;
      }
      if (intent.status !== "succeeded" || intent.metadata?.kind !== "one_time") return;
      const owner = await planAndUser(deps, intent.metadata);
      if (!owner) return;
      const expected = await expectedOneTimeCents(deps, owner.plan, intent.metadata);
      if (intent.currency !== "usd" || expected === null || intent.amount_received !== expected) {
        deps.logger.warn(
          `Webhook ${event.id}: PaymentIntent ${intent.id} received ${intent.amount_received} ${intent.currency}, not the plan's ${expected} usd; not recorded.`,
        );
        return;
      }
      await recordOneTimePayment(deps, intent, owner.plan, owner.userId);
      return;
    }
    default:
      return;
  }
}

/** Whether the invoice's PaymentIntent waits for the customer's authentication (requires_action). */
async function awaitsAuthentication(deps: PaymentsDeps, invoice: Stripe.Invoice): Promise<boolean> {
  if (!invoice.id) return false;
  const withPayments = await retrieveInvoiceWithPayments(deps.gateway, invoice.id);
  for (const entry of withPayments.payments?.data ?? []) {
    const pi = entry.payment?.payment_intent;
    const id = typeof pi === "string" ? pi : pi?.id;
    if (id && (await deps.gateway.stripe.paymentIntents.retrieve(id)).status === "requires_action") return true;
  }
  return false;
}

/**
 * Past due with the open renewal invoice's automatic collection off: the customer turned auto-renewal
 * off while past due (billing/auto-renewal.ts), so the subscription ends at the grace end, not renewing.
 */
async function collectionStopped(stripe: Stripe, subscription: Stripe.Subscription): Promise<boolean> {
  if (subscription.status !== "past_due" || !subscription.latest_invoice) return false;
  const id = typeof subscription.latest_invoice === "string" ? subscription.latest_invoice : subscription.latest_invoice.id!;
  const invoice = await stripe.invoices.retrieve(id);
  return invoice.status === "open" && invoice.auto_advance === false;
}
