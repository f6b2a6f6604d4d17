import type { Database } from "../db";
import type { User } from "../db/schema";
import type { PaymentsDeps } from "../payments/card-payments";
import { isGatewayFailure, isInvalidRequest } from "../payments/stripe-client";
import { ApiError } from "./http";
import { revokeSessions } from "./sessions";

/*
 * Deleting an account (docs/decisions/015-account-deletion.md).
 *
 * 1. At the gateway first, every step idempotent so that a retry after a failure redoes nothing
 *    harmful: auto-renewal of each live card subscription is cancelled (cancel_at_period_end, the
 *    same switch as the billing page), each saved card is detached, and the Stripe customer's email,
 *    name, description and phone are unset.
 * 2. Then ONE database transaction: sessions (tokens, devices, desktop codes, one-time tokens),
 *    Google/Apple links, saved cards and emailed codes are deleted, and the user row is anonymised
 *    (email replaced by a tombstone that is not an email address, so it frees the UNIQUE email and
 *    can never sign in or receive a code). The row stays because transactions, invoices and
 *    subscriptions — kept as the law requires — reference it; they then point to no personal data.
 *    refund_guarantee_uses (hashes of the email and card of a refund, with no account id) is left as
 *    it is: it keeps the money-back guarantee once per customer (docs/decisions/016).
 */

export const DELETION_MESSAGES = {
  deleted: "Your account has been deleted.",
  codeSent: "We have emailed you a code to confirm.",
  codeNotSent: "Failed to send the code. Please try again.",
  wrongPassword: "The password is incorrect.",
  passwordRequired: "Please enter your password.",
  codeRequired: "Please enter the 6-digit verification code",
  hasPassword: "Your account has a password: confirm with your password.",
  gatewayFailed: "We could not reach the payment provider, so nothing was deleted. Please try again.",
  tooManyTries: (minutes: number) => `Too many wrong passwords. Please try again in ${minutes} minutes.`,
} as const;

/** Wrong passwords on the delete form, per account, before it is refused for a while. */
export const DELETION_MAX_WRONG_PASSWORDS = 5;
export const DELETION_WRONG_PASSWORD_WINDOW_SECONDS = 900;

export function deletionFailureKey(userId: number): string {
  return `account-delete-fail:user:${userId}`;
}

/** The email a deleted account keeps: unique, and not an address (so no sign-in or code reaches it). */
export function tombstoneEmail(userId: number): string {
  return `deleted-account-${userId}`;
}

/** At Stripe: cancels auto-renewal of the user's live card subscriptions, detaches the saved cards and erases the customer's personal data. */
export async function releaseGatewayResources(deps: PaymentsDeps, userId: number): Promise<void> {
  const now = deps.clock.now().toISOString();
  try {
    const renewing = await deps.db
      .selectFrom("subscriptions")
      .select("stripe_sub_id")
      .where("user_id", "=", userId)
      .where("subscription_by", "=", "stripe")
      .where("billing_type", "=", "recurring")
      .where("stripe_sub_id", "is not", null)
      .where("sub_exp_date", ">", now)
      .execute();
    for (const { stripe_sub_id } of renewing) {
      try {
        await deps.gateway.stripe.subscriptions.update(stripe_sub_id!, { cancel_at_period_end: true });
      } catch (error) {
        // Already canceled at Stripe: it will not renew, which is what we want.
        if (!isInvalidRequest(error)) throw error;
      }
    }
    const cards = await deps.db.selectFrom("payment_methods").select("payment_method_id").where("user_id", "=", userId).execute();
    for (const { payment_method_id } of cards) {
      try {
        await deps.gateway.stripe.paymentMethods.detach(payment_method_id);
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
        await deps.gateway.stripe.customers.update(stripe_customer_id, { email: "", name: "", description: "", phone: "" });
      } catch (error) {
        // Deleted at Stripe already: nothing personal left there.
        if (!isInvalidRequest(error)) throw error;
      }
    }
  } catch (error) {
    if (isGatewayFailure(error)) throw new ApiError(502, DELETION_MESSAGES.gatewayFailed);
    throw error;
  }
}

/** The database part, in one transaction: a failure half-way leaves the account as it was. */
export async function eraseAccount(db: Database, user: Pick<User, "id" | "email">, nowIso: string): Promise<void> {
  const userId = user.id;
  await db.transaction().execute(async (trx) => {
    // Like every other end of sessions (then the rows themselves go).
    await revokeSessions(trx, { userId, all: true });
    await trx.deleteFrom("desktop_codes").where("user_id", "=", userId).execute();
    await trx.deleteFrom("tokens").where("user_id", "=", userId).execute();
    await trx.deleteFrom("devices").where("user_id", "=", userId).execute();
    await trx.deleteFrom("one_time_tokens").where("user_id", "=", userId).execute();
    await trx.deleteFrom("account_links").where("user_id", "=", userId).execute();
    // Two-factor secret, recovery codes and waiting sign-ins (docs/decisions/017).
    await trx.deleteFrom("two_factor_challenges").where("user_id", "=", userId).execute();
    await trx.deleteFrom("two_factor_recovery_codes").where("user_id", "=", userId).execute();
    await trx.deleteFrom("two_factor").where("user_id", "=", userId).execute();
    await trx.deleteFrom("payment_methods").where("user_id", "=", userId).execute();
    await trx.deleteFrom("verification_codes").where("email", "=", user.email).execute();
    // Kept payment records: no email in them, and nothing renews or is invoiced again.
    await trx.updateTable("crypto_invoices").set({ email: "" }).where("user_id", "=", userId).execute();
    await trx
      .updateTable("subscriptions")
      .set({ cancel_at_period_end: 1, updated_at: nowIso })
      .where("user_id", "=", userId)
      .where("cancel_at_period_end", "=", 0)
      .execute();
    const erased = await trx
      .updateTable("users")
      .set({
        email: tombstoneEmail(userId),
        name: null,
        password_hash: null,
        email_verified_at: null,
        agreement_at: null,
        newsletter: 0,
        newsletter_at: null,
        stripe_customer_id: null,
        deleted_at: nowIso,
        updated_at: nowIso,
      })
      .where("id", "=", userId)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    // A parallel deletion won: its transaction did the same work.
    if (Number(erased.numUpdatedRows) === 0) throw new ApiError(401, "Unauthenticated.");
  });
}
