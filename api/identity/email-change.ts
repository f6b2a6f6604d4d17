import type { PlatformServices } from "../platform/services";
import { asLanguage, text } from "../platform/i18n";
import type { User } from "../platform/db/schema";
import { isUniqueViolation } from "../platform/db/dialect";
import { DomainError } from "../platform/errors";
import { secondsUntil } from "../platform/rate-limit";
import { generateToken, hashToken, looksLikeToken } from "../platform/tokens";
import { CODE_CAP_WINDOW_SECONDS, CODE_MESSAGES, codeCapKeys, consumeCode, invalidCodeError, sendCode, verifyCode } from "./codes";
import { emailChangeCodeEmail, emailChangeTakenEmail, emailChangedEmail } from "./emails";
import type { PasswordHasher } from "./passwords";
import { type EventSource, recordSecurityEvent } from "./security-events";
import { revokeSessions } from "./sessions";

/*
 * Changing the account's email (issue 22, docs/decisions/036).
 *
 * 1. start: the new address and the account's password (an account without one: the code emailed to
 *    its current address, purpose 'email_change_auth'). The pending change is kept in
 *    email_change_requests and a 6-digit code goes to the NEW address. Its verification_codes row is
 *    keyed by the CURRENT address (purpose 'email_change'), so each account has its own code and two
 *    accounts asking for the same address do not replace each other's. The limits are those of every
 *    emailed code (30 s, hourly caps per account and per client address) plus the hourly cap of the
 *    new address.
 *    No enumeration: when the new address already has an account, the answer, the bookkeeping and the
 *    limits are the same; only the email differs (it says the address has an account, no code), so
 *    the stored code is one nobody received and verify refuses with the ordinary invalid-code message.
 * 2. verify: the code, then the email changes in one statement guarded by the unique constraint on
 *    users.email — of two parallel verifies for one address one wins and the other gets the invalid
 *    code message. The old address gets 'Your email address was changed' with a 7-day single-use link.
 * 3. revert (the link): puts the old address back if it is still free and signs out everywhere.
 */

export const EMAIL_CHANGE_MESSAGES = {
  codeSent: "We have emailed a code to your new email address.",
  resent: "Verification code resent to your new email address!",
  notSent: "Failed to send the code. Please try again.",
  authCodeSent: "We have emailed a code to your current email address.",
  authCodeNotSent: "Failed to send the code. Please try again.",
  hasPassword: "Your account has a password: confirm with your password.",
  sameEmail: "This is already your email address.",
  passwordRequired: "Please enter your current password.",
  wrongPassword: "The password is incorrect.",
  authCodeRequired: "Please enter the code we sent to your current email address.",
  tooManyTries: (minutes: number) => `Too many wrong passwords. Please try again in ${minutes} minutes.`,
  noPendingChange: "Please start again: enter your new email address.",
  changed: "Your email address has been changed.",
  reverted: "Your previous email address is back, and every device has been signed out. Please sign in again.",
  revertInvalid: "This link is invalid, has expired or was already used.",
  revertTaken: "Your previous email address now belongs to another account, so it could not be put back. Please contact support.",
} as const;

/** How long the link in 'Your email address was changed' works. */
export const REVERT_TTL_DAYS = 7;
/** Wrong passwords on the change-email form, per account, before it is refused for a while. */
export const EMAIL_CHANGE_MAX_WRONG_PASSWORDS = 5;
export const EMAIL_CHANGE_WRONG_PASSWORD_WINDOW_SECONDS = 15 * 60;

export function emailChangeFailureKey(userId: number): string {
  return `email-change-fail:user:${userId}`;
}

type Ctx = Pick<PlatformServices, "db" | "clock" | "limiter" | "config" | "mail"> & { passwords: PasswordHasher };

function fieldError(code: "validation_failed" | "wrong_password", field: string, message: string): DomainError {
  return new DomainError(code, message, { field });
}

/** 429 when the new address has had its hourly share of codes (whoever asked). */
async function checkNewAddressCap(ctx: Ctx, newEmail: string): Promise<void> {
  const key = codeCapKeys(newEmail, "").email;
  const window = (await ctx.limiter.peek([key])).get(key);
  if (window && window.count >= ctx.config.codes.maxPerEmailPerHour) {
    throw new DomainError("rate_limited", CODE_MESSAGES.tooManyRequests, {
      headers: { "Retry-After": String(secondsUntil(window.resetAt)) },
    });
  }
}

/** Emails the code (or the "already has an account" notice) for the pending change to `newEmail`. */
async function sendChangeCode(ctx: Ctx, user: Pick<User, "id" | "email" | "language">, newEmail: string, addressKey: string): Promise<void> {
  await checkNewAddressCap(ctx, newEmail);
  const taken = await ctx.db.selectFrom("users").select(["id", "language"]).where("email", "=", newEmail).executeTakeFirst();
  await sendCode(ctx, {
    email: user.email,
    purpose: "email_change",
    addressKey,
    failureMessage: EMAIL_CHANGE_MESSAGES.notSent,
    async compose(code) {
      // Only once the send has passed its limits: the pending change follows the live code.
      const nowIso = ctx.clock.now().toISOString();
      await ctx.db
        .insertInto("email_change_requests")
        .values({ user_id: user.id, new_email: newEmail, created_at: nowIso })
        .onConflict((oc) => oc.column("user_id").doUpdateSet({ new_email: newEmail, created_at: nowIso }))
        .execute();
      // The address's own account reads its language; the code, the account that moves.
      return taken
        ? emailChangeTakenEmail(newEmail, ctx.config.publicUrl, asLanguage(taken.language))
        : emailChangeCodeEmail(newEmail, code, asLanguage(user.language));
    },
  });
  await ctx.limiter.hit(codeCapKeys(newEmail, "").email, CODE_CAP_WINDOW_SECONDS);
}

/**
 * Starts a change: checks the password (or the code sent to the current address), then sends the
 * code to the new address. The answer is the same whether or not the new address has an account.
 */
export async function startEmailChange(
  ctx: Ctx,
  opts: { user: User; newEmail: string; password?: string; code?: string; addressKey: string },
): Promise<void> {
  const { user, newEmail } = opts;
  if (newEmail === user.email) throw fieldError("validation_failed", "email", EMAIL_CHANGE_MESSAGES.sameEmail);
  let authCode: Awaited<ReturnType<typeof verifyCode>> | null = null;
  if (user.password_hash) {
    if (!opts.password) throw fieldError("validation_failed", "password", EMAIL_CHANGE_MESSAGES.passwordRequired);
    // The try is taken before argon2 (parallel guesses get no more than 5); a right password gives it back.
    const limit: [string, number] = [emailChangeFailureKey(user.id), EMAIL_CHANGE_MAX_WRONG_PASSWORDS];
    const reservation = await ctx.limiter.reserve(...limit, EMAIL_CHANGE_WRONG_PASSWORD_WINDOW_SECONDS);
    if (!reservation) {
      const seconds = (await ctx.limiter.blockedFor([limit])) ?? 1;
      throw new DomainError("rate_limited", EMAIL_CHANGE_MESSAGES.tooManyTries(Math.ceil(seconds / 60)), {
        headers: { "Retry-After": String(seconds) },
        text: text("messages:confirm.tooManyPasswords", { count: Math.ceil(seconds / 60) }),
      });
    }
    if (!(await ctx.passwords.verify(user.password_hash, opts.password))) {
      throw fieldError("wrong_password", "password", EMAIL_CHANGE_MESSAGES.wrongPassword);
    }
    await ctx.limiter.release([reservation]);
  } else {
    if (!opts.code) throw fieldError("validation_failed", "code", EMAIL_CHANGE_MESSAGES.authCodeRequired);
    authCode = await verifyCode(ctx.db, ctx.clock, { email: user.email, purpose: "email_change_auth", code: opts.code, field: "code" });
  }
  await sendChangeCode(ctx, user, newEmail, opts.addressKey);
  // The current address's code is used up once the new one went out (a refused send leaves it usable).
  if (authCode && !(await consumeCode(ctx.db, authCode))) throw invalidCodeError("code");
}

/** The pending change's address, or 422 'Please start again ...' (none). */
async function pendingChange(ctx: Ctx, userId: number): Promise<string> {
  const row = await ctx.db.selectFrom("email_change_requests").select("new_email").where("user_id", "=", userId).executeTakeFirst();
  if (!row) throw new DomainError("validation_failed", EMAIL_CHANGE_MESSAGES.noPendingChange);
  return row.new_email;
}

/** Sends the pending change's code again (30 s gate and hourly caps as always). */
export async function resendEmailChangeCode(ctx: Ctx, opts: { user: User; addressKey: string }): Promise<string> {
  const newEmail = await pendingChange(ctx, opts.user.id);
  await sendChangeCode(ctx, opts.user, newEmail, opts.addressKey);
  return newEmail;
}

/**
 * Confirms the pending change with the code sent to the new address. The address is taken (before
 * or meanwhile, or by a parallel verify) -> 'Invalid verification code', as for a wrong code.
 * Returns the new address.
 */
export async function verifyEmailChange(ctx: Ctx, opts: { user: User; code: string; source: EventSource }): Promise<string> {
  const { db, clock } = ctx;
  const { user } = opts;
  const newEmail = await pendingChange(ctx, user.id);
  const verified = await verifyCode(db, clock, { email: user.email, purpose: "email_change", code: opts.code, field: "code" });
  if (!(await consumeCode(db, verified))) throw invalidCodeError("code");

  const token = generateToken();
  const now = clock.now();
  const realNow = Date.now();
  try {
    await db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable("users")
        .set({ email: newEmail, email_verified_at: now.toISOString(), updated_at: now.toISOString() })
        .where("id", "=", user.id)
        .where("email", "=", user.email)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) === 0) throw invalidCodeError("code");
      await trx.deleteFrom("email_change_requests").where("user_id", "=", user.id).execute();
      await trx
        .insertInto("email_change_reverts")
        .values({
          user_id: user.id,
          old_email: user.email,
          token_hash: hashToken(token),
          created_at: new Date(realNow).toISOString(),
          expires_at: new Date(realNow + REVERT_TTL_DAYS * 86_400_000).toISOString(),
          used_at: null,
        })
        .execute();
    });
  } catch (error) {
    // The address got an account meanwhile (or a parallel verify for it won).
    if (isUniqueViolation(error)) throw invalidCodeError("code");
    throw error;
  }
  await recordSecurityEvent(db, { userId: user.id, kind: "email_changed", ...opts.source, at: now });
  await ctx.mail.deliver(emailChangedEmail(user.email, `${ctx.config.publicUrl}/email-revert/${token}`, asLanguage(user.language)));
  return newEmail;
}

/**
 * The link in 'Your email address was changed': puts the old address back (when no other account has
 * it) and signs out every session, in one transaction; the link is then used up. A taken address
 * leaves everything as it was (409) and the link unused. Returns the account's id.
 */
export async function revertEmailChange(ctx: Ctx, opts: { token: string; source: EventSource }): Promise<number> {
  const { db } = ctx;
  const invalid = () => new DomainError("link_invalid", EMAIL_CHANGE_MESSAGES.revertInvalid, { field: "token" });
  if (!looksLikeToken(opts.token)) throw invalid();
  const nowIso = new Date().toISOString();
  let userId: number;
  try {
    userId = await db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable("email_change_reverts")
        .set({ used_at: nowIso })
        .where("token_hash", "=", hashToken(opts.token))
        .where("used_at", "is", null)
        .where("expires_at", ">", nowIso)
        .returning(["user_id", "old_email"])
        .executeTakeFirst();
      if (!row) throw invalid();
      const id = Number(row.user_id);
      const restored = await trx
        .updateTable("users")
        .set({ email: row.old_email, updated_at: ctx.clock.now().toISOString() })
        .where("id", "=", id)
        .where("deleted_at", "is", null)
        .executeTakeFirst();
      if (Number(restored.numUpdatedRows) === 0) throw invalid();
      await trx.deleteFrom("email_change_requests").where("user_id", "=", id).execute();
      await revokeSessions(trx, { userId: id, all: true });
      return id;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("email_taken", EMAIL_CHANGE_MESSAGES.revertTaken);
    throw error;
  }
  await recordSecurityEvent(db, { userId, kind: "email_changed", ...opts.source });
  await recordSecurityEvent(db, { userId, kind: "signed_out_everywhere", ...opts.source });
  return userId;
}
