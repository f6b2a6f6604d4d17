import { randomUUID } from "node:crypto";
import { DEFAULT_LANGUAGE, type Language, asLanguage, formatDateIn, formatMoney, localize } from "../platform/i18n";
import { PAYMENT_MESSAGES } from "../payments/card-payments";
import { formatUsd } from "../payments/money";
import { taxSentenceOf, unpaidRenewalTax } from "../payments/tax";
import { AUTHENTICATION_NEEDED, type RenewalEvents } from "../payments/renewal-events";
import { SubscriptionEndedAtGateway, type Gateways, gatewayFor, recordedRenewal } from "../payments/gateway";
import type { Clock } from "../platform/clock";
import type { Database } from "../platform/db";
import { type Param, prepare } from "../platform/db/prepared";
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

/** What the rules of failed renewals need: no gateway (they are told by every gateway, in our terms). */
export interface RenewalRuleDeps {
  db: Database;
  clock: Clock;
  /** The portal's public origin, for the emails' links. */
  publicUrl: string;
  mail: MailService;
  graceDays: number;
}

export interface DunningDeps extends RenewalRuleDeps {
  /** The gateways that are on: a past-due subscription's own (gatewayFor) is asked for its unpaid renewal. */
  gateways: Gateways;
}

/**
 * What every gateway's webhooks tell about renewals (RenewalEvents, in our terms; given to each gateway
 * when it is built, api/http/app.ts). A renewal the gateway could not collect makes the subscription past
 * due (the grace period counts from when the renewal was due) and emails the customer once; later attempts
 * only update the reason. A card's renewal is paid on the pay page (the email links it); PayPal retries its
 * own (its plan's failure threshold, then it suspends), so its email asks the customer to fix their PayPal
 * funding and has no pay link. Paid in time: no longer past due. Ended while past due (the grace period ran
 * out, or the gateway gave up): the grace ends with it (the account is Free) and the customer is told once.
 */
export function renewalEvents(deps: RenewalRuleDeps): RenewalEvents {
  return {
    async failed(event) {
      const { db, clock } = deps;
      const row = event.subscription;
      const sameRenewal = row.past_due_invoice_id === event.key;
      // A renewal is past due once: an ended grace (cancelled) is not restarted by a late event.
      if (!sameRenewal && row.past_due_since !== null && row.past_due_invoice_id === null) return;
      const graceUntil = new Date(event.dueAt.getTime() + deps.graceDays * DAY_MS).toISOString();
      await db
        .updateTable("subscriptions")
        .set({
          past_due_since: sameRenewal ? row.past_due_since : event.dueAt.toISOString(),
          grace_until: sameRenewal ? row.grace_until : graceUntil,
          past_due_invoice_id: event.key,
          payment_failure_message: event.message.slice(0, 500),
          past_due_payment_method: event.paymentMethodId,
          updated_at: clock.now().toISOString(),
        })
        .where("id", "=", row.id)
        .execute();
      const account = await recipient(deps, row.user_id);
      if (!account) return;
      const { to, lng } = account;
      if (!(await claimNotice(db, { key: `payment_failed:${event.key}`, kind: "payment_failed", userId: row.user_id, now: clock.now() }))) return;
      const taxed = await unpaidRenewalTax(db, Number(row.id), event.amountCents, event.taxCents);
      const amount = formatMoney(lng, taxed.totalCents);
      const taxSentence = taxSentenceOf(taxed, lng);
      const until = formatDateIn(lng, sameRenewal && row.grace_until ? row.grace_until : graceUntil);
      // The gateway's reason ('Your card was declined.') in the language where the resources have it.
      const reason = localize(event.message, lng);
      await deps.mail.deliver(
        event.payableHere
          ? paymentFailedEmail(
              to,
              { amount, taxSentence, card: await cardLabel(deps, row.user_id, event.paymentMethodId, lng), reason, graceUntil: until, link: payUrl(deps) },
              lng,
            )
          : paypalPaymentFailedEmail(to, { amount, taxSentence, reason, graceUntil: until }, lng),
      );
    },
    async paid(event) {
      let query = deps.db
        .updateTable("subscriptions")
        .set({
          past_due_since: null,
          grace_until: null,
          past_due_invoice_id: null,
          payment_failure_message: null,
          past_due_payment_method: null,
          updated_at: deps.clock.now().toISOString(),
        })
        .where("id", "=", event.subscriptionId);
      query = event.key === null ? query.where("past_due_invoice_id", "is not", null) : query.where("past_due_invoice_id", "=", event.key);
      await query.execute();
    },
    async ended(event) {
      await endedUnpaid(deps, event.subscriptionId, event.endedAt);
    },
  };
}

/** A past-due subscription ended (any gateway): the grace ends with it and the customer is told once. */
async function endedUnpaid(deps: RenewalRuleDeps, subscriptionId: number, endedAtDate: Date): Promise<void> {
  const { db, clock } = deps;
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
  const account = await recipient(deps, row.user_id);
  if (!account) return;
  if (!(await claimNotice(db, { key: `ended_unpaid:${row.id}`, kind: "ended_unpaid", userId: row.user_id, now: clock.now() }))) return;
  await deps.mail.deliver(subscriptionEndedUnpaidEmail(account.to, { plan: row.title, link: `${deps.publicUrl}/pricing` }, account.lng));
}

/** Where the customer pays the open invoice (the portal's pay page). */
function payUrl(deps: Pick<RenewalRuleDeps, "publicUrl">): string {
  return `${deps.publicUrl}/billing/pay`;
}

/** 'Visa ending in 4242', from the saved card, or null when it is not (or no longer) saved. */
async function cardLabel(deps: Pick<RenewalRuleDeps, "db">, userId: number, paymentMethodId: string | null, lng: Language): Promise<string | null> {
  if (!paymentMethodId) return null;
  const card = await deps.db
    .selectFrom("payment_methods")
    .select(["card_brand", "card_last4"])
    .where("user_id", "=", userId)
    .where("payment_method_id", "=", paymentMethodId)
    .executeTakeFirst();
  return card ? cardName({ brand: card.card_brand, last4: card.card_last4 }, lng) : null;
}

/** The account to email, unless it was deleted (docs/decisions/015): a deleted account gets no mail. */
/** The account's address and language, unless it was deleted. */
async function recipient(deps: Pick<RenewalRuleDeps, "db">, userId: number): Promise<{ to: string; lng: Language } | null> {
  const user = await deps.db.selectFrom("users").select(["email", "deleted_at", "language"]).where("id", "=", userId).executeTakeFirst();
  return user && user.deleted_at === null ? { to: user.email, lng: asLanguage(user.language) } : null;
}


/**
 * The scheduled job (runDueJobs): the reminder GRACE_REMINDER_DAYS before a grace period ends, and the
 * end of every subscription whose grace period has passed unpaid: cancelled at its gateway now (the
 * gateway's webhook records the same end again, harmlessly).
 */
export async function runDunningJobs(deps: DunningDeps): Promise<{ reminded: number; ended: number }> {
  const { db, clock } = deps;
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
    const account = await recipient(deps, row.user_id);
    if (!account) continue;
    const { to, lng } = account;
    const key = `grace_ending:${row.id}:${row.past_due_invoice_id}`;
    if (!(await claimNotice(db, { key, kind: "grace_ending", userId: row.user_id, now }))) continue;
    const renewal = await openRenewalOf(deps, row);
    const taxed = await unpaidRenewalTax(db, Number(row.id), renewal.amountCents, renewal.taxCents);
    const amount = formatMoney(lng, taxed.totalCents);
    const taxSentence = taxSentenceOf(taxed, lng);
    const graceUntil = formatDateIn(lng, row.grace_until!);
    await deps.mail.deliver(
      renewal.payableHere
        ? gracePeriodEndingEmail(
            to,
            { amount, taxSentence, card: await cardLabel(deps, row.user_id, row.past_due_payment_method, lng), graceUntil, link: payUrl(deps) },
            lng,
          )
        : paypalGraceEndingEmail(to, { amount, taxSentence, graceUntil }, lng),
    );
    reminded++;
  }
  return { reminded, ended };
}

/** The unpaid renewal as its gateway has it now; as our row records it while that gateway is off (PayPal turned off). */
function openRenewalOf(deps: DunningDeps, row: Subscription) {
  return gatewayFor(deps.gateways, row)?.openRenewal(row) ?? Promise.resolve(recordedRenewal(row));
}

/** The grace period ran out unpaid: the subscription is cancelled at its gateway (no more retries), and ends here. */
async function endUnpaid(deps: DunningDeps, row: Subscription): Promise<void> {
  const endedAt = deps.clock.now();
  await gatewayFor(deps.gateways, row)?.cancel(row, {
    key: `dunning-${row.id}-${row.past_due_invoice_id}`,
    reason: "The renewal was not paid.",
    endedAt,
  });
  await endedUnpaid(deps, Number(row.id), endedAt);
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
  return pastDueSubscription.executeTakeFirst(deps.db, { userId, now: deps.clock.now().toISOString() });
}

// Every account home asks it: prepared once (api/platform/db/prepared.ts).
const pastDueSubscription = prepare((db, param: Param<{ userId: number; now: string }>) =>
  db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", param("userId"))
    .where("past_due_invoice_id", "is not", null)
    .where("grace_until", ">", param("now"))
    .orderBy("id", "desc")
    .limit(1),
);

/** The user's unpaid renewal within its grace period, or null. */
export async function paymentFailedOf(deps: DunningDeps, userId: number): Promise<PaymentFailed | null> {
  const row = await pastDueRow(deps, userId);
  if (!row) return null;
  const renewal = await openRenewalOf(deps, row);
  const charged = (await unpaidRenewalTax(deps.db, Number(row.id), renewal.amountCents, renewal.taxCents)).totalCents;
  // PayPal has no invoice to pay here: it retries the payment itself, and the customer fixes their PayPal
  // funding at PayPal (the email says the same). The banner still says the plan is kept until the grace ends.
  if (!renewal.payableHere) {
    return {
      gateway: "paypal",
      reason: row.payment_failure_message ?? "PayPal could not collect the renewal payment.",
      amount: formatUsd(charged),
      card: null,
      invoice_id: row.past_due_invoice_id!,
      grace_until: row.grace_until!,
      pay_url: PAYPAL_AUTOPAY,
      hosted_invoice_url: null,
      requires_action: false,
    };
  }
  if (!renewal.open) return null;
  const reason = row.payment_failure_message ?? "Payment failed";
  return {
    gateway: "stripe",
    reason,
    amount: formatUsd(charged),
    // The API's answer (the portal words its own page): English.
    card: await cardLabel(deps, userId, row.past_due_payment_method, DEFAULT_LANGUAGE),
    invoice_id: row.past_due_invoice_id!,
    grace_until: row.grace_until!,
    pay_url: payUrl(deps),
    hosted_invoice_url: renewal.hostedInvoiceUrl,
    requires_action: reason === AUTHENTICATION_NEEDED,
  };
}

export type PayOpenInvoiceOutcome =
  | { status: "paid" }
  | { status: "requires_action"; hosted_invoice_url: string };

/**
 * Pays the open renewal of the user's past-due subscription with one of their saved cards (pm_...), at
 * its gateway: paid, it is recorded now and the card pays the next renewals; declined: card_declined with
 * the bank's message; needing authentication: the gateway's hosted invoice page.
 */
export async function payOpenInvoice(
  deps: DunningDeps,
  userId: number,
  input: { paymentMethodId: string; key?: string },
): Promise<PayOpenInvoiceOutcome> {
  const { db } = deps;
  const row = await pastDueRow(deps, userId);
  const gateway = row ? gatewayFor(deps.gateways, row) : null;
  if (!row || !gateway?.paysRenewalsHere) {
    throw new DomainError("not_found", DUNNING_MESSAGES.noOpenInvoice);
  }
  const card = await db
    .selectFrom("payment_methods")
    .select("payment_method_id")
    .where("user_id", "=", userId)
    .where("payment_method_id", "=", input.paymentMethodId)
    .executeTakeFirst();
  if (!card) throw new DomainError("not_found", DUNNING_MESSAGES.cardNotFound, { field: "payment_method_id" });
  const invoiceId = row.past_due_invoice_id!;
  try {
    // One charge per form and card: a double submit is one payment, another card on the same form another try.
    return await gateway.payOpenRenewal(row, {
      paymentMethodId: card.payment_method_id,
      key: `open-invoice-${invoiceId}-${card.payment_method_id}-${input.key ?? randomUUID()}`,
    });
  } catch (error) {
    // Ended meanwhile (a retry, another tab): nothing is open to pay.
    if (error instanceof SubscriptionEndedAtGateway) throw new DomainError("not_found", DUNNING_MESSAGES.noOpenInvoice);
    throw error;
  }
}
