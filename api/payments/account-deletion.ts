import { DELETION_MESSAGES } from "../identity/account-deletion";
import { DomainError } from "../platform/errors";
import type { PaymentsDeps } from "./card-payments";
import { detachCard } from "./stripe/cards";
import { isGatewayFailure, isInvalidRequest } from "./stripe/client";
import { eraseCustomerPersonalData } from "./stripe/customers";
import { setRenewal } from "./stripe/subscriptions";
import { isActiveAt } from "./plans";
import { type PayPalDeps, cancelPayPalSubscription } from "./paypal/payments";

// The gateway half of deleting an account (docs/decisions/015-account-deletion.md); identity's
// eraseAccount does the database half after it.

/** At PayPal: cancels the user's PayPal subscriptions (PayPal bills no more; the paid period is the account's until it is deleted). */
export async function releasePayPalResources(deps: PayPalDeps | null, userId: number): Promise<void> {
  const renewing = await (deps?.db
    .selectFrom("subscriptions")
    .select("paypal_sub_id")
    .where("user_id", "=", userId)
    .where("subscription_by", "=", "paypal")
    .where("paypal_sub_id", "is not", null)
    .execute() ?? []);
  if (!deps || renewing.length === 0) return;
  for (const { paypal_sub_id } of renewing) {
    try {
      await cancelPayPalSubscription(deps, paypal_sub_id!, "The customer deleted the account.");
    } catch {
      throw new DomainError("gateway_failed", DELETION_MESSAGES.gatewayFailed);
    }
  }
}

/** At Stripe: cancels auto-renewal of the user's live card subscriptions, detaches the saved cards and erases the customer's personal data. */
export async function releaseGatewayResources(deps: PaymentsDeps, userId: number): Promise<void> {
  try {
    const renewing = await deps.db
      .selectFrom("subscriptions")
      .select("stripe_sub_id")
      .where("user_id", "=", userId)
      .where("subscription_by", "=", "stripe")
      .where("billing_type", "=", "recurring")
      .where("stripe_sub_id", "is not", null)
      .where(isActiveAt(deps.clock.now()))
      .execute();
    for (const { stripe_sub_id } of renewing) {
      try {
        await setRenewal(deps.gateway, stripe_sub_id!, false);
      } catch (error) {
        // Already canceled at Stripe: it will not renew, which is what we want.
        if (!isInvalidRequest(error)) throw error;
      }
    }
    const cards = await deps.db.selectFrom("payment_methods").select("payment_method_id").where("user_id", "=", userId).execute();
    for (const { payment_method_id } of cards) {
      try {
        await detachCard(deps.gateway, payment_method_id);
      } catch (error) {
        // Already detached (or gone) at Stripe.
        if (!isInvalidRequest(error)) throw error;
      }
    }
    // The customer at Stripe keeps its payment history (kept as the law requires) but no personal
    // data: email, name, description and phone are unset ("" unsets a field in Stripe's API).
    const { stripe_customer_id } = await deps.db.selectFrom("users").select("stripe_customer_id").where("id", "=", userId).executeTakeFirstOrThrow();
    if (stripe_customer_id) {
      try {
        await eraseCustomerPersonalData(deps.gateway, stripe_customer_id);
      } catch (error) {
        // Deleted at Stripe already: nothing personal left there.
        if (!isInvalidRequest(error)) throw error;
      }
    }
  } catch (error) {
    if (isGatewayFailure(error)) throw new DomainError("gateway_failed", DELETION_MESSAGES.gatewayFailed);
    throw error;
  }
}
