import { randomUUID } from "node:crypto";
import { PAYMENT_MESSAGES, type PaymentsDeps, recordStripeInvoice } from "../payments/card-payments";
import { formatUsd } from "../payments/money";
import { recordSubscriptionState } from "../payments/records";
import type { RenewalEvents } from "../payments/renewal-events";
import { type PayPalDeps, type PayPalRenewalEvents, cancelPayPalSubscription } from "../payments/paypal/payments";
import { isCardError, isInvalidRequest } from "../payments/stripe/client";
import { payInvoice, retrieveInvoice } from "../payments/stripe/invoices";
import { AUTHENTICATION_NEEDED } from "../payments/stripe/webhooks";
import { cancelSubscription, retrieveSubscription, setCardOfSubscription, setRenewal } from "../payments/stripe/subscriptions";
import { formatDate } from "../platform/dates";
import { DomainError } from "../platform/errors";
import type { MailService } from "../platform/mailer";
import { claimNotice } from "../platform/notices";
import type { Subscription } from "../platform/db/schema";
import { cardName } from "./emails";
import {
  PAYPAL_AUTOPAY,
  gracePeriodEndingEmail,
  paymentFailedEmail,
  paypalGraceEndingEmail,
  paypalPaymentFailedEmail,
  subscriptionEndedUnpaidEmail,
} from "./dunning-emails";

/*
 * Failed renewals (issue 20, docs/decisions/027). A card renewal that is declined or needs
 * authentication makes the subscription past due: it stays Premium until `grace_until`
 * (DUNNING_GRACE_DAYS after the renewal was due) while Stripe retries the charge and the customer can
 * pay the open invoice (/billing/pay). Paid in time, the invoice.paid webhook records the renewal
 * from its original period and the past-due state goes. Unpaid at the end of the grace period, the
 * scheduled job cancels the subscription at Stripe; the account is then Free.
 *
 * Stripe's webhooks drive it (through PaymentsDeps.renewals); each step is idempotent and each email
 * is claimed once (notices), so replays, retries and several instances send nothing twice.
 */

export const DUNNING_MESSAGES = {
  noOpenInvoice: "There is no unpaid invoice to pay.",
  cardNotFound: PAYMENT_MESSAGES.savedCardNotFound,
  paid: PAYMENT_MESSAGES.paid,
} as const;

/** Days before the end of the grace period that the reminder is sent. */
export const GRACE_REMINDER_DAYS = 3;
const DAY_MS = 86_400_000;

export interface DunningDeps {
  payments: PaymentsDeps;
  mail: MailService;
  graceDays: number;
  /** PayPal subscriptions' failed renewals (PayPal retries them itself); null or absent while PayPal is off. */
  paypal?: PayPalDeps | null;
}

/** A PayPal past-due renewal's marker in past_due_invoice_id (PayPal has no invoice to pay). */
const isPayPalPastDue = (row: Pick<Subscription, "subscription_by">) => row.subscription_by === "paypal";

/**
 * The callbacks of PayPal's webhooks (PayPalDeps.renewals). A renewal PayPal could not collect makes the
 * subscription past due like a card's (same grace period); PayPal retries the payment itself (its plan's
 * failure threshold, then it suspends), so the email asks the customer to fix their PayPal funding and
 * has no pay link. Collected in time: no longer past due. Unpaid at the grace end: the job cancels it at PayPal.
 */
export function paypalRenewalEvents(deps: DunningDeps): PayPalRenewalEvents {
  return {
    async failed(event) {
      const { db, clock } = deps.payments;
      const row = event.subscription;
      const sameRenewal = row.past_due_invoice_id === event.key;
      if (!sameRenewal && row.past_due_since !== null && row.past_due_invoice_id === null) return;
      const graceUntil = new Date(event.dueAt.getTime() + deps.graceDays * DAY_MS).toISOString();
      await db
        .updateTable("subscriptions")
        .set({
          past_due_since: sameRenewal ? row.past_due_since : event.dueAt.toISOString(),
          grace_until: sameRenewal ? row.grace_until : graceUntil,
          past_due_invoice_id: event.key,
          payment_failure_message: event.message.slice(0, 500),
          past_due_payment_method: null,
          updated_at: clock.now().toISOString(),
        })
        .where("id", "=", row.id)
        .execute();
      const to = await recipient(deps, row.user_id);
      if (!to) return;
      if (!(await claimNotice(db, { key: `payment_failed:${event.key}`, kind: "payment_failed", userId: row.user_id, now: clock.now() }))) return;
      await deps.mail.deliver(
        paypalPaymentFailedEmail(to, {
          amount: formatUsd(event.amountCents),
          reason: event.message,
          graceUntil: formatDate(sameRenewal && row.grace_until ? row.grace_until : graceUntil),
        }),
      );
    },
    async paid(event) {
      await deps.payments.db
        .updateTable("subscriptions")
        .set({
          past_due_since: null,
          grace_until: null,
          past_due_invoice_id: null,
          payment_failure_message: null,
          past_due_payment_method: null,
          updated_at: deps.payments.clock.now().toISOString(),
        })
        .where("id", "=", event.subscriptionId)
        .where("past_due_invoice_id", "is not", null)
        .execute();
    },
    async ended(event) {
      await endedUnpaid(deps, event.subscriptionId, event.endedAt);
    },
  };
}

/** A past-due subscription ended (any gateway): the grace ends with it and the customer is told once. */
async function endedUnpaid(deps: DunningDeps, subscriptionId: number, endedAtDate: Date): Promise<void> {
  const { db, clock } = deps.payments;
  const row = await db.selectFrom("subscriptions").selectAll().where("id", "=", subscriptionId).executeTakeFirst();
  if (!row || row.past_due_since === null) return;
  const endedAt = endedAtDate.toISOString();
  await db
    .updateTable("subscriptions")
    .set({
      grace_until: row.grace_until && row.grace_until < endedAt ? row.grace_until : endedAt,
      past_due_invoice_id: null,
      updated_at: clock.now().toISOString(),
    })
    .where("id", "=", row.id)
    .execute();
  const to = await recipient(deps, row.user_id);
  if (!to) return;
  if (!(await claimNotice(db, { key: `ended_unpaid:${row.id}`, kind: "ended_unpaid", userId: row.user_id, now: clock.now() }))) return;
  await deps.mail.deliver(subscriptionEndedUnpaidEmail(to, { plan: row.title, link: `${deps.payments.publicUrl}/pricing` }));
}

/** Where the customer pays the open invoice (the portal's pay page). */
function payUrl(deps: DunningDeps): string {
  return `${deps.payments.publicUrl}/billing/pay`;
}

/** 'Visa ending in 4242', from the saved card, or null when it is not (or no longer) saved. */
async function cardLabel(deps: DunningDeps, userId: number, paymentMethodId: string | null): Promise<string | null> {
  if (!paymentMethodId) return null;
  const card = await deps.payments.db
    .selectFrom("payment_methods")
    .select(["card_brand", "card_last4"])
    .where("user_id", "=", userId)
    .where("payment_method_id", "=", paymentMethodId)
    .executeTakeFirst();
  return card ? cardName({ brand: card.card_brand, last4: card.card_last4 }) : null;
}

/** The account to email, unless it was deleted (docs/decisions/015): a deleted account gets no mail. */
async function recipient(deps: DunningDeps, userId: number): Promise<string | null> {
  const user = await deps.payments.db.selectFrom("users").select(["email", "deleted_at"]).where("id", "=", userId).executeTakeFirst();
  return user && user.deleted_at === null ? user.email : null;
}

/** The callbacks the card webhooks call (PaymentsDeps.renewals). */
export function renewalEvents(deps: DunningDeps): RenewalEvents {
  return {
    failed: (event) => renewalFailed(deps, event),
    paid: (event) => invoicePaid(deps, event),
    ended: (event) => subscriptionEnded(deps, event),
  };
}

/**
 * A renewal attempt failed. The first failure of an invoice starts the grace period (counted from
 * when the renewal was due) and emails the customer once; later attempts only update the reason.
 */
export async function renewalFailed(deps: DunningDeps, event: Parameters<RenewalEvents["failed"]>[0]): Promise<void> {
  const { db, clock } = deps.payments;
  const row = await db.selectFrom("subscriptions").selectAll().where("stripe_sub_id", "=", event.stripeSubId).executeTakeFirst();
  if (!row) return;
  const now = clock.now().toISOString();
  const sameInvoice = row.past_due_invoice_id === event.invoiceId;
  // An invoice is past due once: an ended grace (cancelled) is not restarted by a late event.
  if (!sameInvoice && row.past_due_since !== null && row.past_due_invoice_id === null) return;
  const graceUntil = new Date(event.dueAt.getTime() + deps.graceDays * DAY_MS).toISOString();
  await db
    .updateTable("subscriptions")
    .set({
      past_due_since: sameInvoice ? row.past_due_since : event.dueAt.toISOString(),
      grace_until: sameInvoice ? row.grace_until : graceUntil,
      past_due_invoice_id: event.invoiceId,
      payment_failure_message: event.message.slice(0, 500),
      past_due_payment_method: event.paymentMethodId,
      updated_at: now,
    })
    .where("id", "=", row.id)
    .execute();

  const to = await recipient(deps, row.user_id);
  if (!to) return;
  if (!(await claimNotice(db, { key: `payment_failed:${event.invoiceId}`, kind: "payment_failed", userId: row.user_id, now: clock.now() }))) return;
  await deps.mail.deliver(
    paymentFailedEmail(to, {
      amount: formatUsd(event.amountCents),
      card: await cardLabel(deps, row.user_id, event.paymentMethodId),
      reason: event.message,
      graceUntil: formatDate(sameInvoice && row.grace_until ? row.grace_until : graceUntil),
      link: payUrl(deps),
    }),
  );
}

/** The open invoice is paid (and recorded, from the subscription's original period): no longer past due. */
export async function invoicePaid(deps: DunningDeps, event: { stripeSubId: string; invoiceId: string }): Promise<void> {
  const row = await deps.payments.db
    .selectFrom("subscriptions")
    .select("cancel_at_period_end")
    .where("stripe_sub_id", "=", event.stripeSubId)
    .where("past_due_invoice_id", "=", event.invoiceId)
    .executeTakeFirst();
  // Auto-renewal was turned off while past due (the retries stopped), then paid anyway: the paid period
  // runs, and the choice stands at Stripe too, so the next period is not charged.
  if (row?.cancel_at_period_end) await setRenewal(deps.payments.gateway, event.stripeSubId, false);
  await deps.payments.db
    .updateTable("subscriptions")
    .set({
      past_due_since: null,
      grace_until: null,
      past_due_invoice_id: null,
      payment_failure_message: null,
      past_due_payment_method: null,
      updated_at: deps.payments.clock.now().toISOString(),
    })
    .where("stripe_sub_id", "=", event.stripeSubId)
    .where("past_due_invoice_id", "=", event.invoiceId)
    .execute();
}

/**
 * The subscription ended at Stripe. Ended while past due (the grace period ran out, or Stripe gave up):
 * the grace ends with it (the account is Free) and the customer is told once.
 */
export async function subscriptionEnded(deps: DunningDeps, event: { stripeSubId: string; endedAt: Date }): Promise<void> {
  const row = await deps.payments.db.selectFrom("subscriptions").select("id").where("stripe_sub_id", "=", event.stripeSubId).executeTakeFirst();
  if (row) await endedUnpaid(deps, Number(row.id), event.endedAt);
}

/**
 * The scheduled job (runDueJobs): the reminder GRACE_REMINDER_DAYS before a grace period ends, and the
 * end of every subscription whose grace period has passed unpaid: cancelled at Stripe now (the
 * customer.subscription.deleted webhook records the same end again, harmlessly).
 */
export async function runDunningJobs(deps: DunningDeps): Promise<{ reminded: number; ended: number }> {
  const { db, clock } = deps.payments;
  const now = clock.now();
  const at = now.toISOString();
  const open = await db
    .selectFrom("subscriptions")
    .selectAll()
    .where("past_due_invoice_id", "is not", null)
    .where("grace_until", "is not", null)
    .where("grace_until", "<=", new Date(now.getTime() + GRACE_REMINDER_DAYS * DAY_MS).toISOString())
    .execute();
  let reminded = 0;
  let ended = 0;
  for (const row of open) {
    if (row.grace_until! <= at) {
      await endUnpaid(deps, row);
      ended++;
      continue;
    }
    const to = await recipient(deps, row.user_id);
    if (!to) continue;
    const key = `grace_ending:${row.id}:${row.past_due_invoice_id}`;
    if (!(await claimNotice(db, { key, kind: "grace_ending", userId: row.user_id, now }))) continue;
    if (isPayPalPastDue(row)) {
      await deps.mail.deliver(paypalGraceEndingEmail(to, { amount: formatUsd(Number(row.amount_cents ?? 0)), graceUntil: formatDate(row.grace_until!) }));
      reminded++;
      continue;
    }
    const invoice = await retrieveInvoice(deps.payments.gateway, row.past_due_invoice_id!);
    await deps.mail.deliver(
      gracePeriodEndingEmail(to, {
        amount: formatUsd(invoice.amount_due),
        card: await cardLabel(deps, row.user_id, row.past_due_payment_method),
        graceUntil: formatDate(row.grace_until!),
        link: payUrl(deps),
      }),
    );
    reminded++;
  }
  return { reminded, ended };
}

async function endUnpaid(deps: DunningDeps, row: Subscription): Promise<void> {
  const { gateway, clock, db } = deps.payments;
  if (isPayPalPastDue(row)) {
    // PayPal could not collect within the grace period: the subscription is cancelled there (no more retries).
    if (row.paypal_sub_id && deps.paypal) await cancelPayPalSubscription(deps.paypal, row.paypal_sub_id, "The renewal was not paid.");
    const endedAt = clock.now();
    await endedUnpaid(deps, Number(row.id), endedAt);
    return;
  }
  if (row.stripe_sub_id) {
    try {
      await cancelSubscription(gateway, row.stripe_sub_id, `dunning-${row.id}-${row.past_due_invoice_id}`);
    } catch (error) {
      // Already canceled at Stripe: it has ended, which is what we want.
      if (!isInvalidRequest(error)) throw error;
    }
    const endedAt = clock.now();
    await recordSubscriptionState(db, { stripeSubId: row.stripe_sub_id, renewing: false, endedAt, now: endedAt });
    await subscriptionEnded(deps, { stripeSubId: row.stripe_sub_id, endedAt });
  }
}

/** What the banner and the pay page show while a renewal is unpaid within its grace period. */
export interface PaymentFailed {
  /** Who collects it: the card gateway (pay it here) or PayPal (which retries it itself). */
  gateway: "stripe" | "paypal";
  reason: string;
  /** '$9.99'. */
  amount: string;
  /** 'Visa ending in 4242', or null when the card is not saved any more. */
  card: string | null;
  invoice_id: string;
  grace_until: string;
  /** The portal's pay page; for PayPal, PayPal's automatic payments page, where the customer fixes how PayPal pays. */
  pay_url: string;
  /** Stripe's hosted invoice page (pays with a new card, 3-D Secure included). */
  hosted_invoice_url: string | null;
  requires_action: boolean;
}

async function pastDueRow(deps: DunningDeps, userId: number): Promise<Subscription | undefined> {
  return deps.payments.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("past_due_invoice_id", "is not", null)
    .where("grace_until", ">", deps.payments.clock.now().toISOString())
    .orderBy("id", "desc")
    .executeTakeFirst();
}

/** The user's unpaid renewal within its grace period, or null. */
export async function paymentFailedOf(deps: DunningDeps, userId: number): Promise<PaymentFailed | null> {
  const row = await pastDueRow(deps, userId);
  if (!row) return null;
  // PayPal has no invoice to pay here: it retries the payment itself, and the customer fixes their PayPal
  // funding at PayPal (the email says the same). The banner still says the plan is kept until the grace ends.
  if (isPayPalPastDue(row)) {
    return {
      gateway: "paypal",
      reason: row.payment_failure_message ?? "PayPal could not collect the renewal payment.",
      amount: formatUsd(Number(row.amount_cents ?? 0)),
      card: null,
      invoice_id: row.past_due_invoice_id!,
      grace_until: row.grace_until!,
      pay_url: PAYPAL_AUTOPAY,
      hosted_invoice_url: null,
      requires_action: false,
    };
  }
  const invoice = await retrieveInvoice(deps.payments.gateway, row.past_due_invoice_id!);
  if (invoice.status !== "open") return null;
  const reason = row.payment_failure_message ?? "Payment failed";
  return {
    gateway: "stripe",
    reason,
    amount: formatUsd(invoice.amount_due),
    card: await cardLabel(deps, userId, row.past_due_payment_method),
    invoice_id: row.past_due_invoice_id!,
    grace_until: row.grace_until!,
    pay_url: payUrl(deps),
    hosted_invoice_url: invoice.hosted_invoice_url ?? null,
    requires_action: reason === AUTHENTICATION_NEEDED,
  };
}

/** Stripe's card error codes for a payment that needs the customer's authentication. */
const AUTHENTICATION_CODES = new Set(["authentication_required", "invoice_payment_intent_requires_action"]);

export type PayOpenInvoiceOutcome =
  | { status: "paid" }
  | { status: "requires_action"; hosted_invoice_url: string };

/**
 * Pays the open invoice of the user's past-due subscription with one of their saved cards (pm_...).
 * Paid: recorded now (invoice.paid records it again, harmlessly), and the card pays the next renewals.
 * Declined: card_declined with the bank's message. Needing authentication: the hosted invoice page.
 */
export async function payOpenInvoice(
  deps: DunningDeps,
  userId: number,
  input: { paymentMethodId: string; key?: string },
): Promise<PayOpenInvoiceOutcome> {
  const { db, gateway } = deps.payments;
  const row = await pastDueRow(deps, userId);
  if (!row?.stripe_sub_id) throw new DomainError("not_found", DUNNING_MESSAGES.noOpenInvoice);
  const card = await db
    .selectFrom("payment_methods")
    .select("payment_method_id")
    .where("user_id", "=", userId)
    .where("payment_method_id", "=", input.paymentMethodId)
    .executeTakeFirst();
  if (!card) throw new DomainError("not_found", DUNNING_MESSAGES.cardNotFound, { field: "payment_method_id" });
  const invoiceId = row.past_due_invoice_id!;
  let paid: Awaited<ReturnType<typeof payInvoice>>;
  try {
    // One charge per form and card: a double submit is one payment, another card on the same form another try.
    paid = await payInvoice(gateway, invoiceId, card.payment_method_id, `open-invoice-${invoiceId}-${card.payment_method_id}-${input.key ?? randomUUID()}`);
  } catch (error) {
    if (isCardError(error)) {
      const invoice = await retrieveInvoice(gateway, invoiceId);
      // The bank wants the customer to authenticate: Stripe's hosted invoice page does 3-D Secure.
      if (AUTHENTICATION_CODES.has(error.code ?? "") && invoice.hosted_invoice_url) {
        return { status: "requires_action", hosted_invoice_url: invoice.hosted_invoice_url };
      }
      throw new DomainError("card_declined", error.message || "Your card was declined.");
    }
    if (isInvalidRequest(error)) {
      // Paid or ended meanwhile (a retry, another tab): our state follows Stripe's.
      const invoice = await retrieveInvoice(gateway, invoiceId);
      if (invoice.status === "paid") {
        await recordPaid(deps, row, invoice);
        return { status: "paid" };
      }
      throw new DomainError("not_found", DUNNING_MESSAGES.noOpenInvoice);
    }
    throw error;
  }
  if (paid.status !== "paid") {
    if (paid.hosted_invoice_url) return { status: "requires_action", hosted_invoice_url: paid.hosted_invoice_url };
    throw new DomainError("card_declined", "Your card was declined.");
  }
  await recordPaid(deps, row, paid);
  // The card that paid pays the next renewals too (the one that failed would fail again).
  await setCardOfSubscription(gateway, row.stripe_sub_id, card.payment_method_id);
  return { status: "paid" };
}

async function recordPaid(deps: DunningDeps, row: Subscription, invoice: Awaited<ReturnType<typeof retrieveInvoice>>): Promise<void> {
  const subscription = await retrieveSubscription(deps.payments.gateway, row.stripe_sub_id!);
  const plan = await deps.payments.db.selectFrom("plans").selectAll().where("id", "=", row.plan_id).executeTakeFirstOrThrow();
  await recordStripeInvoice(deps.payments, invoice, subscription, plan, row.user_id);
  await invoicePaid(deps, { stripeSubId: row.stripe_sub_id!, invoiceId: invoice.id! });
}
