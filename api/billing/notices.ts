import type { RecordedPayment } from "../payments/paid";
import { type Language, asLanguage, formatMoney, formatMonthIn, translatorFor } from "../platform/i18n";
import { type TaxLine, type TaxedAmount, recordedTaxOfRow, renewalTaxTreatment, taxLineOfRecorded, taxSentenceOf, taxedAmount, treatmentOfRecorded } from "../payments/tax";
import { type Gateways, type PayingCard, gatewayFor, renewsAutomatically } from "../payments/gateway";
import { formatUsd } from "../payments/money";
import { FAILED_STATUS } from "../payments/records";
import { sql } from "kysely";
import type { Subscription } from "../platform/db/schema";
import type { MailService } from "../platform/mailer";
import type { Database } from "../platform/db";
import type { Clock } from "../platform/clock";
import type { Logger } from "../platform/logger";
import { claimNotice } from "../platform/notices";
import { methodOfPayment, renewalOf } from "../payments/renewal-rule";
import {
  buysText,
  cardName,
  type CardLabel,
  autoRenewalEmail,
  cardExpiryEmail,
  receiptEmail,
  renewalReminderEmail,
  planEndedEmail,
} from "./emails";

/*
 * The notices people are owed (docs/decisions/029-notices.md): a receipt for every paid charge, a
 * reminder before every automatic renewal, a confirmation when auto-renewal changes, a warning a month
 * before the card that pays expires, and an email when a plan ends. Each is claimed once in the notices
 * table (claimNotice) before it is sent, so webhook replays, page-and-webhook races, jobs that run
 * twice and several instances send it once; none goes to a deleted account. Times are the product's
 * business clock (the sandbox test clock moves it).
 */

export interface NoticeDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** The portal's public origin, for the emails' links. */
  publicUrl: string;
  mail: MailService;
  /** The gateways that are on: each subscription's own (gatewayFor) names its card and switches its renewal. */
  gateways: Gateways;
}

/** What a receipt needs: no gateway (the payment names its card). */
export type ReceiptDeps = Omit<NoticeDeps, "gateways">;

export { renewsAutomatically };
export type { PayingCard };

const DAY_MS = 86_400_000;
/** Plans of a year or longer are reminded 30 days ahead (California's automatic renewal law asks 15 to 45 days). */
export const LONG_PLAN_REMINDER_DAYS = 30;
export const SHORT_PLAN_REMINDER_DAYS = 7;
/** A plan that ended longer ago than this gets no 'plan ended' email (the job's first run on old data stays quiet). */
const PLAN_ENDED_LOOKBACK_DAYS = 7;

export function reminderLeadDays(durationMonths: number): number {
  return durationMonths >= 12 ? LONG_PLAN_REMINDER_DAYS : SHORT_PLAN_REMINDER_DAYS;
}

function links(deps: Pick<NoticeDeps, "publicUrl">) {
  const base = deps.publicUrl.replace(/\/$/, "");
  return {
    settings: `${base}/billing`,
    cards: `${base}/billing?tab=payment-method`,
    pricing: `${base}/pricing`,
    // Our invoice (a PDF) for every gateway (issue 35); the wallet stays in the signature for the callers.
    invoice: (transactionId: number, gateway: string, _wallet: string | null) => `${base}/billing/invoice/${transactionId}/${gateway}`,
  };
}

/** The card that pays a subscription, as its gateway names it (null: none of ours, e.g. PayPal). */
function cardThatPays(deps: Pick<NoticeDeps, "gateways">, subscription: Subscription, opts?: { onlyCardSuffices?: boolean }): Promise<PayingCard | null> {
  return gatewayFor(deps.gateways, subscription)?.payingCard(subscription, opts) ?? Promise.resolve(null);
}

export interface NextCharge {
  /** VAT included. */
  amount: string;
  amount_cents: number;
  net_cents: number;
  tax_cents: number;
  tax: TaxLine | null;
  date: string;
  card: { brand: string; last4: string } | null;
}

/**
 * What the next renewal charges and, when a change waits for it (decision 028), the plan it changes to:
 * that plan's card price, as the change's summary says; else the subscription's own amount, else its plan's price.
 * VAT on it at the subscription's treatment (its latest paid invoice's, tax.ts), so `cents` is the total charged.
 */
async function nextRenewalOf(deps: Pick<NoticeDeps, "db">, subscription: Subscription): Promise<{ cents: number; taxed: TaxedAmount; changesTo: string | null }> {
  const net = await nextRenewalNetOf(deps, subscription);
  const taxed = taxedAmount(await renewalTaxTreatment(deps.db, Number(subscription.id)), net.cents);
  return { cents: taxed.totalCents, taxed, changesTo: net.changesTo };
}

async function nextRenewalNetOf(deps: Pick<NoticeDeps, "db">, subscription: Subscription): Promise<{ cents: number; changesTo: string | null }> {
  if (subscription.pending_plan_id !== null && subscription.pending_change_at !== null && subscription.pending_change_at <= subscription.sub_exp_date) {
    const pending = await deps.db.selectFrom("plans").select(["discounted_price_cents", "title"]).where("id", "=", subscription.pending_plan_id).executeTakeFirst();
    if (pending) return { cents: pending.discounted_price_cents, changesTo: pending.title };
  }
  if (subscription.amount_cents !== null) return { cents: subscription.amount_cents, changesTo: null };
  const plan = await deps.db.selectFrom("plans").select("discounted_price_cents").where("id", "=", subscription.plan_id).executeTakeFirst();
  return { cents: plan?.discounted_price_cents ?? 0, changesTo: null };
}

/**
 * 'Next charge' of the billing page and the home: amount, date and card while the subscription renews
 * by itself; else `ends_on`, the day the plan ends (auto-renewal off, one-time and crypto plans).
 */
export async function nextChargeOf(
  deps: Pick<NoticeDeps, "db" | "gateways">,
  subscription: Subscription | undefined | null,
): Promise<{ next_charge: NextCharge | null; ends_on: string | null }> {
  if (!subscription) return { next_charge: null, ends_on: null };
  if (!renewsAutomatically(subscription)) return { next_charge: null, ends_on: subscription.sub_exp_date };
  // PayPal collects it from the customer's PayPal account: its gateway names no card of ours.
  const [{ cents, taxed }, card] = await Promise.all([nextRenewalOf(deps, subscription), cardThatPays(deps, subscription, { onlyCardSuffices: true })]);
  return {
    next_charge: {
      amount: formatUsd(cents),
      amount_cents: cents,
      net_cents: taxed.netCents,
      tax_cents: taxed.taxCents,
      tax: taxed.tax,
      date: subscription.sub_exp_date,
      card: card ? { brand: card.brand, last4: card.last4 } : null,
    },
    ends_on: null,
  };
}

async function liveUser(deps: Pick<NoticeDeps, "db">, userId: number) {
  return deps.db.selectFrom("users").select(["id", "email", "language"]).where("id", "=", userId).where("deleted_at", "is", null).executeTakeFirst();
}

function paidWith(gateway: string, wallet: string | null, card: CardLabel | null, lng: Language): string {
  const t = translatorFor(lng);
  if (gateway === "bitpay") return t("emails:billing.paidWith.crypto");
  if (gateway === "paypal") return "PayPal";
  const label = card ? cardName(card, lng) : t("emails:billing.cards.card");
  if (wallet === "applepay") return `Apple Pay (${label})`;
  if (wallet === "googlepay") return `Google Pay (${label})`;
  return label;
}

/** The receipt of one paid charge, once per gateway reference (the page and the webhook both report it). */
export async function sendReceipt(deps: ReceiptDeps, payment: RecordedPayment): Promise<void> {
  const user = await liveUser(deps, payment.userId);
  if (!user) return;
  const row = await deps.db
    .selectFrom("transactions")
    .innerJoin("invoices", "invoices.transaction_id", "transactions.id")
    .innerJoin("plans", "plans.id", "transactions.plan_id")
    .select([
      "transactions.id",
      "transactions.amount_cents",
      "transactions.payment_gateway",
      "transactions.wallet_payment_type",
      "invoices.number",
      "invoices.net_cents",
      "invoices.vat_cents",
      "invoices.vat_rate",
      "invoices.tax_country",
      "invoices.reverse_charge",
      "plans.title",
      "plans.billing_type",
      "plans.duration_months",
      "plans.extra_months",
      "plans.discounted_price_cents",
      "plans.regular_price_cents",
      "transactions.subscription_id",
    ])
    .where("transactions.gateway_ref", "=", payment.gatewayRef)
    .where("transactions.status", "=", "paid")
    .executeTakeFirst();
  // Nothing charged (a $0 invoice), nothing to receipt.
  if (!row || row.amount_cents <= 0) return;
  if (!(await claimNotice(deps.db, { key: `receipt:${payment.gatewayRef}`, kind: "receipt", userId: user.id, now: deps.clock.now() }))) return;
  // The gateway that recorded the payment names its card (PayPal and crypto name none).
  const card = (await payment.card?.()) ?? null;
  // What this payment buys and what renews then: the quote's rule (terms.ts), for the way it was paid.
  const method = methodOfPayment(row.payment_gateway, row.wallet_payment_type);
  const renewal = renewalOf(row, method);
  const earlier =
    row.subscription_id === null
      ? undefined
      : await deps.db
          .selectFrom("transactions")
          .select("id")
          .where("subscription_id", "=", row.subscription_id)
          .where("status", "=", "paid")
          .where("id", "<", row.id)
          .executeTakeFirst();
  // The invoice's tax, as the quote worded it; the renewal at the same rate (terms.ts).
  const recorded = recordedTaxOfRow({ ...row, vat_cents: row.vat_cents ?? 0 });
  const treatment = treatmentOfRecorded(recorded);
  const line = taxLineOfRecorded(recorded);
  const lng = asLanguage(user.language);
  await deps.mail.deliver(
    receiptEmail(
      user.email,
      {
      amount: formatMoney(lng, row.amount_cents),
      taxSentence: taxSentenceOf({ netCents: recorded.netCents, tax: line, totalCents: row.amount_cents }, lng),
      plan: row.title,
      buys: earlier ? null : buysText(row.duration_months, row.extra_months, lng),
      renewal: renewal.renews ? { amount: formatMoney(lng, taxedAmount(treatment, renewal.priceCents).totalCents), everyMonths: renewal.intervalMonths, on: payment.periodEnd.toISOString() } : null,
      crypto: method === "crypto",
      periodStart: payment.periodStart.toISOString(),
      periodEnd: payment.periodEnd.toISOString(),
      paidWith: paidWith(row.payment_gateway, row.wallet_payment_type, card, lng),
      invoiceUrl: links(deps).invoice(Number(row.id), row.payment_gateway, row.wallet_payment_type),
      number: row.number,
      },
      lng,
    ),
  );
}

/** The confirmation of an auto-renewal change, with its date and time (Germany's cancellation-button rule). */
export async function sendAutoRenewalConfirmation(deps: ReceiptDeps, subscription: Subscription, enabled: boolean, at: Date): Promise<void> {
  const user = await liveUser(deps, subscription.user_id);
  if (!user) return;
  const key = `auto_renewal:${subscription.id}:${enabled ? "enable" : "disable"}:${at.toISOString()}`;
  if (!(await claimNotice(deps.db, { key, kind: "auto_renewal", userId: user.id, now: at }))) return;
  const next = await nextRenewalOf(deps, subscription);
  const lng = asLanguage(user.language);
  await deps.mail.deliver(
    autoRenewalEmail(
      user.email,
      {
        enabled,
        plan: subscription.title,
        at: at.toISOString(),
        endsOn: subscription.sub_exp_date,
        amount: formatMoney(lng, next.cents),
        taxSentence: taxSentenceOf(next.taxed, lng),
        settingsUrl: links(deps).settings,
      },
      lng,
    ),
  );
}

/** Reminders before automatic renewals: 30 days ahead for plans of a year or longer, 7 days for shorter ones. */
export async function sendRenewalReminders(deps: NoticeDeps): Promise<number> {
  const now = deps.clock.now();
  const horizon = new Date(now.getTime() + LONG_PLAN_REMINDER_DAYS * DAY_MS).toISOString();
  const due = await deps.db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .innerJoin("plans", "plans.id", "subscriptions.plan_id")
    .selectAll("subscriptions")
    .select(["users.email", "users.language", "plans.duration_months"])
    // PayPal subscriptions too (those with a PayPal subscription: a 2-year PayPal order never renews).
    .where((eb) => eb.or([eb("subscriptions.subscription_by", "=", "stripe"), eb("subscriptions.paypal_sub_id", "is not", null)]))
    .where("subscriptions.billing_type", "=", "recurring")
    .where("subscriptions.cancel_at_period_end", "=", 0)
    .where("subscriptions.sub_exp_date", ">", now.toISOString())
    .where("subscriptions.sub_exp_date", "<=", horizon)
    .where("users.deleted_at", "is", null)
    .execute();
  let sent = 0;
  for (const row of due) {
    const lead = reminderLeadDays(row.duration_months) * DAY_MS;
    if (new Date(row.sub_exp_date).getTime() - now.getTime() > lead) continue;
    const key = `renewal_reminder:${row.id}:${row.sub_exp_date}`;
    if (!(await claimNotice(deps.db, { key, kind: "renewal_reminder", userId: row.user_id, now }))) continue;
    const paypal = row.subscription_by === "paypal";
    const [{ cents, taxed, changesTo }, card] = await Promise.all([nextRenewalOf(deps, row), cardThatPays(deps, row)]);
    const lng = asLanguage(row.language);
    await deps.mail.deliver(
      renewalReminderEmail(
        row.email,
        {
          plan: row.title,
          changesTo,
          date: row.sub_exp_date,
          amount: formatMoney(lng, cents),
          taxSentence: taxSentenceOf(taxed, lng),
          card,
          settingsUrl: links(deps).settings,
          paypal,
        },
        lng,
      ),
    );
    sent++;
  }
  return sent;
}

/** The last moment a card is valid: the end of its expiry month (UTC). */
function cardExpiresAt(expMonth: number, expYear: number): Date {
  return new Date(Date.UTC(expYear, expMonth, 1));
}

/** A month before the card that pays an active, renewing subscription expires: a link to update it. */
export async function sendCardExpiryWarnings(deps: NoticeDeps): Promise<number> {
  const now = deps.clock.now();
  const soon = new Date(now.getTime() + 31 * DAY_MS);
  // Cards that expire within the next month (few rows), then only those that pay.
  const cards = await deps.db
    .selectFrom("payment_methods")
    .innerJoin("users", "users.id", "payment_methods.user_id")
    .select(["payment_methods.user_id", "payment_methods.payment_method_id", "payment_methods.card_brand", "payment_methods.card_last4", "payment_methods.card_exp_month", "payment_methods.card_exp_year", "users.email", "users.language"])
    .where("users.deleted_at", "is", null)
    // Months counted as year * 12 + month: from this month (still valid) to the month 31 days ahead.
    .where(sql<number>`payment_methods.card_exp_year * 12 + payment_methods.card_exp_month`, ">=", now.getUTCFullYear() * 12 + now.getUTCMonth() + 1)
    .where(sql<number>`payment_methods.card_exp_year * 12 + payment_methods.card_exp_month`, "<=", soon.getUTCFullYear() * 12 + soon.getUTCMonth() + 1)
    .execute();
  let sent = 0;
  for (const card of cards) {
    const expiresAt = cardExpiresAt(card.card_exp_month, card.card_exp_year);
    const msLeft = expiresAt.getTime() - now.getTime();
    if (msLeft <= 0 || msLeft > 31 * DAY_MS) continue;
    const subscriptions = await deps.db
      .selectFrom("subscriptions")
      .selectAll()
      .where("user_id", "=", card.user_id)
      .where("subscription_by", "=", "stripe")
      .where("billing_type", "=", "recurring")
      .where("cancel_at_period_end", "=", 0)
      .where("sub_exp_date", ">", now.toISOString())
      .execute();
    let pays = false;
    for (const subscription of subscriptions) {
      if ((await cardThatPays(deps, subscription))?.paymentMethodId === card.payment_method_id) pays = true;
    }
    if (!pays) continue;
    const key = `card_expiry:${card.payment_method_id}:${card.card_exp_month}/${card.card_exp_year}`;
    if (!(await claimNotice(deps.db, { key, kind: "card_expiry", userId: card.user_id, now }))) continue;
    const lng = asLanguage(card.language);
    const expires = formatMonthIn(lng, card.card_exp_year, card.card_exp_month);
    await deps.mail.deliver(
      cardExpiryEmail(card.email, { card: { brand: card.card_brand, last4: card.card_last4 }, expires, updateUrl: links(deps).cards }, lng),
    );
    sent++;
  }
  return sent;
}

/**
 * 'Your plan has ended' for plans that end at their term: auto-renewal off, a one-time plan, a crypto
 * plan not renewed. Not for ends with their own email: a refund (the refund email), a plan replaced
 * by another one still active, a card subscription whose renewal failed (the dunning emails: its last
 * payment failed, or they claimed `ended_unpaid:<subscription>`).
 */
export async function sendPlanEndedEmails(deps: NoticeDeps): Promise<number> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - PLAN_ENDED_LOOKBACK_DAYS * DAY_MS).toISOString();
  const ended = await deps.db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .selectAll("subscriptions")
    .select(["users.email", "users.language"])
    .where("subscriptions.sub_exp_date", "<=", now.toISOString())
    .where("subscriptions.sub_exp_date", ">", since)
    // Past due when it ended: it ended unpaid (decision 027's email says so).
    .where("subscriptions.past_due_since", "is", null)
    .where("users.deleted_at", "is", null)
    .where((eb) =>
      eb.or([
        eb("subscriptions.cancel_at_period_end", "=", 1),
        eb("subscriptions.billing_type", "=", "single"),
        eb("subscriptions.subscription_by", "=", "bitpay"),
      ]),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("refunds")
            .innerJoin("transactions", "transactions.id", "refunds.transaction_id")
            .select("refunds.id")
            .whereRef("transactions.subscription_id", "=", "subscriptions.id"),
        ),
      ),
    )
    .execute();
  let sent = 0;
  for (const row of ended) {
    const successor = await deps.db
      .selectFrom("subscriptions")
      .select("id")
      .where("user_id", "=", row.user_id)
      .where("id", "!=", row.id)
      .where("sub_exp_date", ">", now.toISOString())
      .executeTakeFirst();
    if (successor) continue;
    const unpaid = await deps.db.selectFrom("notices").select("id").where("notice_key", "=", `ended_unpaid:${row.id}`).executeTakeFirst();
    if (unpaid) continue;
    // A card subscription ended for non-payment reads as not renewing once Stripe cancels it: its last
    // payment failed, and the dunning emails speak for it.
    const last = await deps.db
      .selectFrom("transactions")
      .select("status")
      .where("subscription_id", "=", row.id)
      .orderBy("id", "desc")
      .executeTakeFirst();
    if (last?.status === FAILED_STATUS) continue;
    const key = `plan_ended:${row.id}:${row.sub_exp_date}`;
    if (!(await claimNotice(deps.db, { key, kind: "plan_ended", userId: row.user_id, now }))) continue;
    await deps.mail.deliver(planEndedEmail(row.email, { plan: row.title, endedOn: row.sub_exp_date, pricingUrl: links(deps).pricing }, asLanguage(row.language)));
    sent++;
  }
  return sent;
}

/** What runDueJobs runs for notices; each job claims each notice once, so instances may run it together. */
export async function runNoticeJobs(deps: NoticeDeps): Promise<void> {
  await sendRenewalReminders(deps);
  await sendCardExpiryWarnings(deps);
  await sendPlanEndedEmails(deps);
}
