import { z } from "zod";
import type { Database } from "../platform/db";
import { renewsAutomatically } from "../payments/gateway";
import { formatUsd } from "../payments/money";
import { activeSubscription } from "../payments/plans";
import { REFUND_WINDOW_DAYS, refundEligibility } from "./refunds";
import { historyPageOf } from "./transactions";

/*
 * What deleting the account loses (issue 33, docs/decisions/015): the paid days left of the active
 * plan, and, while the money-back guarantee still covers a payment, the refund to ask for first. The
 * API counts both at its own clock; the delete page only words them.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export const PaidPlanLossSchema = z
  .strictObject({
    title: z.string().meta({ examples: ["1 Year"] }),
    paid_until: z.string().meta({ format: "date-time", description: "The end of the paid period (the subscription's sub_exp_date)." }),
    days_left: z.int().meta({
      description: "Whole days from the API's now to paid_until, a started day counting as a day (as the account home's 'Days Left'); at least 1.",
      examples: [143],
    }),
    auto_renews: z.boolean().meta({ description: "The plan renews by itself now; deleting the account stops it, so nothing is charged again." }),
  })
  .nullable()
  .meta({ id: "PaidPlanLoss", description: "The active plan's paid days that deleting the account gives up; null without an active plan or paid days left." });

export const RefundOfferSchema = z
  .strictObject({
    transaction_id: z.int().meta({ description: "The payment to refund: POST /api/billing/transactions/{id}/refund." }),
    history_page: z.int().meta({ description: "The page of POST /api/billing/transactions (default page size) that lists it." }),
    paid_at: z.string().meta({ format: "date-time" }),
    days_since_payment: z.int().meta({ description: "Whole days since paid_at at the API's now (0 on the day of the payment).", examples: [12] }),
    refundable_until: z.string().meta({ format: "date-time", description: `paid_at plus ${REFUND_WINDOW_DAYS} days.` }),
    amount: z.string().meta({ examples: ["$71.88"] }),
    amount_cents: z.int(),
  })
  .nullable()
  .meta({
    id: "RefundOffer",
    description: `The payment the ${REFUND_WINDOW_DAYS}-day money-back guarantee still refunds (the rule of the refund itself), offered before deleting; null when none.`,
  });

export type PaidPlanLoss = z.infer<typeof PaidPlanLossSchema>;
export type RefundOffer = z.infer<typeof RefundOfferSchema>;

/** Whole days until `end`, a started day counting as a day, as the account home counts them. */
function daysUntil(end: string, now: Date): number {
  const ms = new Date(end).getTime() - now.getTime();
  return ms > 0 ? Math.ceil(ms / DAY_MS) : 0;
}

export async function paidPlanLossOf(db: Database, userId: number, now: Date): Promise<PaidPlanLoss> {
  const subscription = await activeSubscription(db, userId, now);
  // Within a grace period (a renewal unpaid) the plan is kept but no day of it is paid.
  const daysLeft = subscription ? daysUntil(subscription.sub_exp_date, now) : 0;
  if (!subscription || daysLeft === 0) return null;
  return {
    title: subscription.title,
    paid_until: subscription.sub_exp_date,
    days_left: daysLeft,
    auto_renews: renewsAutomatically(subscription),
  };
}

/** The refund the guarantee allows now, by refundEligibility (the refund's own rule), or null. */
export async function refundOfferOf(db: Database, userId: number, now: Date): Promise<RefundOffer> {
  const eligibility = await refundEligibility(db, userId, now);
  if (!eligibility.ok) return null;
  const { transaction } = eligibility;
  const paidAt = new Date(transaction.created_at);
  const id = Number(transaction.id);
  return {
    transaction_id: id,
    history_page: await historyPageOf(db, userId, id),
    paid_at: transaction.created_at,
    days_since_payment: Math.max(0, Math.floor((now.getTime() - paidAt.getTime()) / DAY_MS)),
    refundable_until: new Date(paidAt.getTime() + REFUND_WINDOW_DAYS * DAY_MS).toISOString(),
    amount: formatUsd(transaction.amount_cents),
    amount_cents: transaction.amount_cents,
  };
}
