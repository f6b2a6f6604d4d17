import type { Database } from "../platform/db";
import type { ExpressionBuilder } from "kysely";
import type { DB, OneTimeTokenPurpose } from "../platform/db/schema";
import { generateToken, hashToken, looksLikeToken } from "../platform/tokens";

/*
 * Single-use tokens: password reset (after a reset code), first password ("set your password"
 * email) and SSO (a signed-in client hands a short-lived sign-in to another one). Random 32 bytes,
 * base64url, stored as sha256 only; consumed by one conditional UPDATE so that two parallel uses
 * cannot both succeed. Lifetimes are real time (like bearer tokens): moving the business clock
 * never invalidates them. `nowMs` parameters exist for tests (e.g. a token made in the past).
 */

export const ONE_TIME_TOKEN_TTL_SECONDS: Record<OneTimeTokenPurpose, number> = {
  reset: 15 * 60,
  set_password: 24 * 3600,
  sso: 60,
};

const SWEEP_INTERVAL_MS = 10 * 60_000;
const KEEP_AFTER_EXPIRY_MS = 86_400_000;
let lastSweep = 0;

export async function createOneTimeToken(
  db: Database,
  opts: { purpose: OneTimeTokenPurpose; userId: number; tokenId?: number; nowMs?: number; ttlSeconds?: number },
): Promise<string> {
  const now = opts.nowMs ?? Date.now();
  const ttl = opts.ttlSeconds ?? ONE_TIME_TOKEN_TTL_SECONDS[opts.purpose];
  const token = generateToken();
  await db
    .insertInto("one_time_tokens")
    .values({
      purpose: opts.purpose,
      token_hash: hashToken(token),
      user_id: opts.userId,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttl * 1000).toISOString(),
      token_id: opts.tokenId ?? null,
    })
    .execute();
  const real = Date.now();
  if (real - lastSweep >= SWEEP_INTERVAL_MS) {
    lastSweep = real;
    await db
      .deleteFrom("one_time_tokens")
      .where("expires_at", "<", new Date(real - KEEP_AFTER_EXPIRY_MS).toISOString())
      .execute();
  }
  return token;
}

/** A 'set_password' token (24 hours, single use) for the "set your password" email. */
export function createSetPasswordToken(db: Database, userId: number, nowMs: number = Date.now()): Promise<string> {
  return createOneTimeToken(db, { purpose: "set_password", userId, nowMs });
}

/**
 * A token made by a session (SSO) is live only while that session is: revokeSessions() retires
 * such tokens, and this second check holds even for a path that revokes a session some other way.
 */
const makerStillSignedIn = (eb: ExpressionBuilder<DB, "one_time_tokens">) =>
  eb.or([
    eb("one_time_tokens.token_id", "is", null),
    eb.exists(
      eb
        .selectFrom("tokens")
        .select("tokens.id")
        .whereRef("tokens.id", "=", "one_time_tokens.token_id")
        .where("tokens.revoked_at", "is", null),
    ),
  ]);

/** The user id of a live (unused, unexpired) token of this purpose, without using it. */
export async function peekOneTimeToken(
  db: Database,
  opts: { purpose: OneTimeTokenPurpose; token: string; nowMs?: number },
): Promise<number | null> {
  if (!looksLikeToken(opts.token)) return null;
  const row = await db
    .selectFrom("one_time_tokens")
    .select("user_id")
    .where("token_hash", "=", hashToken(opts.token))
    .where("purpose", "=", opts.purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", new Date(opts.nowMs ?? Date.now()).toISOString())
    .where(makerStillSignedIn)
    .executeTakeFirst();
  return row ? Number(row.user_id) : null;
}

/**
 * Uses up a live token of this purpose (and of this user, when given); returns its user id, or
 * null when it is unknown, expired, already used or someone else's.
 */
export async function consumeOneTimeToken(
  db: Database,
  opts: { purpose: OneTimeTokenPurpose; token: string; userId?: number; nowMs?: number },
): Promise<number | null> {
  if (!looksLikeToken(opts.token)) return null;
  const nowIso = new Date(opts.nowMs ?? Date.now()).toISOString();
  let query = db
    .updateTable("one_time_tokens")
    .set({ used_at: nowIso })
    .where("token_hash", "=", hashToken(opts.token))
    .where("purpose", "=", opts.purpose)
    .where("used_at", "is", null)
    .where("expires_at", ">", nowIso)
    .where(makerStillSignedIn);
  if (opts.userId !== undefined) query = query.where("user_id", "=", opts.userId);
  const row = await query.returning("user_id").executeTakeFirst();
  return row ? Number(row.user_id) : null;
}

/** Marks every other live token of this purpose and user as used (e.g. older reset tokens after a reset). */
export async function retireOneTimeTokens(
  db: Database,
  opts: { purpose: OneTimeTokenPurpose; userId: number; nowMs?: number },
): Promise<void> {
  await db
    .updateTable("one_time_tokens")
    .set({ used_at: new Date(opts.nowMs ?? Date.now()).toISOString() })
    .where("purpose", "=", opts.purpose)
    .where("user_id", "=", opts.userId)
    .where("used_at", "is", null)
    .execute();
}
