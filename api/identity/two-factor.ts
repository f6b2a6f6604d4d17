import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { z } from "zod";
import type { PlatformServices } from "../platform/services";
import type { Database } from "../platform/db";
import type { User } from "../platform/db/schema";
import { type Param, prepare } from "../platform/db/prepared";
import { DomainError } from "../platform/errors";
import { text } from "../platform/i18n";
import { secondFactorFailuresEmail } from "./emails";
import { recordSecurityEvent } from "./security-events";
import { type Reservation, minutesOf, tryAgainIn } from "../platform/rate-limit";
import { type describeDevice, issueToken } from "./sessions";
import { generateToken, hashToken } from "../platform/tokens";
import { LoginResultSchema, findUserById, languageOfUser, notDeleted } from "./users";

/*
 * Two-factor authentication with time-based one-time passwords (RFC 6238), docs/decisions/017.
 *
 * - Codes: 6 digits, SHA-1, 30-second steps (what every authenticator app does by default), checked
 *   against the real time (not the business clock: the phone's app follows the real one) with one
 *   step either side. A code is accepted only for a step later than the last accepted one, so the
 *   same code (or an older one) never signs in twice; the check-and-record is one conditional UPDATE.
 * - Secrets: 20 random bytes, stored only encrypted (AES-256-GCM, TWO_FACTOR_ENCRYPTION_KEY, the
 *   account id as associated data so a ciphertext cannot be moved to another account).
 * - Recovery codes: ten per enrolment, 50 random bits each, stored as sha256, used once.
 * - Sign-in: a first factor that is only a password, an emailed code, or a provider token without
 *   multi-factor `amr` gets a challenge (an opaque id, stored as sha256, 10 minutes, 5 wrong tries)
 *   instead of a token; /api/user/two-factor/verify exchanges it with a code for the token.
 */

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_WINDOW = 1;
export const TOTP_ISSUER = "VPN";
export const RECOVERY_CODE_COUNT = 10;
export const CHALLENGE_TTL_SECONDS = 600;
export const CHALLENGE_MAX_ATTEMPTS = 5;
/** Wrong codes when turning two-factor off, per account, per window (real time). */
export const DISABLE_MAX_FAILURES = 5;
export const DISABLE_FAILURE_WINDOW_SECONDS = 900;

/** RFC 8176 methods that mean the provider itself asked for more than one factor. */
const MULTI_FACTOR_AMR = new Set(["mfa"]);

export const TWO_FACTOR_MESSAGES = {
  required: "Enter the code from your authenticator app to finish signing in.",
  verified: "Login successful.",
  codeFormat: "Please enter the 6-digit authentication code",
  codeInvalid: "Invalid authentication code",
  recoveryFormat: "Please enter a recovery code",
  recoveryInvalid: "Invalid recovery code",
  challengeEnded: "This sign-in has expired or was ended. Please start again.",
  tooManyWrong: "Too many wrong codes. Please start again.",
  setupStarted: "Scan the QR code with your authenticator app.",
  alreadyOn: "Two-factor authentication is already on.",
  notOn: "Two-factor authentication is off.",
  noSetup: "Please set up two-factor authentication again.",
  turnedOn: "Two-factor authentication is on.",
  turnedOff: "Two-factor authentication is off.",
  tooManyDisable: (retryAfterSeconds: number) => `Too many wrong codes. ${tryAgainIn(retryAfterSeconds)}`,
  status: "Two-factor authentication status.",
  // Turning it on asks again who is there (a stolen session must not lock the owner out).
  passwordRequired: "Please enter your password.",
  wrongPassword: "The password is incorrect.",
  tooManyWrongPasswords: (retryAfterSeconds: number) => `Too many wrong passwords. ${tryAgainIn(retryAfterSeconds)}`,
  confirmCodeSent: "We have emailed you a code to confirm.",
  confirmCodeNotSent: "Failed to send the code. Please try again.",
  hasPassword: "Your account has a password: confirm with your password.",
} as const;

// ---------------------------------------------------------------------------------------------
// Encryption of secrets

const CIPHER_VERSION = "v1";

export function encryptSecret(key: Buffer, userId: number, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(`two-factor:${userId}`));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [CIPHER_VERSION, iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(".");
}

export function decryptSecret(key: Buffer, userId: number, stored: string): string {
  const [version, iv, ciphertext, tag] = stored.split(".");
  if (version !== CIPHER_VERSION || !iv || !ciphertext || !tag) throw new Error("Unreadable two-factor secret.");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(`two-factor:${userId}`));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}

// ---------------------------------------------------------------------------------------------
// TOTP

function totpFor(secretBase32: string, label = "account"): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new random secret (20 bytes, RFC 4226's recommended length), base32 as apps take it. */
export function generateSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function otpauthUri(secretBase32: string, email: string): string {
  return totpFor(secretBase32, email).toString();
}

/** The current code of a secret (tests and tools; the product never shows it). */
export function currentCode(secretBase32: string, nowMs = Date.now()): string {
  return totpFor(secretBase32).generate({ timestamp: nowMs });
}

export function timeStep(nowMs: number): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS);
}

/** The time step a code belongs to (±1 step around now), or null when it matches none. */
export function matchingStep(secretBase32: string, code: string, nowMs = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secretBase32).validate({ token: code, timestamp: nowMs, window: TOTP_WINDOW });
  return delta === null ? null : timeStep(nowMs) + delta;
}

// ---------------------------------------------------------------------------------------------
// Recovery codes

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"; // no 0/o, 1/l/i

/** 'xxxxx-xxxxx': 10 characters of a 31-letter alphabet (49.5 bits). */
export function generateRecoveryCode(): string {
  let raw = "";
  for (let i = 0; i < 10; i++) raw += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

/** Any case, with or without the dash, spaces ignored. */
export function normaliseRecoveryCode(value: string): string {
  return value.toLowerCase().replace(/[\s-]/g, "");
}

export function hashRecoveryCode(value: string): string {
  return createHash("sha256").update(`two-factor-recovery:${normaliseRecoveryCode(value)}`).digest("hex");
}

// ---------------------------------------------------------------------------------------------
// Enrolment

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
}

export const TwoFactorStatusSchema = z
  .strictObject({
    enabled: z.boolean(),
    enabled_at: z.string().nullable().meta({ format: "date-time" }),
    recovery_codes_left: z.int().meta({ description: "Unused recovery codes (0 when off)." }),
  })
  .meta({ id: "TwoFactorStatus" });

// The account home asks it on every load (prepared once: api/platform/db/prepared.ts).
const twoFactorRow = prepare((db, param: Param<{ userId: number }>) =>
  db.selectFrom("two_factor").select(["enabled_at", "secret_ciphertext"]).where("user_id", "=", param("userId")),
);

export async function twoFactorStatus(db: Database, userId: number): Promise<TwoFactorStatus> {
  const row = await twoFactorRow.executeTakeFirst(db, { userId });
  if (!row?.enabled_at || !row.secret_ciphertext) return { enabled: false, enabled_at: null, recovery_codes_left: 0 };
  const left = await db
    .selectFrom("two_factor_recovery_codes")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .where("used_at", "is", null)
    .executeTakeFirstOrThrow();
  return { enabled: true, enabled_at: row.enabled_at, recovery_codes_left: Number(left.n) };
}

export async function isTwoFactorEnabled(db: Database, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom("two_factor")
    .select("user_id")
    .where("user_id", "=", userId)
    .where("enabled_at", "is not", null)
    .where("secret_ciphertext", "is not", null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * 'Set up': the pending secret, made now or kept from an earlier visit (so a refresh shows the same
 * QR code). It becomes active only when 'Turn on' proves an app has it.
 */
export async function startSetup(ctx: Pick<PlatformServices, "db" | "config">, user: Pick<User, "id" | "email">): Promise<{ secret: string; uri: string }> {
  const { db, config } = ctx;
  const key = config.twoFactor.encryptionKey;
  const row = await db.selectFrom("two_factor").selectAll().where("user_id", "=", user.id).executeTakeFirst();
  if (row?.enabled_at) throw new DomainError("two_factor_already_on", TWO_FACTOR_MESSAGES.alreadyOn);
  let secret: string | null = null;
  if (row?.pending_secret_ciphertext) {
    try {
      secret = decryptSecret(key, user.id, row.pending_secret_ciphertext);
    } catch {
      secret = null; // made under another key: start afresh
    }
  }
  if (!secret) {
    secret = generateSecret();
    const now = new Date().toISOString();
    const values = {
      pending_secret_ciphertext: encryptSecret(key, user.id, secret),
      pending_created_at: now,
      updated_at: now,
    };
    await db
      .insertInto("two_factor")
      .values({ user_id: user.id, ...values })
      .onConflict((oc) => oc.column("user_id").doUpdateSet(values))
      .execute();
  }
  return { secret, uri: otpauthUri(secret, user.email) };
}

function newRecoveryCodes(userId: number, now: string) {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
  return { codes, rows: codes.map((code) => ({ user_id: userId, code_hash: hashRecoveryCode(code), created_at: now, used_at: null })) };
}

/**
 * 'Turn on': the code must come from the pending secret; answers the ten recovery codes (shown
 * once). `confirm` (e.g. using up an emailed code) runs once the code is right, before anything
 * changes, so that a wrong authentication code does not use up the emailed one.
 */
export async function enableTwoFactor(
  ctx: Pick<PlatformServices, "db" | "config">,
  userId: number,
  code: string,
  opts: { nowMs?: number; confirm?: () => Promise<unknown> } = {},
): Promise<string[]> {
  const nowMs = opts.nowMs ?? Date.now();
  const { db, config } = ctx;
  const row = await db.selectFrom("two_factor").selectAll().where("user_id", "=", userId).executeTakeFirst();
  if (row?.enabled_at) throw new DomainError("two_factor_already_on", TWO_FACTOR_MESSAGES.alreadyOn);
  if (!row?.pending_secret_ciphertext) throw new DomainError("two_factor_not_set_up", TWO_FACTOR_MESSAGES.noSetup);
  let secret: string;
  try {
    secret = decryptSecret(config.twoFactor.encryptionKey, userId, row.pending_secret_ciphertext);
  } catch {
    throw new DomainError("two_factor_not_set_up", TWO_FACTOR_MESSAGES.noSetup);
  }
  const step = matchingStep(secret, code, nowMs);
  if (step === null) throw wrongSecondFactor("code", TWO_FACTOR_MESSAGES.codeInvalid);
  await opts.confirm?.();
  const now = new Date(nowMs).toISOString();
  const { codes, rows } = newRecoveryCodes(userId, now);
  await db.transaction().execute(async (trx) => {
    // Conditional on the same pending secret: a parallel 'Turn on' or a new 'Set up' wins once.
    const updated = await trx
      .updateTable("two_factor")
      .set({
        secret_ciphertext: row.pending_secret_ciphertext,
        pending_secret_ciphertext: null,
        pending_created_at: null,
        enabled_at: now,
        last_used_step: step,
        updated_at: now,
      })
      .where("user_id", "=", userId)
      .where("enabled_at", "is", null)
      .where("pending_secret_ciphertext", "=", row.pending_secret_ciphertext)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new DomainError("two_factor_already_on", TWO_FACTOR_MESSAGES.alreadyOn);
    await trx.deleteFrom("two_factor_recovery_codes").where("user_id", "=", userId).execute();
    await trx.insertInto("two_factor_recovery_codes").values(rows).execute();
  });
  return codes;
}

function wrongSecondFactor(field: string, message: string): DomainError {
  return new DomainError("code_invalid", message, { field });
}

/**
 * Checks a second factor of an account with two-factor on and uses it up: a TOTP code for a step
 * later than the last accepted one, or an unused recovery code. True when accepted.
 */
export async function useSecondFactor(
  ctx: Pick<PlatformServices, "db" | "config">,
  userId: number,
  proof: { code?: string; recovery_code?: string },
  nowMs = Date.now(),
): Promise<boolean> {
  const { db, config } = ctx;
  if (proof.recovery_code !== undefined) {
    const used = await db
      .updateTable("two_factor_recovery_codes")
      .set({ used_at: new Date(nowMs).toISOString() })
      .where("user_id", "=", userId)
      .where("code_hash", "=", hashRecoveryCode(proof.recovery_code))
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(used.numUpdatedRows) === 1;
  }
  if (proof.code === undefined) return false;
  const row = await db.selectFrom("two_factor").select(["secret_ciphertext", "last_used_step"]).where("user_id", "=", userId).executeTakeFirst();
  if (!row?.secret_ciphertext) return false;
  const secret = decryptSecret(config.twoFactor.encryptionKey, userId, row.secret_ciphertext);
  const step = matchingStep(secret, proof.code, nowMs);
  if (step === null) return false;
  // Accept only a step after the last accepted one; one statement, so parallel uses cannot both win.
  const accepted = await db
    .updateTable("two_factor")
    .set({ last_used_step: step })
    .where("user_id", "=", userId)
    .where((eb) => eb.or([eb("last_used_step", "is", null), eb("last_used_step", "<", step)]))
    .executeTakeFirst();
  return Number(accepted.numUpdatedRows) === 1;
}

/** 'Authentication code' of a confirmation that takes either kind of second factor in one field. */
export const AUTHENTICATION_CODE_REQUIRED = "Please enter the 6-digit authentication code or a recovery code";

/**
 * The second factor of a signed-in account's sensitive action (deleting the account), typed in one
 * field: six digits are a TOTP code, anything else a recovery code. One try is reserved before it is
 * checked on the account's second-factor budget of sign-in (secondFactorFailureKey), so that a stolen
 * session gets no more guesses here than at the sign-in step, and parallel guesses no more than a
 * sequence; a wrong factor keeps the try (422 under `field`), a right one gives it back and is used up.
 * Answers the recovery code it used, if any (giveBackRecoveryCode, should the action then fail).
 */
export async function confirmSecondFactor(
  ctx: Pick<PlatformServices, "db" | "config" | "limiter">,
  userId: number,
  value: string,
  field: string,
  nowMs = Date.now(),
): Promise<{ recoveryCode: string | null }> {
  const { config, limiter } = ctx;
  const digits = value.replace(/\s/g, "");
  const proof = /^\d{6}$/.test(digits) ? { code: digits } : { recovery_code: value };
  const limit: [string, number] = [secondFactorFailureKey(userId), config.login.maxSecondFactorFailuresPerAccount];
  const reservation = await limiter.reserve(...limit, config.login.failureWindowSeconds);
  if (!reservation) {
    const wait = (await limiter.blockedFor([limit])) ?? 1;
    throw new DomainError("rate_limited", tooManySecondFactorsMessage(wait), { headers: { "Retry-After": String(wait) }, text: tooManySecondFactorsText(wait) });
  }
  if (!(await useSecondFactor(ctx, userId, proof, nowMs))) {
    throw wrongSecondFactor(field, proof.code !== undefined ? TWO_FACTOR_MESSAGES.codeInvalid : TWO_FACTOR_MESSAGES.recoveryInvalid);
  }
  await limiter.release([reservation]);
  return { recoveryCode: proof.recovery_code ?? null };
}

/** Makes a recovery code usable again after the action it confirmed failed (nothing was done with it). */
export async function giveBackRecoveryCode(db: Database, userId: number, recoveryCode: string): Promise<void> {
  await db
    .updateTable("two_factor_recovery_codes")
    .set({ used_at: null })
    .where("user_id", "=", userId)
    .where("code_hash", "=", hashRecoveryCode(recoveryCode))
    .execute();
}

/** 'Turn off': every trace goes (secret, recovery codes, waiting sign-ins). */
export async function disableTwoFactor(db: Database, userId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("two_factor_challenges").where("user_id", "=", userId).execute();
    await trx.deleteFrom("two_factor_recovery_codes").where("user_id", "=", userId).execute();
    await trx.deleteFrom("two_factor").where("user_id", "=", userId).execute();
  });
}

/**
 * Tries that guard turning two-factor on or off, DISABLE_MAX_FAILURES per account per window (real
 * time), so a stolen session can guess neither its way off nor the password that turns it on: one try
 * is reserved before the code or password is checked (429 when the account has none left), so a
 * parallel burst gets no more than a sequence; give it back with releaseSettingTry() when it was right.
 */
const SETTING_TRIES = {
  disable: { key: "two-factor-disable", tooMany: TWO_FACTOR_MESSAGES.tooManyDisable, text: "messages:twoFactor.tooManyWrongCodes" },
  enable: { key: "two-factor-enable-password", tooMany: TWO_FACTOR_MESSAGES.tooManyWrongPasswords, text: "messages:twoFactor.tooManyWrongPasswords" },
} as const;

export async function reserveSettingTry(
  ctx: Pick<PlatformServices, "limiter">,
  what: keyof typeof SETTING_TRIES,
  userId: number,
): Promise<Reservation> {
  const limit: [string, number] = [`${SETTING_TRIES[what].key}:user:${userId}`, DISABLE_MAX_FAILURES];
  const reservation = await ctx.limiter.reserve(...limit, DISABLE_FAILURE_WINDOW_SECONDS);
  if (!reservation) {
    const wait = (await ctx.limiter.blockedFor([limit])) ?? 1;
    throw new DomainError("rate_limited", SETTING_TRIES[what].tooMany(wait), {
      headers: { "Retry-After": String(wait) },
      text: text(SETTING_TRIES[what].text, { count: minutesOf(wait) }),
    });
  }
  return reservation;
}

export async function releaseSettingTry(ctx: Pick<PlatformServices, "limiter">, reservation: Reservation): Promise<void> {
  await ctx.limiter.release([reservation]);
}

// ---------------------------------------------------------------------------------------------
// Sign-in challenges

export type SignInPurpose = "password" | "code" | "google" | "apple";

export const TwoFactorChallengeSchema = z
  .strictObject({
    two_factor_required: z.literal(true),
    challenge: z.string().meta({ description: "Opaque id of the waiting sign-in, for /api/user/two-factor/verify. Shown only here." }),
    expires_in: z.literal(CHALLENGE_TTL_SECONDS).meta({ override: { type: "integer" }, description: "Seconds." }),
  })
  .meta({ id: "TwoFactorChallenge" });

export type TwoFactorChallenge = z.infer<typeof TwoFactorChallengeSchema>;

/** What a first-factor sign-in answers: the token, or (two-factor on) a challenge and no token. */
export const SignInResultSchema = z.union([LoginResultSchema, TwoFactorChallengeSchema]).meta({
  id: "SignInResult",
  description:
    "LoginResult ({token, user}) when the account has two-factor authentication off; otherwise TwoFactorChallenge ({two_factor_required: true, challenge, expires_in}) and no token: finish with /api/user/two-factor/verify.",
});

/** True when a provider's ID token says it asked for more than one factor (RFC 8176 `amr`). */
export function providerUsedMultiFactor(payload: object): boolean {
  const amr = (payload as { amr?: unknown }).amr;
  return Array.isArray(amr) && amr.some((method) => typeof method === "string" && MULTI_FACTOR_AMR.has(method));
}

/**
 * The end of every first-factor sign-in: the bearer token when the account has two-factor off (or
 * the first factor already was multi-factor), else a challenge and no token.
 */
export async function finishSignIn(
  ctx: Pick<PlatformServices, "db" | "config" | "clock">,
  opts: { user: User; device: ReturnType<typeof describeDevice>; purpose: SignInPurpose; multiFactor?: boolean },
): Promise<{ token: string } | TwoFactorChallenge> {
  const { db, config, clock } = ctx;
  if (!opts.multiFactor && (await isTwoFactorEnabled(db, opts.user.id))) {
    return createChallenge(db, opts.user.id, opts.purpose, opts.device);
  }
  const { token } = await issueToken(db, { userId: opts.user.id, device: opts.device, ttlDays: config.tokenTtlDays, clock });
  return { token };
}

async function createChallenge(
  db: Database,
  userId: number,
  purpose: SignInPurpose,
  device: ReturnType<typeof describeDevice>,
): Promise<TwoFactorChallenge> {
  const challenge = generateToken();
  const now = Date.now();
  // Expired challenges are swept here: this is the only place they are made.
  await db.deleteFrom("two_factor_challenges").where("expires_at", "<=", new Date(now).toISOString()).execute();
  await db
    .insertInto("two_factor_challenges")
    .values({
      challenge_hash: hashChallenge(challenge),
      user_id: userId,
      purpose,
      device: JSON.stringify(device),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + CHALLENGE_TTL_SECONDS * 1000).toISOString(),
    })
    .execute();
  return { two_factor_required: true, challenge, expires_in: CHALLENGE_TTL_SECONDS };
}

function hashChallenge(challenge: string): string {
  return hashToken(`two-factor-challenge:${challenge}`);
}

function challengeEnded(message: string = TWO_FACTOR_MESSAGES.challengeEnded): DomainError {
  return new DomainError("challenge_ended", message, { field: "challenge" });
}

/** Per-account count of wrong second factors at sign-in, whatever the challenge (real time). */
export function secondFactorFailureKey(userId: number): string {
  return `two-factor-fail:user:${userId}`;
}

/** Wrong second factors in a row since the account's last complete sign-in (for the owner's alert). */
export function secondFactorStreakKey(userId: number): string {
  return `two-factor-streak:user:${userId}`;
}

/** The owner is emailed when this many wrong second factors come in a row. */
export const SECOND_FACTOR_ALERT_AFTER = 5;
/** How long a run of wrong second factors is remembered for that alert: at most one email a day per run. */
export const SECOND_FACTOR_STREAK_WINDOW_SECONDS = 86_400;

/** 429 'Too many wrong authentication codes for this account. Please try again in N minutes.' */
export function tooManySecondFactorsMessage(retryAfterSeconds: number): string {
  return `Too many wrong authentication codes for this account. ${tryAgainIn(retryAfterSeconds)}`;
}

/** The Text of tooManySecondFactorsMessage (docs/decisions/064). */
export function tooManySecondFactorsText(retryAfterSeconds: number) {
  return text("messages:twoFactor.tooManyForAccount", { count: minutesOf(retryAfterSeconds) });
}

type VerifyContext = Pick<PlatformServices, "db" | "config" | "clock" | "limiter" | "loginThrottle" | "mail" | "logger">;

/**
 * Exchanges a challenge and a second factor for the bearer token. Before the factor is looked at,
 * one try is reserved (atomically, so a parallel burst gets no more than a sequence) on:
 * - the account's second-factor budget (TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT per
 *   LOGIN_FAILURE_WINDOW_SECONDS, whatever the challenge: a fresh sign-in does not refill it);
 * - the failed sign-in limits of the password (per email and address, per address, per email);
 * - the challenge itself (5 tries; the fifth wrong one ends it).
 * A right factor gives the tries back, completes the sign-in and clears the address's and the
 * account's counts; a wrong one keeps them, and the fifth wrong one in a row emails the owner.
 */
export async function verifyChallenge(
  ctx: VerifyContext,
  opts: { challenge: string; code?: string; recovery_code?: string; addressKey: string },
): Promise<{ token: string; user: User; device: ReturnType<typeof describeDevice> }> {
  const { db, config, clock, limiter, loginThrottle } = ctx;
  const nowIso = new Date().toISOString();
  const row = await db
    .selectFrom("two_factor_challenges")
    .innerJoin("users", "users.id", "two_factor_challenges.user_id")
    .select([
      "two_factor_challenges.id as challenge_id",
      "two_factor_challenges.device as device",
      "two_factor_challenges.purpose as purpose",
      "users.id as user_id",
      "users.email as email",
    ])
    .where("two_factor_challenges.challenge_hash", "=", hashChallenge(opts.challenge))
    .where("two_factor_challenges.expires_at", ">", nowIso)
    .where(notDeleted)
    .executeTakeFirst();
  if (!row) throw challengeEnded();
  const userId = Number(row.user_id);

  const accountLimit: [string, number] = [secondFactorFailureKey(userId), config.login.maxSecondFactorFailuresPerAccount];
  const account = await limiter.reserve(...accountLimit, config.login.failureWindowSeconds);
  if (!account) {
    const wait = (await limiter.blockedFor([accountLimit])) ?? 1;
    throw new DomainError("rate_limited", tooManySecondFactorsMessage(wait), { headers: { "Retry-After": String(wait) }, text: tooManySecondFactorsText(wait) });
  }
  const reservations: Reservation[] = [account];
  try {
    reservations.push(...(await loginThrottle.reserve(row.email, opts.addressKey)));
  } catch (error) {
    await limiter.release(reservations);
    throw error;
  }

  const counted = await db
    .updateTable("two_factor_challenges")
    .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
    .where("id", "=", row.challenge_id)
    .where("attempts", "<", CHALLENGE_MAX_ATTEMPTS)
    .returning(["attempts"])
    .executeTakeFirst();
  if (!counted) {
    // Not evaluated: the challenge had no tries left (or was just used up).
    await limiter.release(reservations);
    await db.deleteFrom("two_factor_challenges").where("id", "=", row.challenge_id).execute();
    throw challengeEnded(TWO_FACTOR_MESSAGES.tooManyWrong);
  }

  const field = opts.recovery_code !== undefined ? "recovery_code" : "code";
  let accepted: boolean;
  try {
    accepted = await useSecondFactor(ctx, userId, { code: opts.code, recovery_code: opts.recovery_code });
  } catch (error) {
    await limiter.release(reservations);
    throw error;
  }
  if (!accepted) {
    // The reservations stay: they are this failure's count.
    await noteSecondFactorFailure(ctx, { userId, email: row.email, purpose: row.purpose as SignInPurpose });
    // In the account's activity: someone had the first factor but not the second.
    const device = JSON.parse(row.device) as { user_agent?: string | null };
    await recordSecurityEvent(db, {
      userId,
      kind: "sign_in_failed",
      detail: field === "code" ? "Wrong two-factor code" : "Wrong recovery code",
      userAgent: device.user_agent ?? null,
      ip: opts.addressKey,
      at: clock.now(),
    });
    if (Number(counted.attempts) >= CHALLENGE_MAX_ATTEMPTS) {
      await db.deleteFrom("two_factor_challenges").where("id", "=", row.challenge_id).execute();
      throw challengeEnded(TWO_FACTOR_MESSAGES.tooManyWrong);
    }
    throw wrongSecondFactor(field, field === "code" ? TWO_FACTOR_MESSAGES.codeInvalid : TWO_FACTOR_MESSAGES.recoveryInvalid);
  }

  // Right: not a failure.
  await limiter.release(reservations);
  // The challenge is used up once: of two parallel right answers, one gets the token.
  const removed = await db.deleteFrom("two_factor_challenges").where("id", "=", row.challenge_id).executeTakeFirst();
  if (Number(removed.numDeletedRows) !== 1) throw challengeEnded();
  // The whole sign-in succeeded: now, and only now, the counts start again.
  await loginThrottle.recordSuccess(row.email, opts.addressKey);
  await limiter.clear(secondFactorFailureKey(userId));
  await limiter.clear(secondFactorStreakKey(userId));

  const user = await findUserById(db, userId);
  if (!user) throw challengeEnded();
  const device = JSON.parse(row.device) as ReturnType<typeof describeDevice>;
  const { token } = await issueToken(db, { userId, device, ttlDays: config.tokenTtlDays, clock });
  return { token, user, device };
}

/**
 * Counts a wrong second factor in the account's run; the fifth in a row (one request sees exactly
 * that count) emails the owner. The email is best effort: a mail failure never changes the answer.
 */
async function noteSecondFactorFailure(
  ctx: VerifyContext,
  opts: { userId: number; email: string; purpose: SignInPurpose },
): Promise<void> {
  const streak = await ctx.limiter.hit(secondFactorStreakKey(opts.userId), SECOND_FACTOR_STREAK_WINDOW_SECONDS);
  if (streak.count !== SECOND_FACTOR_ALERT_AFTER) return;
  const mail = secondFactorFailuresEmail(
    opts.email,
    { failures: SECOND_FACTOR_ALERT_AFTER, firstFactor: opts.purpose, at: new Date(), publicUrl: ctx.config.publicUrl },
    await languageOfUser(ctx.db, opts.userId),
  );
  try {
    await ctx.mail.deliver(mail);
  } catch (error) {
    ctx.logger.error(`Mail to ${opts.email} (${mail.subject}) could not be sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
