import type { Database } from "../platform/db";
import type { Plan } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import type { Logger } from "../platform/logger";
import { SUBSCRIPTION_MESSAGES, currentRecurringSubscription } from "./one-subscription";
import { isActiveAt } from "./plans";
import { NOT_RENEWING, recordSubscriptionState } from "./records";
import { releaseCouponHold } from "./coupons";
import { type PayPalClient, PayPalApiError, cancelSubscription, getSubscription, isPayPalFailure, suspendSubscription } from "./paypal/client";
import type { StripeSetup } from "./stripe/client";
import { setRenewal } from "./stripe/subscriptions";

/*
 * One recurring subscription per account (issue 20, docs/decisions/028): a subscriber who wants
 * another recurring plan changes plan (plan-changes.ts) instead of buying a second subscription that
 * would bill alongside the first. Every path that could make one (card, hosted Checkout, wallets,
 * crypto) asks here first; a purchase of a recurring plan also takes the account's claim row
 * (subscription_claims, primary key user_id) for its duration, so two purchases at once cannot
 * both pass the check. The same rule holds again at completion (one-subscription.ts), for what
 * completes after another purchase all the same.
 */

/** How long a purchase holds the claim when it waits for the bank (3-D Secure) after answering. */
export const PURCHASE_CLAIM_MS = 15 * 60_000;

/** The claim key's prefix while its purchase waits for the bank. */
const AUTHENTICATING = "authenticating:";

/** How long a plan change holds the account's claim at most: a crashed instance's claim is taken over after it. */
export const PLAN_CHANGE_CLAIM_MS = 2 * 60_000;

/** 409 subscription_exists when buying `plan` would make a second recurring subscription. */
export async function refuseSecondSubscription(
  db: Database,
  userId: number,
  plan: Pick<Plan, "billing_type"> & Partial<Pick<Plan, "id">>,
  now: Date,
): Promise<void> {
  if (plan.billing_type !== "recurring") return;
  const current = await currentRecurringSubscription(db, userId, now);
  // The same plan, still renewing: the more telling refusal (card-payments.ts says it too).
  if (current && "id" in plan && Number(current.plan_id) === Number(plan.id) && !current.cancel_at_period_end) {
    throw new DomainError("plan_already_current", SUBSCRIPTION_MESSAGES.alreadyCurrent, { field: "planId" });
  }
  if (current) {
    throw new DomainError("subscription_exists", SUBSCRIPTION_MESSAGES.exists, { field: "planId" });
  }
}

/**
 * Takes the account's purchase claim for `key` (a retry with the same key keeps it; an expired one
 * is taken over). The primary key makes it atomic on SQLite and PostgreSQL alike.
 */
async function claim(db: Database, userId: number, key: string, now: Date, holdMs: number): Promise<boolean> {
  const nowIso = now.toISOString();
  const expires = new Date(now.getTime() + holdMs).toISOString();
  const written = await db
    .insertInto("subscription_claims")
    .values({ user_id: userId, claim_key: key, expires_at: expires })
    .onConflict((oc) =>
      oc
        .column("user_id")
        .doUpdateSet({ claim_key: key, expires_at: expires })
        .where((eb) =>
          eb.or([
            eb("subscription_claims.expires_at", "<=", nowIso),
            eb("subscription_claims.claim_key", "=", key),
            // An attempt that only waits for the bank is not a purchase in flight: a new attempt (another card,
            // or the same after a failed challenge) takes over, and card-payments cancels the unfinished one
            // before it creates anything, so the late answer of the old challenge cannot charge.
            eb("subscription_claims.claim_key", "like", `${AUTHENTICATING}%`),
          ]),
        ),
    )
    // What this statement wrote, not a read after it: a parallel request with the same key may mark the claim
    // authenticating in between, and a second read would see that key and refuse its own purchase (409).
    .returning("claim_key")
    .executeTakeFirst();
  return written?.claim_key === key;
}

/** Marks a claim whose purchase now only waits for the bank's authentication (see `claim`). */
async function markAuthenticating(db: Database, userId: number, key: string): Promise<void> {
  await db
    .updateTable("subscription_claims")
    .set({ claim_key: `${AUTHENTICATING}${key}` })
    .where("user_id", "=", userId)
    .where("claim_key", "=", key)
    .execute();
}

async function release(db: Database, userId: number, key: string): Promise<void> {
  await db.deleteFrom("subscription_claims").where("user_id", "=", userId).where("claim_key", "=", key).execute();
}

interface PendingDeps {
  db: Database;
  clock: { now(): Date };
  logger?: Logger;
  /** PayPal, while it is on: its pending checkouts end when a newer purchase starts. */
  paypal?: PayPalClient | null;
}

/**
 * A new purchase of a recurring plan ends the account's PayPal checkouts of one that still wait for
 * the buyer (review issue 30): only the newest attempt may pay, as with Stripe's hosted pages
 * (card-payments.ts expires them). An order is simply never captured (our row is cancelled: nothing
 * is charged). A subscription is cancelled at PayPal too where PayPal lets us; PayPal refuses to
 * cancel one before it is approved (422), and approving it charges at once, so whatever it pays later
 * is given back when it comes back (paypal/payments.ts). One PayPal already charged for (ACTIVE, its
 * return or webhook not yet recorded) stays: it completes, and the rule at completion
 * (one-subscription.ts) refuses whichever subscription comes second. `claimKey`: this purchase's
 * (a double submit of the same PayPal checkout does not end itself).
 */
export async function endPendingPayPalCheckouts(deps: PendingDeps, userId: number, claimKey: string): Promise<void> {
  if (!deps.paypal) return;
  const pending = await deps.db
    .selectFrom("paypal_checkouts")
    .innerJoin("plans", "plans.id", "paypal_checkouts.plan_id")
    .selectAll("paypal_checkouts")
    .where("paypal_checkouts.user_id", "=", userId)
    .where("paypal_checkouts.status", "=", "created")
    .where("plans.billing_type", "=", "recurring")
    .execute();
  for (const row of pending) {
    if (`paypal:${row.idempotency_key}` === claimKey) continue;
    if (row.kind === "subscription" && row.paypal_id) {
      try {
        const sub = await getSubscription(deps.paypal, row.paypal_id);
        if (sub.status !== "APPROVAL_PENDING" && sub.status !== "APPROVED") continue;
        await cancelSubscription(deps.paypal, row.paypal_id, "Replaced by a newer checkout.").catch((error) => {
          if (!(error instanceof PayPalApiError) || isPayPalFailure(error)) throw error;
        });
      } catch (error) {
        // PayPal did not answer: the checkout stays open; the rule at completion still holds.
        deps.logger?.warn(`Could not end the PayPal checkout ${row.checkout_id}: ${String(error)}`);
        continue;
      }
    }
    const now = deps.clock.now();
    await deps.db
      .updateTable("paypal_checkouts")
      .set({ status: "cancelled", failure_message: "Replaced by a newer checkout.", updated_at: now.toISOString() })
      .where("id", "=", row.id)
      .where("status", "=", "created")
      .execute();
    await releaseCouponHold(deps.db, row.coupon_hold_key, now);
  }
}

/**
 * Runs a purchase of a recurring plan under the account's claim: refused (409) when another purchase
 * holds it or a recurring subscription already runs. The claim is given back when the work is over,
 * except while the bank's authentication is pending (`keep`): then it holds against other purchases of
 * another kind for PURCHASE_CLAIM_MS, but a new card attempt may take it over.
 */
export async function withPurchaseClaim<T>(
  deps: PendingDeps,
  input: { userId: number; plan: Pick<Plan, "billing_type" | "id">; key: string; keep?: (outcome: T) => boolean },
  work: () => Promise<T>,
): Promise<T> {
  if (input.plan.billing_type !== "recurring") return work();
  const now = deps.clock.now();
  if (!(await claim(deps.db, input.userId, input.key, now, PURCHASE_CLAIM_MS))) {
    throw new DomainError("subscription_exists", SUBSCRIPTION_MESSAGES.exists, { field: "planId" });
  }
  let outcome: T;
  try {
    await refuseSecondSubscription(deps.db, input.userId, input.plan, now);
    // The newest attempt is the purchase: a PayPal checkout still waiting for its approval ends.
    await endPendingPayPalCheckouts(deps, input.userId, input.key);
    outcome = await work();
  } catch (error) {
    await release(deps.db, input.userId, input.key);
    throw error;
  }
  if (input.keep?.(outcome)) await markAuthenticating(deps.db, input.userId, input.key);
  else await release(deps.db, input.userId, input.key);
  return outcome;
}

/**
 * Runs a change of the account's plan (or of its pending change) under the account's claim, so that
 * each change decides against the plan the one before it left: two at once would each read the same
 * current plan, and each charge, or leave our row and Stripe apart. Refused 409 plan_change_in_progress
 * while another change or a purchase holds it; given back when the work is over (or, after a crash,
 * taken over once PLAN_CHANGE_CLAIM_MS have passed).
 */
export async function withPlanChangeClaim<T>(
  deps: { db: Database; clock: { now(): Date } },
  input: { userId: number; key: string },
  work: () => Promise<T>,
): Promise<T> {
  const key = `plan-change:${input.key}`;
  if (!(await claim(deps.db, input.userId, key, deps.clock.now(), PLAN_CHANGE_CLAIM_MS))) {
    throw new DomainError("plan_change_in_progress", SUBSCRIPTION_MESSAGES.changeInProgress);
  }
  try {
    return await work();
  } finally {
    await release(deps.db, input.userId, key);
  }
}

/**
 * The 5-year one-time plan bought while a recurring plan runs: the recurring one stops renewing (its
 * paid period runs out), so the account is never billed for both, whichever gateway bills it: a card
 * subscription's renewal is turned off at Stripe, a PayPal subscription is suspended at PayPal (when
 * PayPal is on). `keep` is the subscription just bought. Idempotent.
 */
export async function endRecurringRenewal(
  deps: { db: Database; clock: { now(): Date }; gateway: StripeSetup | null; paypal?: PayPalClient | null; logger: Logger },
  userId: number,
  keep?: number,
): Promise<void> {
  const now = deps.clock.now();
  let query = deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("billing_type", "=", "recurring")
    .where("subscription_by", "in", ["stripe", "paypal"])
    .where("cancel_at_period_end", "=", 0)
    .where(isActiveAt(now));
  if (keep !== undefined) query = query.where("id", "!=", keep);
  for (const row of await query.execute()) {
    if (row.subscription_by === "paypal") {
      if (row.paypal_sub_id && deps.paypal) await suspendPayPalRenewal(deps, row.paypal_sub_id, now);
      continue;
    }
    if (!row.stripe_sub_id || !deps.gateway) continue;
    try {
      await setRenewal(deps.gateway, row.stripe_sub_id, false);
    } catch (error) {
      // Stripe refused (already ended there): our row follows its webhook; nothing to stop.
      deps.logger.warn(`Could not turn off the renewal of ${row.stripe_sub_id}: ${String(error)}`);
      continue;
    }
    await recordSubscriptionState(deps.db, { stripeSubId: row.stripe_sub_id, renewing: false, now });
  }
}

async function suspendPayPalRenewal(deps: { db: Database; paypal?: PayPalClient | null; logger: Logger }, paypalSubId: string, now: Date) {
  try {
    await suspendSubscription(deps.paypal!, paypalSubId, "Replaced by a one-time plan.");
  } catch (error) {
    // Already suspended or ended at PayPal (422) is what we want; anything else leaves the row as it is.
    if (!(error instanceof PayPalApiError) || error.status !== 422) {
      deps.logger.warn(`Could not suspend ${paypalSubId}: ${String(error)}`);
      return;
    }
  }
  await deps.db
    .updateTable("subscriptions")
    .set({ subs_status: NOT_RENEWING, cancel_at_period_end: 1, updated_at: now.toISOString() })
    .where("paypal_sub_id", "=", paypalSubId)
    .execute();
}
