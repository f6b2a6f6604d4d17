import { type Database, dialectOf } from "../platform/db";
import { type Param, prepare } from "../platform/db/prepared";
import { DomainError } from "../platform/errors";
import type { User } from "../platform/db/schema";
import type { Clock } from "../platform/clock";
import { bearerToken, generateToken, hashToken, looksLikeToken } from "../platform/tokens";
import { stripControlCharacters } from "../platform/text";
import { type ClientHints, parseUserAgent } from "./user-agent";
import { notDeleted } from "./users";

export const WEB_PLATFORM = "Web Browser";

/** Touch last_used_at / last_login_at at most this often (avoids a write per request). */
const TOUCH_INTERVAL_MS = 60_000;

export interface DeviceInfo {
  platform: string;
  device_os?: string;
  device_os_version?: string;
  device_brand?: string;
  device_model?: string;
}

/**
 * The device row for a sign-in. Web sign-ins are described by the browser's User-Agent and client
 * hints (the portal forwards them); other platforms (e.g. 'Desktop') by the fields they send, with the
 * OS taken from the User-Agent when they do not send one.
 */
export function describeDevice(info: DeviceInfo, userAgent: string | undefined, hints?: ClientHints | null) {
  const ua = parseUserAgent(userAgent, hints);
  const web = info.platform === WEB_PLATFORM;
  return {
    platform: info.platform,
    device_os: info.device_os ?? ua.os,
    device_os_version: info.device_os_version ?? (info.device_os ? null : ua.osVersion),
    device_brand: info.device_brand ?? (web ? ua.browser : null),
    device_model: info.device_model ?? (web ? ua.model : null),
    // A header anyone can set: stored without control characters, since pages and exports show it.
    user_agent: userAgent ? stripControlCharacters(userAgent).slice(0, 512) || null : null,
  };
}

/** The device row of a sign-in, as describeDevice makes it. */
export type SignInDevice = ReturnType<typeof describeDevice>;

/** The optional device fields of a sign-in body (see deviceFields() in validation.ts). */
export interface DeviceInput {
  platform?: string;
  device_os?: string;
  device_os_version?: string;
  device_brand?: string;
  device_model?: string;
}

/** The device row of a sign-in from its body fields (platform defaults to 'Web Browser'), User-Agent and client hints. */
export function signInDevice(input: DeviceInput, userAgent: string | undefined, hints?: ClientHints | null) {
  return describeDevice(
    {
      platform: input.platform ?? WEB_PLATFORM,
      device_os: input.device_os,
      device_os_version: input.device_os_version,
      device_brand: input.device_brand,
      device_model: input.device_model,
    },
    userAgent,
    hints,
  );
}

/**
 * The id of the live (unrevoked, unexpired) token in an Authorization header when it belongs to
 * `userId`, else null. For routes that work without a token but treat the caller's own token
 * specially (a password reset keeps the session that made it).
 */
export async function liveTokenIdOf(
  db: Database,
  authorization: string | undefined,
  userId: number,
): Promise<number | null> {
  const token = bearerToken(authorization);
  if (!token || !looksLikeToken(token)) return null;
  const row = await db
    .selectFrom("tokens")
    .select("id")
    .where("token_hash", "=", hashToken(token))
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", new Date().toISOString())
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

/**
 * The user of a live bearer token in an Authorization header, else null (no token, unknown, revoked,
 * expired). For routes open to everyone that also count per account when one is signed in.
 */
export async function bearerUserId(db: Database, authorization: string | undefined): Promise<number | null> {
  const token = bearerToken(authorization);
  if (!token || !looksLikeToken(token)) return null;
  const row = await db
    .selectFrom("tokens")
    .select("user_id")
    .where("token_hash", "=", hashToken(token))
    .where("revoked_at", "is", null)
    .where("expires_at", ">", new Date().toISOString())
    .executeTakeFirst();
  return row ? Number(row.user_id) : null;
}

/**
 * What a revocation ends: every session of the account (optionally but one, the caller's own when
 * it changes its password), the sessions of one device, or one session (logout).
 */
export type RevocationScope =
  | { userId: number; all: true; keepTokenId?: number | null }
  | { userId: number; deviceId: number }
  | { userId: number; tokenId: number };

/**
 * THE way sessions end (password reset and change, terminate one or all devices, logout, account
 * deletion), so that no path forgets what a session can still mint after it is gone:
 * - the bearer tokens in scope are revoked;
 * - SSO one-time tokens made by those sessions are retired (a stolen session's token must not sign
 *   in after the owner ends it), and desktop hand-off codes of those tokens are erased;
 * - when every session ends, pending two-factor challenges are deleted too: they are sign-ins that
 *   proved the (possibly stolen) first factor and wait only for the second.
 * Run it inside the caller's transaction when there is one. Returns how many tokens were revoked.
 */
export async function revokeSessions(db: Database, scope: RevocationScope): Promise<number> {
  const nowIso = new Date().toISOString();
  const { userId } = scope;
  const keep = "all" in scope ? (scope.keepTokenId ?? null) : null;
  // The sessions in scope, revoked already or not: what they made must go either way.
  let inScope = db.selectFrom("tokens").select("tokens.id").where("tokens.user_id", "=", userId);
  if ("deviceId" in scope) inScope = inScope.where("tokens.device_id", "=", scope.deviceId);
  if ("tokenId" in scope) inScope = inScope.where("tokens.id", "=", scope.tokenId);
  if (keep !== null) inScope = inScope.where("tokens.id", "!=", keep);

  let revoke = db
    .updateTable("tokens")
    .set({ revoked_at: nowIso })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null);
  if ("deviceId" in scope) revoke = revoke.where("device_id", "=", scope.deviceId);
  if ("tokenId" in scope) revoke = revoke.where("id", "=", scope.tokenId);
  if (keep !== null) revoke = revoke.where("id", "!=", keep);
  const revoked = await revoke.executeTakeFirst();

  let sso = db
    .updateTable("one_time_tokens")
    .set({ used_at: nowIso })
    .where("purpose", "=", "sso")
    .where("user_id", "=", userId)
    .where("used_at", "is", null);
  // Every session ending: every SSO token but the kept session's (older rows without a maker too).
  if ("all" in scope) {
    if (keep !== null) sso = sso.where((eb) => eb.or([eb("token_id", "is", null), eb("token_id", "!=", keep)]));
  } else {
    sso = sso.where("token_id", "in", inScope);
  }
  await sso.execute();

  await db
    .updateTable("desktop_codes")
    .set({ used_at: nowIso, token_ciphertext: null })
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .where("token_id", "in", inScope)
    .execute();

  if ("all" in scope) await db.deleteFrom("two_factor_challenges").where("user_id", "=", userId).execute();
  return Number(revoked.numUpdatedRows);
}

/**
 * Creates a device row and a bearer token for it; returns the token (shown once, stored hashed).
 * Token times are real time; the device's times are the product's (business) time.
 */
export async function issueToken(
  db: Database,
  opts: { userId: number; device: ReturnType<typeof describeDevice>; ttlDays: number; clock: Clock },
): Promise<{ token: string; deviceId: number; tokenId: number }> {
  const token = generateToken();
  const now = Date.now();
  const businessNow = opts.clock.now().toISOString();
  return db.transaction().execute(async (trx) => {
    // The account must still be there: a sign-in racing its deletion gets no session. On PostgreSQL
    // the row is share-locked, so the deletion (which locks it first) waits for this session and then
    // deletes it, or this waits for the deletion and finds the account gone.
    let account = trx.selectFrom("users").select("id").where("id", "=", opts.userId).where(notDeleted);
    if (dialectOf(trx) === "postgres") account = account.forShare();
    if (!(await account.executeTakeFirst())) throw new DomainError("unauthenticated", "Unauthenticated.");
    const device = await trx
      .insertInto("devices")
      .values({ ...opts.device, user_id: opts.userId, created_at: businessNow, last_login_at: businessNow })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await trx
      .insertInto("tokens")
      .values({
        user_id: opts.userId,
        device_id: device.id,
        token_hash: hashToken(token),
        created_at: new Date(now).toISOString(),
        last_used_at: new Date(now).toISOString(),
        expires_at: new Date(now + opts.ttlDays * 86_400_000).toISOString(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { token, deviceId: Number(device.id), tokenId: Number(row.id) };
  });
}

export interface AuthState {
  user: User;
  tokenId: number;
  deviceId: number;
}

/**
 * The session a bearer token stands for, or null for a missing, malformed, unknown, revoked or expired
 * one. Touches the token (and its device's last sign-in) at most once a minute.
 */
/** The live token with this hash and its account (every authenticated API request asks it: prepared once). */
const liveTokenWithUser = prepare((db, param: Param<{ tokenHash: string; now: string }>) =>
  db
    .selectFrom("tokens")
    .innerJoin("users", "users.id", "tokens.user_id")
    .selectAll("users")
    .select(["tokens.id as token_id", "tokens.device_id as token_device_id", "tokens.last_used_at as token_last_used_at"])
    .where("tokens.token_hash", "=", param("tokenHash"))
    .where("tokens.revoked_at", "is", null)
    .where("tokens.expires_at", ">", param("now"))
    // A deleted account's token is no one's, whatever row survived.
    .where(notDeleted),
);

export async function authenticate(deps: { db: Database; clock: Clock }, token: string | null | undefined): Promise<AuthState | null> {
  if (!token || !looksLikeToken(token)) return null;
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const row = await liveTokenWithUser.executeTakeFirst(deps.db, { tokenHash: hashToken(token), now: nowIso });
  if (!row) return null;
  const { token_id, token_device_id, token_last_used_at, ...user } = row;
  if (now - Date.parse(token_last_used_at) >= TOUCH_INTERVAL_MS) {
    const touched = await deps.db
      .updateTable("tokens")
      .set({ last_used_at: nowIso })
      .where("id", "=", token_id)
      .where("last_used_at", "=", token_last_used_at)
      .executeTakeFirst();
    // Only the request that won the conditional update touches the device.
    if (Number(touched.numUpdatedRows) > 0) {
      await deps.db
        .updateTable("devices")
        .set({ last_login_at: deps.clock.now().toISOString() })
        .where("id", "=", token_device_id)
        .execute();
    }
  }
  return { user, tokenId: Number(token_id), deviceId: Number(token_device_id) };
}
