import type { Clock } from "../platform/clock";
import type { Database } from "../platform/db";
import type { Logger } from "../platform/logger";
import { isActiveAt } from "./plans";
import { type Stripe, type StripeSetup, isInvalidRequest } from "./stripe/client";
import { setDefaultCardOfCustomer } from "./stripe/customers";
import { setCardOfSubscription } from "./stripe/subscriptions";

/*
 * One setting, not two (issue 21): the account's default card is the card that pays its card
 * subscription's renewals. Stripe holds that in two places (the customer's
 * invoice_settings.default_payment_method and the subscription's default_payment_method, which wins),
 * and our payment_methods.is_default is what the portal shows; every change here writes all three.
 */

type Deps = { db: Database; clock: Clock; logger: Logger; gateway: StripeSetup };

/**
 * Makes `card` (a saved card of `userId`) the default: the customer's invoice default, the card of every
 * card subscription of the account that can still charge (auto-renewal on or off, past due included),
 * then the only card with is_default. Stripe first, so that a refusal there leaves our record unchanged.
 */
export async function makeRenewalCard(deps: Deps, userId: number, customer: string, card: { id: number; payment_method_id: string }): Promise<void> {
  await setDefaultCardOfCustomer(deps.gateway, customer, card.payment_method_id);
  const now = deps.clock.now();
  const subscriptions = await deps.db
    .selectFrom("subscriptions")
    .select("stripe_sub_id")
    .where("user_id", "=", userId)
    .where("subscription_by", "=", "stripe")
    .where("billing_type", "=", "recurring")
    .where("stripe_sub_id", "is not", null)
    .where(isActiveAt(now))
    .execute();
  for (const { stripe_sub_id } of subscriptions) {
    try {
      await setCardOfSubscription(deps.gateway, stripe_sub_id!, card.payment_method_id);
    } catch (error) {
      // Ended at Stripe already (our row follows its webhook): it charges nothing more.
      if (!isInvalidRequest(error)) throw error;
      deps.logger.warn(`Could not change the card of ${stripe_sub_id}: ${String(error)}`);
    }
  }
  const at = now.toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await trx
      .updateTable("payment_methods")
      .set({ is_default: 0, updated_at: at })
      .where("user_id", "=", userId)
      .where("id", "!=", card.id)
      .where("is_default", "=", 1)
      .execute();
    await trx.updateTable("payment_methods").set({ is_default: 1, updated_at: at }).where("id", "=", card.id).execute();
  });
}

/**
 * A paid invoice of a card subscription: Stripe made the card that paid it the subscription's card
 * (save_default_payment_method on_subscription), so that card becomes the account's default too. A new
 * plan bought with a second card, or an unpaid renewal paid with another card, then shows on that card.
 */
export async function followSubscriptionCard(deps: Deps, userId: number, subscription: Stripe.Subscription): Promise<void> {
  const pm = subscription.default_payment_method;
  const paymentMethodId = typeof pm === "string" ? pm : (pm?.id ?? null);
  const customer = typeof subscription.customer === "string" ? subscription.customer : subscription.customer.id;
  if (!paymentMethodId || subscription.status === "canceled" || subscription.status === "incomplete_expired") return;
  const card = await deps.db
    .selectFrom("payment_methods")
    .select(["id", "payment_method_id", "is_default"])
    .where("user_id", "=", userId)
    .where("payment_method_id", "=", paymentMethodId)
    .executeTakeFirst();
  if (!card || card.is_default === 1) return;
  await makeRenewalCard(deps, userId, customer, { id: Number(card.id), payment_method_id: card.payment_method_id });
}
