import type { Database } from "../platform/db";
import { dialectOf } from "../platform/db";
import type { Plan, Subscription } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { isActiveAt } from "./plans";

/*
 * One recurring subscription per account (issue 20, docs/decisions/028), held where a subscription is
 * made: at completion (review issue 30, docs/decisions/044). The checks before a purchase
 * (subscription-guard.ts) keep most second purchases from starting, but a purchase started before
 * another finished (a PayPal approval in a second tab, a card paid while a PayPal checkout waited, a
 * 3-D Secure challenge or a hosted page answered late, a crypto invoice paid late) completes after it.
 * So every gateway records a new subscription through records.ts, whose transaction asks
 * `admitNewSubscription` first: of two completions at once the second sees the first's subscription
 * and is refused (SecondSubscriptionError); the gateway then gives the money back (cancel and refund)
 * and answers 409 subscription_exists.
 */

export const SUBSCRIPTION_MESSAGES = {
  exists: "You already have a subscription. Change your plan instead.",
  alreadyCurrent: "This is already your current plan.",
  changeInProgress: "Another change to your plan is still being processed. Please wait a moment and reload the page.",
  /** A second recurring plan whose payment was taken before the refusal: given back at the gateway. */
  refunded: "You already have a subscription, so this payment was refunded. Change your plan instead.",
  /** A crypto payment cannot be sent back by itself (it needs the buyer's address): it is recorded, not applied. */
  cryptoNotApplied:
    "You already have a subscription, so this crypto payment did not start a second one. Ask for your money back on the help page.",
} as const;

/** The account's recurring subscription that still runs (renewing or not, or past due within its grace period), if any. */
export async function currentRecurringSubscription(db: Database, userId: number, now: Date): Promise<Subscription | undefined> {
  return db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("billing_type", "=", "recurring")
    .where(isActiveAt(now))
    .orderBy("sub_exp_date", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** A completion refused because the account already has a running recurring subscription (`running`). */
export class SecondSubscriptionError extends DomainError {
  constructor(readonly running: Subscription) {
    super("subscription_exists", SUBSCRIPTION_MESSAGES.exists, { field: "planId" });
  }
}

export function isSecondSubscription(error: unknown): error is SecondSubscriptionError {
  return error instanceof SecondSubscriptionError;
}

/**
 * Serialises the recordings of one account's payments: the account's row is locked for the rest of
 * the transaction on PostgreSQL (NO KEY UPDATE, so inserts that only reference the account still
 * go on); SQLite runs one transaction at a time anyway.
 */
export async function lockAccount(trx: Database, userId: number): Promise<void> {
  if (dialectOf(trx) !== "postgres") return;
  await trx.selectFrom("users").select("id").where("id", "=", userId).forNoKeyUpdate().execute();
}

/**
 * The rule at completion, inside the transaction that is about to record a new subscription of
 * `plan` (after lockAccount): a recurring plan is refused while another recurring subscription runs.
 * The 5-year plan (one payment, never renewing) may be bought beside one (decision 028).
 */
export async function admitNewSubscription(trx: Database, input: { userId: number; plan: Pick<Plan, "billing_type">; now: Date }): Promise<void> {
  if (input.plan.billing_type !== "recurring") return;
  const running = await currentRecurringSubscription(trx, input.userId, input.now);
  if (running) throw new SecondSubscriptionError(running);
}

/** The refusal a gateway answers once it has given the money of a refused completion back. */
export function refundedRefusal(): DomainError {
  return new DomainError("subscription_exists", SUBSCRIPTION_MESSAGES.refunded, { field: "planId" });
}
