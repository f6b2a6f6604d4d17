import { type Database, dialectOf } from "../platform/db";
import type { User } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { revokeSessions } from "./sessions";

/*
 * Deleting an account (docs/decisions/015-account-deletion.md).
 *
 * 1. At the gateway first (api/payments/account-deletion.ts), every step idempotent so that a retry after a failure redoes nothing
 *    harmful: auto-renewal of each live card subscription is cancelled (cancel_at_period_end, the
 *    same switch as the billing page), each saved card is detached, and the Stripe customer's email,
 *    name, description and phone are unset.
 * 2. Then ONE database transaction: every credential (sessions: tokens, devices, desktop codes;
 *    one-time tokens; Google/Apple links; passkeys and their pending challenges; two-factor; the
 *    device keys of the sign-in alerts; pending email changes and codes), the security log and saved
 *    cards are deleted, and the user row is anonymised (email replaced by a tombstone that is not an
 *    email address, so it frees the UNIQUE email and can never sign in or receive a code). The row
 *    stays because transactions, invoices and subscriptions — kept as the law requires — reference
 *    it; they then point to no personal data. Every way in also refuses a deleted account
 *    (notDeleted in users.ts), should a credential ever survive.
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

/**
 * The database part, in one transaction: a failure half-way leaves the account as it was. `alsoErase`
 * runs in the same transaction, after the lock on the account's row, for what the domains above
 * identity keep per account (the VPN's configurations and service credentials, api/vpn).
 */
export async function eraseAccount(
  db: Database,
  user: Pick<User, "id" | "email">,
  nowIso: string,
  alsoErase?: (trx: Database) => Promise<void>,
): Promise<void> {
  const userId = user.id;
  await db.transaction().execute(async (trx) => {
    // The row first (PostgreSQL): a sign-in issuing a session holds it shared (issueToken), so this
    // waits for that session and deletes it below; a sign-in after this finds the account deleted.
    if (dialectOf(trx) === "postgres") await trx.selectFrom("users").select("id").where("id", "=", userId).forUpdate().execute();
    // Every credential goes (review issue 30: a passkey outlived its account). Sessions end like
    // every other end of sessions, then the rows themselves go.
    await revokeSessions(trx, { userId, all: true });
    await alsoErase?.(trx);
    await trx.deleteFrom("desktop_codes").where("user_id", "=", userId).execute();
    await trx.deleteFrom("tokens").where("user_id", "=", userId).execute();
    await trx.deleteFrom("devices").where("user_id", "=", userId).execute();
    // Reset and set-password links, the sign-in alerts' links (reset tokens) and SSO tokens.
    await trx.deleteFrom("one_time_tokens").where("user_id", "=", userId).execute();
    await trx.deleteFrom("cancel_proofs").where("user_id", "=", userId).execute();
    await trx.deleteFrom("account_links").where("user_id", "=", userId).execute();
    // The browsers and apps known to the sign-in alerts, and the account's activity (0015).
    await trx.deleteFrom("known_sign_in_devices").where("user_id", "=", userId).execute();
    await trx.deleteFrom("security_events").where("user_id", "=", userId).execute();
    // Addresses of email changes (0016): pending ones (with the code sent to the new address, unless
    // another account's change waits on the same code) and the links that put an old one back.
    const pending = await trx.selectFrom("email_change_requests").select("new_email").where("user_id", "=", userId).executeTakeFirst();
    if (pending) {
      const shared = await trx
        .selectFrom("email_change_requests")
        .select("user_id")
        .where("new_email", "=", pending.new_email)
        .where("user_id", "!=", userId)
        .executeTakeFirst();
      if (!shared) {
        await trx.deleteFrom("verification_codes").where("email", "=", pending.new_email).where("purpose", "=", "email_change").execute();
      }
    }
    await trx.deleteFrom("email_change_requests").where("user_id", "=", userId).execute();
    await trx.deleteFrom("email_change_reverts").where("user_id", "=", userId).execute();
    // Two-factor secret, recovery codes and waiting sign-ins (docs/decisions/017).
    await trx.deleteFrom("two_factor_challenges").where("user_id", "=", userId).execute();
    await trx.deleteFrom("two_factor_recovery_codes").where("user_id", "=", userId).execute();
    await trx.deleteFrom("two_factor").where("user_id", "=", userId).execute();
    // Passkeys, a registration left half-way and its confirmation, the reviews after a reset
    // (docs/decisions/037): otherwise a passkey would still sign in to the erased account.
    await trx.deleteFrom("passkey_confirmations").where("user_id", "=", userId).execute();
    await trx.deleteFrom("passkey_reviews").where("user_id", "=", userId).execute();
    await trx.deleteFrom("passkey_challenges").where("user_id", "=", userId).execute();
    await trx.deleteFrom("passkeys").where("user_id", "=", userId).execute();
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
    if (Number(erased.numUpdatedRows) === 0) throw new DomainError("unauthenticated", "Unauthenticated.");
  });
}
