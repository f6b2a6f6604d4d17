import { randomUUID } from "node:crypto";
import { type Language, type MessageKey, type Text, type TextVars, asLanguage, formatDateIn, formatMoney, text, translatorFor } from "../platform/i18n";
import type { Database } from "../platform/db";
import { formatDate } from "../platform/dates";
import type { Plan, Subscription, User } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import type { MailService } from "../platform/mailer";
import { renderEmail } from "../platform/email-template";
import type { Mail } from "../platform/mailer";
import { type PaymentsDeps, PAYMENT_MESSAGES, recordStripeInvoice, syncTaxDetails } from "./card-payments";
import { type TaxTreatment, type TaxedAmount, accountTaxTreatment, taxSentenceOf, taxedAmount, taxedByGateway } from "./tax";
import { findPlan } from "./plans";
import { accessEndOf, fromUnix } from "./records";
import { type Stripe, isCardError, isGatewayFailure } from "./stripe/client";
import { retrieveInvoice } from "./stripe/invoices";
import { changePriceNow, previewPriceChange, releaseSchedule, scheduleChangeAtRenewal } from "./stripe/plan-changes";
import { priceForPlan, stripeInterval } from "./stripe/prices";
import { retrieveSubscription } from "./stripe/subscriptions";
import { SUBSCRIPTION_MESSAGES, currentRecurringSubscription } from "./one-subscription";
import { withPlanChangeClaim } from "./subscription-guard";

/*
 * Changing plan instead of buying twice (issue 20, docs/decisions/028). A subscriber with a recurring
 * card plan who picks another recurring plan changes the one subscription:
 * - to a longer term (or, at the same term, a dearer plan): now. Stripe credits the unused part of
 *   the current period, invoices the new plan and charges the subscription's card at once; the new
 *   period starts now. The page shows the amount first (Stripe's preview with the same
 *   proration_date, so the charge is the amount shown). A card that fails changes nothing.
 * - to a shorter term: at the next renewal, nothing charged now (a subscription schedule); the
 *   pending change can be cancelled until then.
 * The subscription row follows (plan, title, amount) from the direct answer and the webhooks alike.
 */

export const PLAN_CHANGE_MESSAGES = {
  noSubscription: "You have no recurring plan to change.",
  notCard: "Only a plan paid by card can be changed here.",
  oneTime: "The 5-year plan is bought, not changed to: choose it on the checkout.",
  samePlan: PAYMENT_MESSAGES.alreadyCurrent,
  notRenewing: "Turn on auto-renewal to change your plan at the next renewal.",
  pastDue: "Your last payment failed. Pay it before you change your plan.",
  nothingPending: "There is no pending plan change to cancel.",
  approvedAtPayPal: "A plan change approved at PayPal cannot be cancelled here: it applies at your next renewal.",
  changed: (title: string) => `Your plan was changed to ${title}.`,
  scheduled: (title: string, date: string) => `Your plan changes to ${title} on ${date}.`,
  kept: "Your current plan stays. The pending change was cancelled.",
  inProgress: SUBSCRIPTION_MESSAGES.changeInProgress,
} as const;

export type PlanChangeKind = "now" | "at_renewal";

export interface PlanChangePreview {
  kind: PlanChangeKind;
  currentPlan: Plan;
  plan: Plan;
  /** What is charged now (kind now), in cents; 0 for a change at renewal. */
  amountDueCents: number;
  /** Unix seconds: pass it back to the change, so the charge equals this preview. */
  prorationDate: number | null;
  /** When the new plan takes effect (now, or the current period's end). */
  effectiveAt: Date;
  subscription: Subscription;
  summary: PlanChangeSummary;
}

/**
 * The three figures a plan change is stated with, the same on the change page, its result and the email
 * (docs/decisions/051): what is charged now, when the plan now ends, and the next renewal.
 */
export interface PlanChangeSummary {
  /** The total charged now, VAT included (chargedNow.totalCents). */
  chargedNowCents: number;
  /** Its net and VAT (docs/decisions/061): Stripe Tax's VAT of the change's invoice, worded by our treatment. */
  chargedNow: TaxedAmount;
  /** The end of what is paid for: a change now buys the new plan's card (its months plus its free months). */
  newEndDate: Date;
  /** The new plan's renewal, VAT included (amountCents = taxed.totalCents). */
  nextRenewal: { amountCents: number; taxed: TaxedAmount; date: Date };
}

/**
 * The figures of a change, from Stripe's invoice for it: its preview (the page) or the invoice it made (the
 * result), so both come from this one function. A change now: the invoice's amount, and the new plan's
 * period (its line, not the credit) plus the card's free months. At renewal: nothing now, the paid-through
 * date kept, the new plan's price at it.
 */
export function changeSummary(input: {
  kind: PlanChangeKind;
  plan: Plan;
  invoice: Stripe.Invoice | null;
  currentEnd: Date;
  /** The customer's tax treatment (tax.ts): the renewal's VAT, and the wording of the invoice's. */
  treatment: TaxTreatment;
}): PlanChangeSummary {
  const { kind, plan, invoice, currentEnd, treatment } = input;
  const renewal = taxedAmount(treatment, plan.discounted_price_cents);
  if (kind === "at_renewal" || !invoice) {
    const nothing = taxedAmount(treatment, 0);
    return { chargedNowCents: 0, chargedNow: nothing, newEndDate: currentEnd, nextRenewal: { amountCents: renewal.totalCents, taxed: renewal, date: currentEnd } };
  }
  const lines = invoice.lines?.data ?? [];
  const line = lines.find((l) => !l.parent?.subscription_item_details?.proration) ?? lines[0];
  const newEndDate = accessEndOf(plan, fromUnix(line?.period.end ?? invoice.period_end), true);
  // What Stripe charges (or charged) is the invoice's: its VAT is Stripe Tax's (total_taxes).
  const stripeTax = (invoice.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
  // Nothing due (the credit covers the new plan; the rest goes to the customer's balance): no VAT charged now.
  const charged = taxedByGateway(treatment, invoice.amount_due, invoice.amount_due > 0 ? Math.max(0, Math.min(stripeTax, invoice.amount_due)) : 0);
  return { chargedNowCents: charged.totalCents, chargedNow: charged, newEndDate, nextRenewal: { amountCents: renewal.totalCents, taxed: renewal, date: newEndDate } };
}


/** A longer term, or the same term at a higher price, takes effect now; a shorter one at the renewal. */
export function changeKind(current: Pick<Plan, "duration_months" | "discounted_price_cents">, next: Pick<Plan, "duration_months" | "discounted_price_cents">): PlanChangeKind {
  if (next.duration_months !== current.duration_months) return next.duration_months > current.duration_months ? "now" : "at_renewal";
  return next.discounted_price_cents > current.discounted_price_cents ? "now" : "at_renewal";
}

/** The subscription a change applies to, and both plans; refusals as 409 plan_change_invalid. */
async function changeContext(deps: PaymentsDeps, user: User, planId: number) {
  const now = deps.clock.now();
  const subscription = await currentRecurringSubscription(deps.db, user.id, now);
  if (!subscription) throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.noSubscription);
  // Its renewal is unpaid (decision 027): the open invoice is paid first, then the plan can change.
  if (subscription.past_due_since) throw new DomainError("payment_past_due", PLAN_CHANGE_MESSAGES.pastDue);
  if (subscription.subscription_by !== "stripe" || !subscription.stripe_sub_id || !user.stripe_customer_id) {
    throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.notCard);
  }
  const plan = await findPlan(deps.db, planId);
  if (!plan) throw new DomainError("not_found", "Plan not found.", { field: "plan_id" });
  if (plan.billing_type !== "recurring") throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.oneTime, { field: "plan_id" });
  if (plan.id === subscription.plan_id) throw new DomainError("plan_already_current", PLAN_CHANGE_MESSAGES.samePlan, { field: "plan_id" });
  const currentPlan = await findPlan(deps.db, Number(subscription.plan_id));
  if (!currentPlan) throw new Error(`Subscription ${subscription.id} names no plan`);
  return { now, subscription, plan, currentPlan, stripeSubId: subscription.stripe_sub_id, customer: user.stripe_customer_id };
}

function periodEndOf(sub: Stripe.Subscription): Date {
  const item = sub.items.data[0];
  return new Date((item?.current_period_end ?? 0) * 1000);
}

function itemIdOf(sub: Stripe.Subscription): string {
  const item = sub.items.data[0];
  if (!item) throw new Error(`Subscription ${sub.id} has no item`);
  return item.id;
}

/** Stripe failed or did not answer: 502, nothing is known to have changed. */
async function atGateway<T>(deps: PaymentsDeps, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isGatewayFailure(error)) throw error;
    deps.logger.warn(`Plan change: the card gateway failed or did not answer (${(error as Error).name}).`);
    throw new DomainError("gateway_failed", PAYMENT_MESSAGES.failed);
  }
}

/** What changing to `planId` means for the user: when, and what is paid now (Stripe's preview). */
export function previewPlanChange(deps: PaymentsDeps, user: User, planId: number): Promise<PlanChangePreview> {
  return atGateway(deps, async () => {
    const { now, subscription, plan, currentPlan, stripeSubId, customer } = await changeContext(deps, user, planId);
    const kind = changeKind(currentPlan, plan);
    const stripeSub = await retrieveSubscription(deps.gateway, stripeSubId);
    const treatment = await accountTaxTreatment(deps.db, deps.taxRates, user.id);
    if (kind === "at_renewal") {
      const effectiveAt = periodEndOf(stripeSub);
      const summary = changeSummary({ kind, plan, invoice: null, currentEnd: effectiveAt, treatment });
      return { kind, currentPlan, plan, amountDueCents: 0, prorationDate: null, effectiveAt, subscription, summary };
    }
    const prorationDate = Math.floor(now.getTime() / 1000);
    // Stripe Tax taxes by the Customer's address and VAT id: the saved billing details, as the change will.
    await syncTaxDetails(deps, user.id, customer);
    const invoice = await previewPriceChange(deps.gateway, {
      customer,
      subscription: stripeSubId,
      itemId: itemIdOf(stripeSub),
      price: await priceForPlan(deps.gateway, plan),
      prorationDate,
    });
    const summary = changeSummary({ kind, plan, invoice, currentEnd: periodEndOf(stripeSub), treatment });
    return { kind, currentPlan, plan, amountDueCents: summary.chargedNowCents, prorationDate, effectiveAt: now, subscription, summary };
  });
}

/** The row follows the plan Stripe's subscription is on now (its metadata names it); a released schedule clears the pending change. */
export async function followStripePlan(
  db: Database,
  input: { stripeSubId: string; planId: number | null; scheduleId: string | null; now: Date },
): Promise<void> {
  const row = await db.selectFrom("subscriptions").selectAll().where("stripe_sub_id", "=", input.stripeSubId).executeTakeFirst();
  if (!row) return;
  const plan = input.planId !== null && Number.isSafeInteger(input.planId) ? await findPlan(db, input.planId) : undefined;
  const set: Partial<Pick<Subscription, "plan_id" | "title" | "amount_cents" | "pending_plan_id" | "pending_change_at" | "stripe_schedule_id" | "updated_at">> = {};
  if (plan && Number(plan.id) !== Number(row.plan_id)) {
    set.plan_id = plan.id;
    set.title = plan.title;
    set.amount_cents = plan.discounted_price_cents;
  }
  const pendingApplied = plan && row.pending_plan_id !== null && Number(row.pending_plan_id) === Number(plan.id);
  const scheduleGone = row.stripe_schedule_id !== null && input.scheduleId !== row.stripe_schedule_id;
  if (row.pending_plan_id !== null && (pendingApplied || scheduleGone)) {
    set.pending_plan_id = null;
    set.pending_change_at = null;
    set.stripe_schedule_id = null;
  }
  if (Object.keys(set).length === 0) return;
  set.updated_at = input.now.toISOString();
  await db.updateTable("subscriptions").set(set).where("id", "=", row.id).execute();
}

/** What followStripePlan needs of a Stripe subscription as Stripe has it now. */
export function planOfSubscription(sub: Stripe.Subscription, now: Date) {
  const planId = Number(sub.metadata?.plan_id);
  const schedule = typeof sub.schedule === "string" ? sub.schedule : (sub.schedule?.id ?? null);
  return { stripeSubId: sub.id, planId: Number.isSafeInteger(planId) ? planId : null, scheduleId: schedule, now };
}

/** The net/VAT/total sentence of a taxed amount (tax.ts's), as a paragraph; none without a VAT line. */
function taxParagraph(taxed: TaxedAmount | null, lng: Language): { text: string }[] {
  const sentence = taxed ? taxSentenceOf(taxed, lng) : null;
  return sentence ? [{ text: sentence }] : [];
}

/**
 * The change's confirmation: what changes and when (`at`: today when null, else at the renewal on that day), then
 * the three figures (the page's and the result's); in the account's language (docs/decisions/064).
 */
export function planChangeEmail(
  to: string,
  change: { from: string; to: string; at: Date | null; summary: PlanChangeSummary; paidBy: "card" | "paypal" },
  lng: Language,
): Mail {
  const { summary } = change;
  const charged = summary.chargedNowCents > 0;
  const t = (key: string, vars?: TextVars) => translatorFor(lng)(`emails:billing.planChange.${key}` as MessageKey, vars);
  const when = change.at ? t("atRenewal", { date: formatDateIn(lng, change.at) }) : t("today");
  return renderEmail(to, translatorFor(lng)("emails:billing.subjects.planChange"), {
    lng,
    paragraphs: [
      { text: t("changes", { from: change.from, to: change.to, when }) },
      { text: t("chargedNow", { amount: formatMoney(lng, summary.chargedNowCents) }) },
      ...taxParagraph(charged ? summary.chargedNow : null, lng),
      { text: t("newEnd", { date: formatDateIn(lng, summary.newEndDate) }) },
      { text: t("nextRenewal", { amount: formatMoney(lng, summary.nextRenewal.amountCents), date: formatDateIn(lng, summary.nextRenewal.date) }) },
      ...taxParagraph(summary.nextRenewal.taxed, lng),
      { text: t(charged ? (change.paidBy === "paypal" ? "paypalCharge" : "cardCharge") : "nothingNow") },
      { text: t("seePlan") },
    ],
  });
}

export interface PlanChangeResult {
  kind: PlanChangeKind;
  subscription: Subscription;
  amountPaidCents: number;
  effectiveAt: Date;
  summary: PlanChangeSummary;
  message: string;
  /** The message's Text, for the answer in the request's language (the plan's title stays as recorded). */
  text: Text;
}

async function subscriptionRow(db: Database, id: number): Promise<Subscription> {
  return db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/**
 * Changes the subscriber's plan to `planId` (docs/decisions/028). `prorationDate`: the preview's, so
 * the charge equals the amount shown (taken when it is in the last hour, else now). `key`: the
 * page's idempotency key, so a double submit changes once.
 */
export function changePlan(
  deps: PaymentsDeps & { mail: MailService },
  user: User,
  input: { planId: number; prorationDate?: number; key: string },
): Promise<PlanChangeResult> {
  // One change per account at a time: this one decides against the plan the last one left (review issue 30).
  return withPlanChangeClaim(deps, { userId: user.id, key: input.key }, () => changePlanNow(deps, user, input));
}

function changePlanNow(
  deps: PaymentsDeps & { mail: MailService },
  user: User,
  input: { planId: number; prorationDate?: number; key: string },
): Promise<PlanChangeResult> {
  return atGateway(deps, async () => {
    const { now, subscription, plan, currentPlan, stripeSubId, customer } = await changeContext(deps, user, input.planId);
    const kind = changeKind(currentPlan, plan);
    const stripeSub = await retrieveSubscription(deps.gateway, stripeSubId);
    const treatment = await accountTaxTreatment(deps.db, deps.taxRates, user.id);
    const price = await priceForPlan(deps.gateway, plan);
    const metadata = { plan_id: String(plan.id) };
    if (kind === "now") {
      const nowSeconds = Math.floor(now.getTime() / 1000);
      const given = input.prorationDate;
      const prorationDate = given && given <= nowSeconds && given >= nowSeconds - 3600 ? given : nowSeconds;
      // A pending change at renewal gives way to this one.
      if (subscription.stripe_schedule_id) await releaseSchedule(deps.gateway, subscription.stripe_schedule_id).catch(() => undefined);
      await syncTaxDetails(deps, user.id, customer);
      let changed: Stripe.Subscription;
      try {
        changed = await changePriceNow(deps.gateway, {
          subscription: stripeSubId,
          itemId: itemIdOf(stripeSub),
          price,
          prorationDate,
          metadata,
          key: input.key,
        });
      } catch (error) {
        // Declined or needing the bank's authentication: Stripe changed nothing, the plan stays.
        if (isCardError(error)) throw new DomainError("card_declined", error.message, { field: "plan_id" });
        throw error;
      }
      const invoiceId = typeof changed.latest_invoice === "string" ? changed.latest_invoice : changed.latest_invoice?.id;
      const invoice = invoiceId ? await retrieveInvoice(deps.gateway, invoiceId) : null;
      if (invoice?.status === "paid") await recordStripeInvoice(deps, invoice, changed, plan, user.id);
      await followStripePlan(deps.db, { stripeSubId, planId: plan.id, scheduleId: null, now: deps.clock.now() });
      const amount = invoice?.amount_paid ?? 0;
      const summary = changeSummary({ kind, plan, invoice, currentEnd: periodEndOf(stripeSub), treatment });
      await deps.mail.deliver(
        planChangeEmail(user.email, { from: currentPlan.title, to: plan.title, at: null, summary, paidBy: "card" }, asLanguage(user.language)),
      );
      return {
        kind,
        subscription: await subscriptionRow(deps.db, Number(subscription.id)),
        amountPaidCents: amount,
        effectiveAt: now,
        summary,
        message: PLAN_CHANGE_MESSAGES.changed(plan.title),
        text: text("messages:planChanges.changed", { title: plan.title }),
      };
    }

    if (subscription.cancel_at_period_end) throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.notRenewing, { field: "plan_id" });
    // One pending change at a time: a new choice replaces the last.
    if (subscription.stripe_schedule_id) await releaseSchedule(deps.gateway, subscription.stripe_schedule_id).catch(() => undefined);
    const currentItem = stripeSub.items.data[0];
    if (!currentItem) throw new Error(`Subscription ${stripeSubId} has no item`);
    const schedule = await scheduleChangeAtRenewal(deps.gateway, {
      subscription: stripeSubId,
      currentPrice: currentItem.price.id,
      price,
      interval: stripeInterval(plan),
      metadata,
      key: input.key,
    });
    const effectiveAt = new Date((schedule.phases[1]?.start_date ?? currentItem.current_period_end) * 1000);
    await deps.db
      .updateTable("subscriptions")
      .set({
        pending_plan_id: plan.id,
        pending_change_at: effectiveAt.toISOString(),
        stripe_schedule_id: schedule.id,
        updated_at: deps.clock.now().toISOString(),
      })
      .where("id", "=", subscription.id)
      .execute();
    const summary = changeSummary({ kind, plan, invoice: null, currentEnd: effectiveAt, treatment });
    await deps.mail.deliver(
      planChangeEmail(user.email, { from: currentPlan.title, to: plan.title, at: effectiveAt, summary, paidBy: "card" }, asLanguage(user.language)),
    );
    return {
      kind,
      subscription: await subscriptionRow(deps.db, Number(subscription.id)),
      amountPaidCents: 0,
      effectiveAt,
      summary,
      message: PLAN_CHANGE_MESSAGES.scheduled(plan.title, formatDate(effectiveAt)),
      text: text("messages:planChanges.scheduled", { title: plan.title, date: { date: effectiveAt.toISOString() } }),
    };
  });
}

/** Keeps the current plan: the pending change at renewal is dropped (the schedule released). */
export function cancelPendingChange(deps: PaymentsDeps, user: User): Promise<{ subscription: Subscription; message: string }> {
  // Under the change's claim too: raced against a new change, it could clear the row of the schedule just made.
  return withPlanChangeClaim(deps, { userId: user.id, key: `keep-${randomUUID()}` }, () => keepCurrentPlan(deps, user));
}

function keepCurrentPlan(deps: PaymentsDeps, user: User): Promise<{ subscription: Subscription; message: string }> {
  return atGateway(deps, async () => {
    const subscription = await currentRecurringSubscription(deps.db, user.id, deps.clock.now());
    // PayPal's revise was approved by the customer there (decision 051): undoing it would be another revise to approve.
    if (subscription?.subscription_by === "paypal" && subscription.pending_plan_id !== null) {
      throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.approvedAtPayPal);
    }
    if (!subscription?.stripe_schedule_id) throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.nothingPending);
    await releaseSchedule(deps.gateway, subscription.stripe_schedule_id).catch((error) => {
      // Already released (by the webhook's own run, or at Stripe): the row is cleared below either way.
      if (isGatewayFailure(error)) throw error;
    });
    await deps.db
      .updateTable("subscriptions")
      .set({ pending_plan_id: null, pending_change_at: null, stripe_schedule_id: null, updated_at: deps.clock.now().toISOString() })
      .where("id", "=", subscription.id)
      .execute();
    return { subscription: await subscriptionRow(deps.db, Number(subscription.id)), message: PLAN_CHANGE_MESSAGES.kept };
  });
}
