import type { Plan, Subscription, User } from "../../platform/db/schema";
import { asLanguage, text } from "../../platform/i18n";
import { DomainError } from "../../platform/errors";
import type { MailService } from "../../platform/mailer";
import { currentRecurringSubscription } from "../one-subscription";
import { PLAN_CHANGE_MESSAGES, type PlanChangePreview, type PlanChangeResult, changeSummary, planChangeEmail } from "../plan-changes";
import { formatDate } from "../../platform/dates";
import { findPlan } from "../plans";
import { withPlanChangeClaim } from "../subscription-guard";
import { PayPalApiError, getSubscription, isPayPalFailure, reviseSubscription } from "./client";
import { type PayPalDeps, billedAsSubscription, ensureBillingPlan, followPayPalPlan, payPalSubscriptionTreatment, revisedCyclePricesOf } from "./payments";
import type { TaxTreatment } from "../tax";

/*
 * Changing the plan of a PayPal subscription (issue 32, docs/decisions/051), through PayPal's revise
 * (POST /v1/billing/subscriptions/{id}/revise): the buyer consents on PayPal's approve link and comes back
 * to the checkout page, which confirms here. PayPal applies a revised plan from the next billing cycle and
 * prorates nothing, so a PayPal change is always at the renewal: nothing charged now, the paid-through date
 * kept, and the renewal then buys the new plan's card (its months and free months, records via recordSale).
 * The three figures come from changeSummary, as for a card.
 */

export const PAYPAL_CHANGE_MESSAGES = {
  paidOnce: "This plan was paid once with PayPal and does not renew: it cannot be changed. Choose a new plan when it ends.",
  notBilledBySubscription:
    "PayPal bills the 2-year plan as one payment, not as a subscription: a PayPal subscription cannot be changed to it. Choose it when your current plan ends.",
  notApproved: "The plan change was not approved at PayPal. Your plan stays as it was.",
} as const;

/** The return paths PayPal may send the browser back to (the plan's checkout). */
const RETURN_PATH = /^\/subscription\/payment\/\d{1,15}$/;

function gatewayFailed(deps: PayPalDeps, error: unknown): DomainError {
  deps.logger.error(`PayPal plan change failed: ${error instanceof Error ? error.message : String(error)}`);
  return new DomainError("gateway_failed", "PayPal could not be reached. Please try again.");
}

async function atPayPal<T>(deps: PayPalDeps, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) throw error;
    // Not answering, or refusing what we asked: nothing changed at PayPal.
    if (isPayPalFailure(error) || error instanceof PayPalApiError) throw gatewayFailed(deps, error);
    throw error;
  }
}

/** Whether the account's current recurring plan is a PayPal subscription (its changes go through here). */
export async function isPayPalSubscriber(deps: Pick<PayPalDeps, "db" | "clock">, user: User): Promise<boolean> {
  const subscription = await currentRecurringSubscription(deps.db, user.id, deps.clock.now());
  return subscription?.subscription_by === "paypal";
}

async function context(deps: PayPalDeps, user: User, planId: number) {
  const subscription = await currentRecurringSubscription(deps.db, user.id, deps.clock.now());
  if (subscription?.subscription_by !== "paypal") throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.noSubscription);
  if (subscription.past_due_since) throw new DomainError("payment_past_due", PLAN_CHANGE_MESSAGES.pastDue);
  if (!subscription.paypal_sub_id) throw new DomainError("plan_change_invalid", PAYPAL_CHANGE_MESSAGES.paidOnce);
  const plan = await findPlan(deps.db, planId);
  if (!plan) throw new DomainError("not_found", "Plan not found.", { field: "plan_id" });
  if (plan.billing_type !== "recurring") throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.oneTime, { field: "plan_id" });
  if (!billedAsSubscription(plan)) throw new DomainError("plan_change_invalid", PAYPAL_CHANGE_MESSAGES.notBilledBySubscription, { field: "plan_id" });
  if (plan.id === subscription.plan_id) throw new DomainError("plan_already_current", PLAN_CHANGE_MESSAGES.samePlan, { field: "plan_id" });
  const currentPlan = await findPlan(deps.db, Number(subscription.plan_id));
  if (!currentPlan) throw new Error(`Subscription ${subscription.id} names no plan`);
  return { subscription, plan, currentPlan, paypalSubId: subscription.paypal_sub_id };
}

/** What changing to `planId` means: from the next billing, nothing now (PayPal prorates nothing). */
function previewOf(subscription: Subscription, currentPlan: Plan, plan: Plan, treatment: TaxTreatment): PlanChangePreview {
  const effectiveAt = new Date(subscription.sub_exp_date);
  return {
    kind: "at_renewal",
    currentPlan,
    plan,
    amountDueCents: 0,
    prorationDate: null,
    effectiveAt,
    subscription,
    summary: changeSummary({ kind: "at_renewal", plan, invoice: null, currentEnd: effectiveAt, treatment }),
  };
}

export async function previewPayPalPlanChange(deps: PayPalDeps, user: User, planId: number): Promise<PlanChangePreview> {
  const { subscription, plan, currentPlan, paypalSubId } = await context(deps, user, planId);
  return previewOf(subscription, currentPlan, plan, await payPalSubscriptionTreatment(deps, paypalSubId));
}

/**
 * Asks PayPal to revise the subscription to the plan's billing plan: answers PayPal's approve link, where
 * the buyer consents; PayPal sends them back to `returnPath` with `plan_change=<key>` (and `paypal=cancel`
 * when they cancelled). Nothing changes until they approve.
 */
export function startPayPalPlanChange(
  deps: PayPalDeps,
  user: User,
  input: { planId: number; returnPath: string; key: string },
): Promise<{ approveUrl: string }> {
  if (!RETURN_PATH.test(input.returnPath)) throw new DomainError("validation_failed", "The return path is not a checkout page.", { field: "return_path" });
  return withPlanChangeClaim(deps, { userId: user.id, key: `paypal-${input.key}` }, () =>
    atPayPal(deps, async () => {
      const { subscription, plan, paypalSubId } = await context(deps, user, input.planId);
      if (subscription.cancel_at_period_end) throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.notRenewing, { field: "plan_id" });
      const back = `${deps.publicUrl}${input.returnPath}?plan_change=${encodeURIComponent(input.key)}`;
      const revised = await reviseSubscription(deps.client, {
        id: paypalSubId,
        planId: await ensureBillingPlan(deps, plan),
        cyclePrices: revisedCyclePricesOf(plan, await payPalSubscriptionTreatment(deps, paypalSubId)),
        returnUrl: back,
        cancelUrl: `${back}&paypal=cancel`,
        brandName: deps.brandName,
      });
      if (!revised.approveUrl) throw gatewayFailed(deps, new Error("no approval link"));
      return { approveUrl: revised.approveUrl };
    }),
  );
}

/**
 * Back from PayPal: the change is the subscription's once PayPal has it on the new plan (the buyer
 * approved); the row keeps it as the change at the next renewal, the confirmation email goes out, and the
 * result states the same three figures as the preview. Not approved: refused, nothing changed.
 */
export function confirmPayPalPlanChange(deps: PayPalDeps & { mail: MailService }, user: User, input: { planId: number }): Promise<PlanChangeResult> {
  return atPayPal(deps, async () => {
    const current = await currentRecurringSubscription(deps.db, user.id, deps.clock.now());
    // Approved and already followed (the webhook came first): the row names the change as pending.
    const pendingAlready = current?.pending_plan_id !== null && Number(current?.pending_plan_id) === input.planId;
    const { subscription, plan, currentPlan, paypalSubId } = await context(deps, user, input.planId);
    const atPayPalNow = await getSubscription(deps.client, paypalSubId);
    const wanted = await ensureBillingPlan(deps, plan);
    if (atPayPalNow.planId !== wanted) throw new DomainError("plan_change_invalid", PAYPAL_CHANGE_MESSAGES.notApproved, { field: "plan_id" });
    const row = pendingAlready ? subscription : ((await followPayPalPlan(deps, paypalSubId)) ?? subscription);
    const preview = previewOf(row, currentPlan, plan, await payPalSubscriptionTreatment(deps, paypalSubId));
    await deps.mail.deliver(
      planChangeEmail(
        user.email,
        { from: currentPlan.title, to: plan.title, at: new Date(preview.effectiveAt), summary: preview.summary, paidBy: "paypal" },
        asLanguage(user.language),
      ),
    );
    return {
      kind: "at_renewal",
      subscription: row,
      amountPaidCents: 0,
      effectiveAt: preview.effectiveAt,
      summary: preview.summary,
      message: PLAN_CHANGE_MESSAGES.scheduled(plan.title, formatDate(preview.effectiveAt)),
      text: text("messages:planChanges.scheduled", { title: plan.title, date: { date: new Date(preview.effectiveAt).toISOString() } }),
    };
  });
}
