import { randomBytes } from "node:crypto";
import { asLanguage, text } from "../platform/i18n";
import { passkeyAddedEmail } from "./emails";
import {
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { z } from "zod";
import type { Database } from "../platform/db";
import type { User } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { type Reservation, minutesOf, tryAgainIn } from "../platform/rate-limit";
import type { PlatformServices } from "../platform/services";
import { generateToken, hashToken, looksLikeToken } from "../platform/tokens";
import { consumeCode, invalidCodeError, verifyCode } from "./codes";
import type { PasswordHasher } from "./passwords";
import type { EventSource } from "./security-events";
import { deliverSecurityEmail, noteSecurityEvent } from "./sign-in-alerts";
import { findUserById, notDeleted } from "./users";
import { TWO_FACTOR_MESSAGES, isTwoFactorEnabled, useSecondFactor } from "./two-factor";

/*
 * Passkeys (WebAuthn), issue 22, docs/decisions/037. The ceremony is SimpleWebAuthn's (the field's
 * standard library); this module keeps the state and the rules:
 * - The relying party is PUBLIC_URL: its host is the RP ID and its origin the only expected origin.
 *   Browsers refuse an IP address as an RP ID, so a PUBLIC_URL on a loopback address (127.0.0.1, ::1:
 *   a development machine, the end-to-end tests) is served as 'localhost' on the same port.
 * - Every options answer carries an opaque challenge id. The challenge is stored server-side (the id
 *   only as sha256), valid CHALLENGE_TTL_SECONDS, and used once: verifying deletes it first, whatever
 *   the outcome.
 * - Adding one asks again who is there (issue 30): the session first confirms with the account's
 *   password (an account without one: a code emailed to it, purpose 'passkey') and, when two-factor is
 *   on, a current authentication code. That earns the session (only it) a confirmation valid
 *   CONFIRMATION_TTL_SECONDS; registration options need it, and adding the passkey uses it up. A stolen
 *   session alone cannot plant a passkey.
 * - User verification (PIN, biometrics) is required, at registration and at every sign-in: the
 *   authenticator's UV flag must be set. That is what makes a passkey two factors (possession of the
 *   device plus its verification), so a passkey sign-in skips the two-factor step; a touch alone
 *   (UV = 0) is refused.
 * - Sign-in asks for a discoverable credential (empty allowCredentials, so the browser's conditional
 *   UI can offer it); the credential id finds the passkey and its account.
 * - A password reset hands out a review token (REVIEW_TTL_SECONDS): whoever reset the password can
 *   list the account's passkeys and remove them without signing in, since a new password alone does
 *   not stop a passkey.
 * - Failed sign-in verifications are limited per client address like failed password sign-ins; so
 *   are the options handed out (each is a stored row).
 */

export const PASSKEY_CHALLENGE_TTL_SECONDS = 300;
/** How long a session's confirmation (password, emailed code, second factor) lets it add a passkey. */
export const PASSKEY_CONFIRMATION_TTL_SECONDS = 300;
/** How long the token a password reset answers can list and remove the account's passkeys. */
export const PASSKEY_REVIEW_TTL_SECONDS = 30 * 60;
/** Wrong confirmations (password, emailed or authentication code) per account per window. */
export const PASSKEY_CONFIRM_MAX_FAILURES = 5;
const CONFIRM_FAILURE_WINDOW_SECONDS = 15 * 60;
/** The browser prompt's timeout (ms): a little under the challenge's lifetime. */
const PROMPT_TIMEOUT_MS = 240_000;
export const PASSKEY_NAME_MAX = 60;
export const MAX_PASSKEYS_PER_ACCOUNT = 20;
/** Options handed out per client address per login window: this many times the failed sign-in limit. */
const OPTIONS_PER_FAILURE = 10;
const RP_NAME = "VPN";

export const PASSKEY_MESSAGES = {
  listed: "Your passkeys.",
  registrationOptions: "Follow your browser's prompt to create the passkey.",
  signInOptions: "Choose a passkey.",
  added: "Passkey added.",
  removed: "Passkey removed.",
  nameRequired: "Please enter a passkey name",
  nameTooLong: `The passkey name must not be longer than ${PASSKEY_NAME_MAX} characters`,
  tooMany: `An account can have at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys. Remove one first.`,
  notFound: "This passkey was not found.",
  requestEnded: "This passkey request has expired. Please try again.",
  notRegistered: "This passkey is not registered with any account. Sign in another way, then add it again.",
  notVerified: "The passkey could not be verified. Please try again.",
  alreadyRegistered: "This passkey is already registered.",
  tooManyAttempts: (retryAfterSeconds: number) => `Too many passkey attempts. ${tryAgainIn(retryAfterSeconds)}`,
  loggedIn: "Login successful.",
  confirmed: "Confirmed. You can add a passkey in the next 5 minutes.",
  confirmationRequired: "Please confirm it is you again before adding a passkey.",
  passwordRequired: "Please enter your current password.",
  wrongPassword: "The password is incorrect.",
  verificationCodeRequired: "Please enter the 6-digit verification code",
  tooManyConfirmations: (retryAfterSeconds: number) => `Too many wrong tries. ${tryAgainIn(retryAfterSeconds)}`,
  codeSent: "We have emailed you a code to confirm.",
  codeNotSent: "Failed to send the code. Please try again.",
  hasPassword: "Your account has a password: confirm with your password.",
  reviewInvalid: "This page has expired. Sign in to manage your passkeys.",
} as const;

export const PASSKEY_ADDED_SUBJECT = "A passkey was added to your account";
export const PASSKEY_CODE_SUBJECT = "Your code to add a passkey";

// ---------------------------------------------------------------------------------------------
// The relying party

export interface RelyingParty {
  rpID: string;
  origin: string;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]"]);

export function relyingParty(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  if (LOOPBACK_HOSTS.has(url.hostname)) url.hostname = "localhost";
  return { rpID: url.hostname, origin: url.origin };
}

// ---------------------------------------------------------------------------------------------
// Request shapes (what @simplewebauthn/browser posts), bounded so that hostile input is a 422

const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const b64 = (label: string, max: number) =>
  z
    .string({ error: `The ${label} must be base64url text.` })
    .max(max, { error: `The ${label} is too long.` })
    .regex(BASE64URL, { error: `The ${label} must be base64url text.` });

const TRANSPORTS = z.array(z.string().max(20)).max(10);
const EXTENSIONS = z.record(z.string().max(100), z.unknown()).meta({ description: "clientExtensionResults, as the browser reports them." });

const credentialFields = {
  id: b64("credential id", 1400).min(1, { error: "The credential id is required." }),
  rawId: b64("credential id", 1400).min(1, { error: "The credential id is required." }),
  type: z.literal("public-key", { error: "The credential type must be public-key." }),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: EXTENSIONS.default({}),
};

export const RegistrationResponseSchema = z
  .object({
    ...credentialFields,
    response: z.object({
      clientDataJSON: b64("client data", 8000),
      attestationObject: b64("attestation object", 40_000),
      authenticatorData: b64("authenticator data", 8000).optional(),
      transports: TRANSPORTS.optional(),
      publicKeyAlgorithm: z.int().optional(),
      publicKey: b64("public key", 8000).optional(),
    }),
  })
  .meta({ id: "PasskeyRegistrationResponse", description: "The RegistrationResponseJSON of @simplewebauthn/browser's startRegistration()." });

export const AuthenticationResponseSchema = z
  .object({
    ...credentialFields,
    response: z.object({
      clientDataJSON: b64("client data", 8000),
      authenticatorData: b64("authenticator data", 8000),
      signature: b64("signature", 8000),
      userHandle: b64("user handle", 200).optional(),
    }),
  })
  .meta({ id: "PasskeyAuthenticationResponse", description: "The AuthenticationResponseJSON of @simplewebauthn/browser's startAuthentication()." });

export const PasskeySchema = z
  .strictObject({
    id: z.int(),
    name: z.string(),
    created_at: z.string().meta({ format: "date-time" }),
    last_used_at: z.string().nullable().meta({ format: "date-time", description: "null: never used to sign in." }),
  })
  .meta({ id: "Passkey" });

export type PasskeyView = z.infer<typeof PasskeySchema>;

export const PasskeyReviewSchema = z
  .strictObject({
    token: z.string().meta({ description: `Lists and removes the account's passkeys without signing in (POST /api/auth/reset-password/passkeys…), for ${PASSKEY_REVIEW_TTL_SECONDS / 60} minutes.` }),
    expires_at: z.string().meta({ format: "date-time" }),
    passkeys: z.array(PasskeySchema),
  })
  .nullable()
  .meta({ id: "PasskeyReview", description: "null when the account has no passkeys." });

export const PasskeyOptionsSchema = z
  .strictObject({
    challenge_id: z.string().meta({ description: "Send it back with the browser's answer; single use, valid 300 s." }),
    options: z.record(z.string(), z.unknown()).meta({ description: "optionsJSON for @simplewebauthn/browser (PublicKeyCredentialCreationOptionsJSON or …RequestOptionsJSON)." }),
  })
  .meta({ id: "PasskeyOptions" });

// ---------------------------------------------------------------------------------------------
// Challenges

type Purpose = "register" | "sign_in";

function hashChallengeId(id: string): string {
  return hashToken(`passkey-challenge:${id}`);
}

async function storeChallenge(
  db: Database,
  opts: { purpose: Purpose; challenge: string; userId?: number; userHandle?: string },
): Promise<string> {
  const id = generateToken();
  const now = Date.now();
  // Expired challenges are swept here: this is the only place they are made.
  await db.deleteFrom("passkey_challenges").where("expires_at", "<=", new Date(now).toISOString()).execute();
  await db
    .insertInto("passkey_challenges")
    .values({
      id_hash: hashChallengeId(id),
      purpose: opts.purpose,
      user_id: opts.userId ?? null,
      user_handle: opts.userHandle ?? null,
      challenge: opts.challenge,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + PASSKEY_CHALLENGE_TTL_SECONDS * 1000).toISOString(),
    })
    .execute();
  return id;
}

function requestEnded(): DomainError {
  return new DomainError("passkey_request_ended", PASSKEY_MESSAGES.requestEnded, { field: "challenge_id" });
}

/** Takes (deletes) a live challenge: it is used once, whatever the outcome of the check that follows. */
async function takeChallenge(db: Database, id: string, purpose: Purpose, userId: number | null) {
  const row = await db
    .deleteFrom("passkey_challenges")
    .where("id_hash", "=", hashChallengeId(id))
    .where("purpose", "=", purpose)
    .returningAll()
    .executeTakeFirst();
  if (!row || Date.parse(row.expires_at) <= Date.now()) throw requestEnded();
  if (userId !== null && Number(row.user_id) !== userId) throw requestEnded();
  return row;
}

// ---------------------------------------------------------------------------------------------
// Limits

function optionsLimit(ctx: Pick<PlatformServices, "config">, addressKey: string): [string, number] {
  return [`passkey-options:${addressKey}`, ctx.config.login.maxFailuresPerIp * OPTIONS_PER_FAILURE];
}

function failureLimit(ctx: Pick<PlatformServices, "config">, addressKey: string): [string, number] {
  return [`passkey-fail:${addressKey}`, ctx.config.login.maxFailuresPerIp];
}

async function reserveOrRefuse(ctx: Pick<PlatformServices, "limiter" | "config">, limit: [string, number]): Promise<Reservation> {
  const window = ctx.config.login.failureWindowSeconds;
  const reservation = await ctx.limiter.reserve(...limit, window);
  if (!reservation) {
    const wait = (await ctx.limiter.blockedFor([limit])) ?? 1;
    throw new DomainError("rate_limited", PASSKEY_MESSAGES.tooManyAttempts(wait), {
      headers: { "Retry-After": String(wait) },
      text: text("messages:passkeys.tooManyAttempts", { count: minutesOf(wait) }),
    });
  }
  return reservation;
}

// ---------------------------------------------------------------------------------------------
// The account's passkeys

function view(row: { id: number | string; name: string; created_at: string; last_used_at: string | null }): PasskeyView {
  return { id: Number(row.id), name: row.name, created_at: row.created_at, last_used_at: row.last_used_at };
}

/** The account's passkeys, newest first. */
export async function listPasskeys(db: Database, userId: number): Promise<PasskeyView[]> {
  const rows = await db
    .selectFrom("passkeys")
    .select(["id", "name", "created_at", "last_used_at"])
    .where("user_id", "=", userId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(view);
}

/** Removes one of the account's own passkeys (404 for anyone else's) and records 'Passkey removed'. */
export async function removePasskey(
  ctx: Pick<PlatformServices, "db" | "clock" | "logger">,
  userId: number,
  passkeyId: number,
  source: EventSource,
): Promise<void> {
  const row = await ctx.db
    .deleteFrom("passkeys")
    .where("id", "=", passkeyId)
    .where("user_id", "=", userId)
    .returning(["name"])
    .executeTakeFirst();
  if (!row) throw new DomainError("not_found", PASSKEY_MESSAGES.notFound);
  await noteSecurityEvent(ctx, { userId, kind: "passkey_removed", detail: row.name, ...source });
}

// ---------------------------------------------------------------------------------------------
// Confirming who is there before a passkey is added (issue 30)

export { passkeyAddedEmail, passkeyCodeEmail } from "./emails";

function confirmFieldError(code: "validation_failed" | "wrong_password" | "code_invalid", field: string, message: string): DomainError {
  return new DomainError(code, message, { field });
}

/**
 * Confirms the session again before it may add a passkey: the account's password (an account without
 * one: the code emailed for purpose 'passkey') and, when two-factor is on, a current authentication
 * code (a time step not used before). One try per account is reserved before anything is checked
 * (PASSKEY_CONFIRM_MAX_FAILURES per 15 minutes, so parallel guesses get no more than a sequence) and
 * given back when all is right. The emailed code is used up only once everything else is right.
 * Answers when the confirmation ends; a new one replaces the session's previous one.
 */
export async function confirmForPasskey(
  ctx: Pick<PlatformServices, "db" | "clock" | "config" | "limiter"> & { passwords: PasswordHasher },
  opts: { user: Pick<User, "id" | "email" | "password_hash">; tokenId: number; password?: string; verificationCode?: string; code?: string },
): Promise<{ expiresAt: string }> {
  const { db, clock, limiter } = ctx;
  const { user } = opts;
  if (user.password_hash && !opts.password) throw confirmFieldError("validation_failed", "password", PASSKEY_MESSAGES.passwordRequired);
  if (!user.password_hash && !opts.verificationCode) {
    throw confirmFieldError("validation_failed", "verification_code", PASSKEY_MESSAGES.verificationCodeRequired);
  }
  const twoFactorOn = await isTwoFactorEnabled(db, user.id);
  if (twoFactorOn && !opts.code) throw confirmFieldError("validation_failed", "code", TWO_FACTOR_MESSAGES.codeFormat);

  const limit: [string, number] = [`passkey-confirm:user:${user.id}`, PASSKEY_CONFIRM_MAX_FAILURES];
  const reservation = await limiter.reserve(...limit, CONFIRM_FAILURE_WINDOW_SECONDS);
  if (!reservation) {
    const wait = (await limiter.blockedFor([limit])) ?? 1;
    throw new DomainError("rate_limited", PASSKEY_MESSAGES.tooManyConfirmations(wait), {
      headers: { "Retry-After": String(wait) },
      text: text("messages:passkeys.tooManyConfirmations", { count: minutesOf(wait) }),
    });
  }
  let emailed: Awaited<ReturnType<typeof verifyCode>> | null = null;
  if (user.password_hash) {
    if (!(await ctx.passwords.verify(user.password_hash, opts.password ?? ""))) throw confirmFieldError("wrong_password", "password", PASSKEY_MESSAGES.wrongPassword);
  } else {
    emailed = await verifyCode(db, clock, { email: user.email, purpose: "passkey", code: opts.verificationCode ?? "", field: "verification_code" });
  }
  if (twoFactorOn && !(await useSecondFactor(ctx, user.id, { code: opts.code }))) {
    throw confirmFieldError("code_invalid", "code", TWO_FACTOR_MESSAGES.codeInvalid);
  }
  if (emailed && !(await consumeCode(db, emailed))) throw invalidCodeError("verification_code");
  await limiter.release([reservation]);

  const now = Date.now();
  const expiresAt = new Date(now + PASSKEY_CONFIRMATION_TTL_SECONDS * 1000).toISOString();
  await db.deleteFrom("passkey_confirmations").where("expires_at", "<=", new Date(now).toISOString()).execute();
  await db
    .insertInto("passkey_confirmations")
    .values({ user_id: user.id, token_id: opts.tokenId, created_at: new Date(now).toISOString(), expires_at: expiresAt })
    .onConflict((oc) => oc.column("token_id").doUpdateSet({ user_id: user.id, created_at: new Date(now).toISOString(), expires_at: expiresAt }))
    .execute();
  return { expiresAt };
}

function confirmationRequired(): DomainError {
  return new DomainError("confirmation_required", PASSKEY_MESSAGES.confirmationRequired);
}

/** 403 unless this session of the account has a live confirmation. */
async function requireConfirmation(db: Database, userId: number, tokenId: number): Promise<void> {
  const row = await db
    .selectFrom("passkey_confirmations")
    .select("id")
    .where("token_id", "=", tokenId)
    .where("user_id", "=", userId)
    .where("expires_at", ">", new Date().toISOString())
    .executeTakeFirst();
  if (!row) throw confirmationRequired();
}

/** Uses up the session's live confirmation (one statement: of two parallel adds, one wins), else 403. */
async function useConfirmation(db: Database, userId: number, tokenId: number): Promise<void> {
  const row = await db
    .deleteFrom("passkey_confirmations")
    .where("token_id", "=", tokenId)
    .where("user_id", "=", userId)
    .where("expires_at", ">", new Date().toISOString())
    .returning("id")
    .executeTakeFirst();
  if (!row) throw confirmationRequired();
}

// ---------------------------------------------------------------------------------------------
// Registration

export async function registrationOptions(
  ctx: Pick<PlatformServices, "db" | "config" | "limiter">,
  user: Pick<User, "id" | "email" | "name">,
  session: { tokenId: number; addressKey: string },
): Promise<{ challenge_id: string; options: Record<string, unknown> }> {
  const { db, config } = ctx;
  await requireConfirmation(db, user.id, session.tokenId);
  await reserveOrRefuse(ctx, optionsLimit(ctx, session.addressKey));
  const existing = await db.selectFrom("passkeys").select(["credential_id", "transports", "user_handle"]).where("user_id", "=", user.id).execute();
  if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw new DomainError("validation_failed", PASSKEY_MESSAGES.tooMany, { field: "name" });
  // One user handle per account, so an authenticator keeps one passkey per account.
  const userHandle = existing[0]?.user_handle ?? randomBytes(32).toString("base64url");
  const { rpID } = relyingParty(config.publicUrl);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    userID: new Uint8Array(Buffer.from(userHandle, "base64url")),
    timeout: PROMPT_TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: parseTransports(p.transports) })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  const challengeId = await storeChallenge(db, { purpose: "register", challenge: options.challenge, userId: user.id, userHandle });
  return { challenge_id: challengeId, options: options as unknown as Record<string, unknown> };
}

function parseTransports(stored: string | null): string[] | undefined {
  if (!stored) return undefined;
  try {
    const value: unknown = JSON.parse(stored);
    return Array.isArray(value) ? value.filter((t): t is string => typeof t === "string") : undefined;
  } catch {
    return undefined;
  }
}


export async function addPasskey(
  ctx: Pick<PlatformServices, "db" | "config" | "limiter" | "mail" | "clock" | "logger">,
  user: Pick<User, "id" | "email" | "language">,
  input: { challengeId: string; name: string; response: z.output<typeof RegistrationResponseSchema> },
  source: EventSource & { addressKey: string; tokenId: number },
): Promise<PasskeyView> {
  const { db, config } = ctx;
  const challenge = await takeChallenge(db, input.challengeId, "register", user.id);
  const reservation = await reserveOrRefuse(ctx, failureLimit(ctx, source.addressKey));
  const { rpID, origin } = relyingParty(config.publicUrl);
  let verification: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verification = await verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch {
    throw new DomainError("passkey_rejected", PASSKEY_MESSAGES.notVerified);
  }
  if (!verification.verified) throw new DomainError("passkey_rejected", PASSKEY_MESSAGES.notVerified);
  await ctx.limiter.release([reservation]);

  const { credential } = verification.registrationInfo;
  const taken = await db.selectFrom("passkeys").select("id").where("credential_id", "=", credential.id).executeTakeFirst();
  if (taken) throw new DomainError("validation_failed", PASSKEY_MESSAGES.alreadyRegistered, { field: "name" });
  // One passkey per confirmation; an expired one means confirming again.
  await useConfirmation(db, user.id, source.tokenId);
  const now = new Date().toISOString();
  const transports = credential.transports ?? input.response.response.transports;
  const row = await db
    .insertInto("passkeys")
    .values({
      user_id: user.id,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      transports: transports ? JSON.stringify(transports) : null,
      user_handle: challenge.user_handle ?? randomBytes(32).toString("base64url"),
      name: input.name,
      created_at: now,
      last_used_at: null,
    })
    .returning(["id", "name", "created_at", "last_used_at"])
    .executeTakeFirstOrThrow();
  await noteSecurityEvent(ctx, { userId: user.id, kind: "passkey_added", detail: input.name, userAgent: source.userAgent, clientHints: source.clientHints, ip: source.ip });
  // The passkey is added whether or not the mail server takes the notice.
  await deliverSecurityEmail(ctx, passkeyAddedEmail(user.email, input.name, config.publicUrl, asLanguage(user.language)));
  return view(row);
}

// ---------------------------------------------------------------------------------------------
// Sign-in

export async function signInOptions(
  ctx: Pick<PlatformServices, "db" | "config" | "limiter">,
  addressKey: string,
): Promise<{ challenge_id: string; options: Record<string, unknown> }> {
  await reserveOrRefuse(ctx, optionsLimit(ctx, addressKey));
  const { rpID } = relyingParty(ctx.config.publicUrl);
  // Discoverable credentials: no allowCredentials, so the browser offers whatever passkey it holds.
  const options = await generateAuthenticationOptions({ rpID, timeout: PROMPT_TIMEOUT_MS, userVerification: "required", allowCredentials: [] });
  const challengeId = await storeChallenge(ctx.db, { purpose: "sign_in", challenge: options.challenge });
  return { challenge_id: challengeId, options: options as unknown as Record<string, unknown> };
}

/**
 * Verifies a passkey's answer to a sign-in challenge: the account it belongs to, its counter moved on
 * and its last use recorded. A failure keeps the address's reserved try (the failed sign-in limit).
 */
export async function verifyPasskeySignIn(
  ctx: Pick<PlatformServices, "db" | "config" | "limiter">,
  input: { challengeId: string; response: z.output<typeof AuthenticationResponseSchema> },
  addressKey: string,
): Promise<User> {
  const { db, config } = ctx;
  const reservation = await reserveOrRefuse(ctx, failureLimit(ctx, addressKey));
  const challenge = await takeChallenge(db, input.challengeId, "sign_in", null);
  // Only a live account's passkey: a deleted account's (had one survived) is no one's.
  const passkey = await db
    .selectFrom("passkeys")
    .innerJoin("users", "users.id", "passkeys.user_id")
    .selectAll("passkeys")
    .where("passkeys.credential_id", "=", input.response.id)
    .where(notDeleted)
    .executeTakeFirst();
  if (!passkey) throw new DomainError("passkey_rejected", PASSKEY_MESSAGES.notRegistered);
  const { rpID, origin } = relyingParty(config.publicUrl);
  let verification: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verification = await verifyAuthenticationResponse({
      response: input.response as AuthenticationResponseJSON,
      expectedChallenge: challenge.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      // No two-factor step follows: the authenticator must have verified the person (UV), not only a touch.
      requireUserVerification: true,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, "base64url")),
        counter: Number(passkey.counter),
        transports: parseTransports(passkey.transports),
      },
    });
  } catch {
    // A bad signature, a counter that went backwards (a cloned authenticator), a wrong origin…
    throw new DomainError("passkey_rejected", PASSKEY_MESSAGES.notVerified);
  }
  if (!verification.verified) throw new DomainError("passkey_rejected", PASSKEY_MESSAGES.notVerified);
  await ctx.limiter.release([reservation]);
  await db
    .updateTable("passkeys")
    .set({ counter: verification.authenticationInfo.newCounter, last_used_at: new Date().toISOString() })
    .where("id", "=", passkey.id)
    .execute();
  const user = await findUserById(db, passkey.user_id);
  // Deleted meanwhile.
  if (!user) throw new DomainError("passkey_rejected", PASSKEY_MESSAGES.notRegistered);
  return user;
}

// ---------------------------------------------------------------------------------------------
// After a password reset (issue 30): a new password does not stop a passkey, so whoever reset it
// may see the account's passkeys and remove them without signing in.

export type PasskeyReview = z.infer<typeof PasskeyReviewSchema>;

/** The review token a password reset answers (null when the account has no passkeys); it replaces older ones. */
export async function startPasskeyReview(db: Database, userId: number): Promise<PasskeyReview> {
  const passkeys = await listPasskeys(db, userId);
  if (passkeys.length === 0) return null;
  const token = generateToken();
  const now = Date.now();
  const nowIso = new Date(now).toISOString();
  const expiresAt = new Date(now + PASSKEY_REVIEW_TTL_SECONDS * 1000).toISOString();
  await db
    .deleteFrom("passkey_reviews")
    .where((eb) => eb.or([eb("expires_at", "<=", nowIso), eb("user_id", "=", userId)]))
    .execute();
  await db.insertInto("passkey_reviews").values({ token_hash: hashToken(token), user_id: userId, created_at: nowIso, expires_at: expiresAt }).execute();
  return { token, expires_at: expiresAt, passkeys };
}

/** The live account a review token stands for, or 422 'This page has expired. ...'. */
async function reviewOwner(db: Database, token: string): Promise<number> {
  const invalid = () => new DomainError("link_invalid", PASSKEY_MESSAGES.reviewInvalid, { field: "token" });
  if (!looksLikeToken(token)) throw invalid();
  const row = await db
    .selectFrom("passkey_reviews")
    .innerJoin("users", "users.id", "passkey_reviews.user_id")
    .select("passkey_reviews.user_id")
    .where("passkey_reviews.token_hash", "=", hashToken(token))
    .where("passkey_reviews.expires_at", ">", new Date().toISOString())
    .where("users.deleted_at", "is", null)
    .executeTakeFirst();
  if (!row) throw invalid();
  return Number(row.user_id);
}

/** The review token's account's passkeys, newest first. */
export async function reviewPasskeys(db: Database, token: string): Promise<PasskeyView[]> {
  return listPasskeys(db, await reviewOwner(db, token));
}

/** Removes one of the review token's account's passkeys (404 for anyone else's); records 'Passkey removed'. */
export async function removePasskeyByReview(
  ctx: Pick<PlatformServices, "db" | "clock" | "logger">,
  token: string,
  passkeyId: number,
  source: EventSource,
): Promise<PasskeyView[]> {
  const userId = await reviewOwner(ctx.db, token);
  await removePasskey(ctx, userId, passkeyId, source);
  return listPasskeys(ctx.db, userId);
}
