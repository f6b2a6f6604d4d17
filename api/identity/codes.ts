import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { text } from "../platform/i18n";
import type { PlatformServices } from "../platform/services";
import type { Database } from "../platform/db";
import type { CodePurpose } from "../platform/db/schema";
import type { Clock } from "../platform/clock";
import { DomainError, type ErrorCode } from "../platform/errors";
import { type Mail, MailUnavailableError } from "../platform/mailer";
import { type Reservation, secondsUntil } from "../platform/rate-limit";

/*
 * Emailed verification codes (DESIGN §4): 6 random digits, stored as sha256(salt + code) with a
 * per-row random salt, one live code per (email, purpose) — a new send replaces the old one —,
 * valid 300 s, burnt after 5 wrong tries, resend no sooner than 30 s after the last send. Send
 * times and expiries use the business clock (tests move it); the hourly caps use real time.
 *
 * No enumeration: a send for an email without an account does exactly the same bookkeeping (a
 * code is made and stored, the 30 s gate and the hourly caps count) and only skips the email. The
 * stored code is then one that nobody received, so wrong tries, expiry and burning answer the same
 * for known and unknown emails.
 */

export type EmailCodePurpose = Exclude<CodePurpose, "set_password">;

export const CODE_LENGTH = 6;
export const CODE_TTL_SECONDS = 300;
export const RESEND_AFTER_SECONDS = 30;
export const MAX_WRONG_ATTEMPTS = 5;
/** Window of the per-email and per-address caps on code requests. */
export const CODE_CAP_WINDOW_SECONDS = 3600;
/** Rows older than this have neither a live code nor a resend gate; they are swept. */
const KEEP_ROWS_MS = 86_400_000;
const SWEEP_INTERVAL_MS = 10 * 60_000;

export const CODE_MESSAGES = {
  invalid: "Invalid verification code",
  expired: "This code has expired. Please request a new one.",
  burnt: "Too many wrong attempts. Please request a new code.",
  tooManyRequests: "Too many code requests. Please try again later.",
} as const;

export function resendTooSoonMessage(seconds: number): string {
  return `Please wait ${seconds} seconds before requesting a new code.`;
}

/** 6 random digits (leading zeros kept). */
export function generateCode(): string {
  return String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, "0");
}

export function hashCode(salt: string, code: string): string {
  return createHash("sha256").update(salt + code, "utf8").digest("hex");
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}

export type CodeContext = Pick<PlatformServices, "db" | "clock" | "limiter" | "config">;

export function codeCapKeys(email: string, addressKey: string): { email: string; ip: string } {
  return { email: `code-send:email:${email}`, ip: `code-send:ip:${addressKey}` };
}

/**
 * Takes one send from the email's and the client address's hourly allowance, atomically (a parallel
 * burst gets no more sends than a sequence), or throws 429 'Too many code requests. ...' when either
 * has reached its cap.
 */
async function reserveHourlyCaps(ctx: CodeContext, email: string, addressKey: string): Promise<Reservation[]> {
  const keys = codeCapKeys(email, addressKey);
  const reserved = await ctx.limiter.reserveAll(
    [
      [keys.email, ctx.config.codes.maxPerEmailPerHour],
      [keys.ip, ctx.config.codes.maxPerIpPerHour],
    ],
    CODE_CAP_WINDOW_SECONDS,
  );
  if ("retryAfterSeconds" in reserved) {
    throw new DomainError("rate_limited", CODE_MESSAGES.tooManyRequests, {
      headers: { "Retry-After": String(reserved.retryAfterSeconds) },
    });
  }
  return reserved.reservations;
}

let lastSweep = 0;

async function maybeSweep(db: Database, now: Date): Promise<void> {
  const real = Date.now();
  if (real - lastSweep < SWEEP_INTERVAL_MS) return;
  lastSweep = real;
  await db
    .deleteFrom("verification_codes")
    .where("sent_at", "<", new Date(now.getTime() - KEEP_ROWS_MS).toISOString())
    .execute();
}

interface SendValues {
  code_hash: string | null;
  code_salt: string | null;
  expires_at: string | null;
  is_checkout: number | null;
  plan_id: string | null;
}

/**
 * The bookkeeping of one send: the hourly caps, reserved atomically (429 'Too many code requests. ...'),
 * then the 30 s gate (429 'Please wait N seconds ...', and the reservation is given back), then the row
 * is replaced in one statement (an upsert that only updates when the last send is at least 30 s old, so
 * concurrent requests cannot both pass).
 */
async function recordSend(
  ctx: CodeContext,
  opts: { email: string; purpose: CodePurpose; addressKey: string; values: SendValues },
): Promise<void> {
  const { db, clock, limiter } = ctx;
  const reservations = await reserveHourlyCaps(ctx, opts.email, opts.addressKey);

  const now = clock.now();
  const nowIso = now.toISOString();
  const cutoff = new Date(now.getTime() - RESEND_AFTER_SECONDS * 1000).toISOString();
  const row = { ...opts.values, attempts: 0, sent_at: nowIso };
  const written = await db
    .insertInto("verification_codes")
    .values({ email: opts.email, purpose: opts.purpose, ...row })
    .onConflict((oc) =>
      oc
        .columns(["email", "purpose"])
        .doUpdateSet(row)
        .where("verification_codes.sent_at", "<=", cutoff),
    )
    .returning("id")
    .executeTakeFirst();

  if (!written) {
    // Refused by the 30 s gate: not a send, so it does not count against the caps.
    await limiter.release(reservations);
    const last = await db
      .selectFrom("verification_codes")
      .select("sent_at")
      .where("email", "=", opts.email)
      .where("purpose", "=", opts.purpose)
      .executeTakeFirst();
    const until = last ? Date.parse(last.sent_at) + RESEND_AFTER_SECONDS * 1000 : now.getTime();
    const wait = Math.min(RESEND_AFTER_SECONDS, secondsUntil(until, now.getTime()));
    throw new DomainError("rate_limited", resendTooSoonMessage(wait), {
      headers: { "Retry-After": String(wait) },
      text: text("messages:codes.wait", { count: wait }),
    });
  }

  await maybeSweep(db, now);
}

interface IssueOptions {
  email: string;
  purpose: EmailCodePurpose;
  addressKey: string;
  /** Sign-up context kept with the code (temp-signup). */
  meta?: { isCheckout?: boolean; planId?: string };
}

/**
 * A code request that a visitor waits on (sign-up, code sign-in, password reset, and their resends):
 * checks that the mail server takes mail (else 502 with `failureMessage`, the screen's own words,
 * and nothing is stored), issues the code, and emails what `compose` makes of it (null: no email,
 * e.g. no account). A live send that fails afterwards withdraws the code, so that no code nobody
 * received blocks the resend for 30 s (decision 012).
 */
export async function sendCode(
  ctx: CodeContext & Pick<PlatformServices, "mail">,
  opts: IssueOptions & { failureMessage: string; compose(code: string): Mail | null | Promise<Mail | null> },
): Promise<void> {
  try {
    await ctx.mail.ensureAvailable();
  } catch (error) {
    if (error instanceof MailUnavailableError) throw new DomainError("mail_unavailable", opts.failureMessage);
    throw error;
  }
  const issued = await issue(ctx, opts);
  const mail = await opts.compose(issued.code);
  if (mail) await ctx.mail.deliver(mail, () => withdrawCode(ctx.db, opts.email, opts.purpose, issued.hash));
}

/** Removes a code that was never received (its send failed), unless a newer one replaced it. */
async function withdrawCode(db: Database, email: string, purpose: EmailCodePurpose, codeHash: string): Promise<void> {
  await db
    .deleteFrom("verification_codes")
    .where("email", "=", email)
    .where("purpose", "=", purpose)
    .where("code_hash", "=", codeHash)
    .execute();
}

async function issue(ctx: CodeContext, opts: IssueOptions): Promise<{ code: string; hash: string }> {
  const code = generateCode();
  const salt = randomBytes(16).toString("hex");
  const hash = hashCode(salt, code);
  const expires = new Date(ctx.clock.now().getTime() + CODE_TTL_SECONDS * 1000);
  await recordSend(ctx, {
    email: opts.email,
    purpose: opts.purpose,
    addressKey: opts.addressKey,
    values: {
      code_hash: hash,
      code_salt: salt,
      expires_at: expires.toISOString(),
      is_checkout: opts.meta?.isCheckout === undefined ? null : opts.meta.isCheckout ? 1 : 0,
      plan_id: opts.meta?.planId ?? null,
    },
  });
  return { code, hash };
}

/**
 * The same limits for an emailed link without a code (the "set your password" email): records the
 * send under (email, 'set_password') or throws the 429 of the 30 s gate or the hourly caps.
 */
export async function recordLinkSend(ctx: CodeContext, opts: { email: string; addressKey: string }): Promise<void> {
  await recordSend(ctx, {
    email: opts.email,
    purpose: "set_password",
    addressKey: opts.addressKey,
    values: { code_hash: null, code_salt: null, expires_at: null, is_checkout: null, plan_id: null },
  });
}

function codeError(code: ErrorCode, message: string, field: string): DomainError {
  return new DomainError(code, message, { field });
}

export interface VerifiedCode {
  id: number;
  codeHash: string;
  isCheckout: boolean | null;
  planId: string | null;
}

/**
 * Checks a code without consuming it. Throws 422 (with the message also under `field`):
 * 'This code has expired. Please request a new one.' (none, consumed or expired),
 * 'Too many wrong attempts. Please request a new code.' (5 wrong tries made: the code is burnt),
 * 'Invalid verification code' (wrong; counts as a try).
 * The try is counted before the comparison (and given back when the code is right), so that
 * parallel guesses cannot get past the limit of 5.
 */
export async function verifyCode(
  db: Database,
  clock: Clock,
  opts: { email: string; purpose: EmailCodePurpose; code: string; field: string },
): Promise<VerifiedCode> {
  const row = await db
    .selectFrom("verification_codes")
    .selectAll()
    .where("email", "=", opts.email)
    .where("purpose", "=", opts.purpose)
    .executeTakeFirst();
  if (!row?.code_hash || !row.code_salt || !row.expires_at) throw codeError("code_expired", CODE_MESSAGES.expired, opts.field);
  if (Number(row.attempts) >= MAX_WRONG_ATTEMPTS) throw codeError("too_many_attempts", CODE_MESSAGES.burnt, opts.field);
  if (row.expires_at <= clock.now().toISOString()) throw codeError("code_expired", CODE_MESSAGES.expired, opts.field);

  const claimed = await db
    .updateTable("verification_codes")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", row.id)
    .where("code_hash", "=", row.code_hash)
    .where("attempts", "<", MAX_WRONG_ATTEMPTS)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) {
    // A parallel request used up the tries, or the code was replaced or consumed meanwhile.
    const now = await db
      .selectFrom("verification_codes")
      .select(["code_hash", "attempts"])
      .where("id", "=", row.id)
      .executeTakeFirst();
    if (now && now.code_hash === row.code_hash && Number(now.attempts) >= MAX_WRONG_ATTEMPTS) {
      throw codeError("too_many_attempts", CODE_MESSAGES.burnt, opts.field);
    }
    throw codeError("code_invalid", CODE_MESSAGES.invalid, opts.field);
  }

  if (!sameHash(hashCode(row.code_salt, opts.code), row.code_hash)) {
    throw codeError("code_invalid", CODE_MESSAGES.invalid, opts.field);
  }
  // Right: this try does not count.
  await db
    .updateTable("verification_codes")
    .set((eb) => ({ attempts: eb("attempts", "-", 1) }))
    .where("id", "=", row.id)
    .where("code_hash", "=", row.code_hash)
    .where("attempts", ">", 0)
    .execute();
  return {
    id: Number(row.id),
    codeHash: row.code_hash,
    isCheckout: row.is_checkout === null ? null : Number(row.is_checkout) === 1,
    planId: row.plan_id,
  };
}

/**
 * Uses up a verified code (one statement: only one of two parallel requests can win). The send
 * time stays, so the 30 s gate still applies. False when it was consumed or replaced meanwhile.
 */
export async function consumeCode(db: Database, verified: VerifiedCode): Promise<boolean> {
  const result = await db
    .updateTable("verification_codes")
    .set({ code_hash: null, code_salt: null, expires_at: null })
    .where("id", "=", verified.id)
    .where("code_hash", "=", verified.codeHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** verifyCode then consumeCode; a lost race answers 'Invalid verification code'. */
export async function useCode(
  db: Database,
  clock: Clock,
  opts: { email: string; purpose: EmailCodePurpose; code: string; field: string },
): Promise<VerifiedCode> {
  const verified = await verifyCode(db, clock, opts);
  if (!(await consumeCode(db, verified))) throw codeError("code_invalid", CODE_MESSAGES.invalid, opts.field);
  return verified;
}

export function invalidCodeError(field: string): DomainError {
  return codeError("code_invalid", CODE_MESSAGES.invalid, field);
}
