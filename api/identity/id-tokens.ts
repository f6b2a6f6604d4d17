import { createHash } from "node:crypto";
import { type JWTPayload, type JWTVerifyGetKey, createRemoteJWKSet, jwtVerify } from "jose";
import { DEFAULT_GOOGLE_ISSUER } from "../platform/config";
import { type Database, isUniqueViolation } from "../platform/db";
import { stripControlCharacters } from "../platform/text";

/*
 * OpenID Connect ID tokens from Google and Apple (or the identity sandbox): the signature is
 * checked against the issuer's published keys (discovery document -> jwks_uri), then the issuer,
 * the audience (our client id), the expiry (60 s of clock tolerance) and, when asked, the nonce and
 * the email. RS256 and ES256 only ("none" and HMAC are refused).
 */

export type IdTokenErrorReason =
  | "signature"
  | "issuer"
  | "audience"
  | "expired"
  | "nonce"
  | "email"
  /** Not a JWT, or a required claim (sub, exp) missing. */
  | "malformed"
  /** The issuer's discovery document or keys could not be fetched. */
  | "unavailable";

export class IdTokenError extends Error {
  constructor(readonly reason: IdTokenErrorReason, message: string) {
    super(message);
    this.name = "IdTokenError";
  }
}

export interface IdTokenClaims {
  /** The provider's stable id of the person. */
  sub: string;
  /** Lower-cased; undefined when the token carries none. */
  email: string | undefined;
  /** email_verified: true, or the string "true" (Apple). */
  emailVerified: boolean;
  /** The display name when the token carries one (Google does; Apple never does). */
  name: string | undefined;
  /** Every claim, as verified. */
  payload: JWTPayload;
}

export interface VerifyIdTokenOptions {
  issuer: string;
  /** Our client id at the provider. */
  audience: string;
  /** When given, the token's nonce claim must equal it. */
  nonce?: string;
  /**
   * When given, the token must assert this email (compared without regard to case) and that the
   * provider verified it (reason 'email' otherwise).
   */
  email?: string;
  /** "Now" for the expiry checks (tests). */
  now?: Date;
}

export const ID_TOKEN_ALGORITHMS = ["RS256", "ES256"];
export const ID_TOKEN_CLOCK_TOLERANCE_SECONDS = 60;

/** Discovery documents are re-read after this long (keys are refreshed by jose on an unknown kid). */
const DISCOVERY_TTL_MS = 3600_000;
const FETCH_TIMEOUT_MS = 5000;

interface CachedDiscovery {
  expiresAt: number;
  jwksUri: Promise<string>;
}

const discoveries = new Map<string, CachedDiscovery>();
const keySets = new Map<string, { jwksUri: string; keys: JWTVerifyGetKey }>();

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

async function fetchJwksUri(issuer: string): Promise<string> {
  const response = await fetch(`${trimSlash(issuer)}/.well-known/openid-configuration`, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const doc = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  // OpenID Connect Discovery §4.3: the document must be the issuer's own.
  if (typeof doc.issuer !== "string" || trimSlash(doc.issuer) !== trimSlash(issuer)) {
    throw new Error("discovery document names another issuer");
  }
  if (typeof doc.jwks_uri !== "string" || !/^https?:\/\//i.test(doc.jwks_uri)) {
    throw new Error("discovery document has no jwks_uri");
  }
  return doc.jwks_uri;
}

/** The issuer's jwks_uri from its discovery document, cached an hour per issuer (failures are not cached). */
export function discoverJwksUri(issuer: string): Promise<string> {
  const now = Date.now();
  const cached = discoveries.get(issuer);
  if (cached && cached.expiresAt > now) return cached.jwksUri;
  const jwksUri = fetchJwksUri(issuer);
  const entry: CachedDiscovery = { expiresAt: now + DISCOVERY_TTL_MS, jwksUri };
  discoveries.set(issuer, entry);
  jwksUri.catch(() => {
    if (discoveries.get(issuer) === entry) discoveries.delete(issuer);
  });
  return jwksUri;
}

/** The issuer's key set (a jose remote JWKS, cached per issuer and jwks_uri). */
export async function issuerKeys(issuer: string): Promise<JWTVerifyGetKey> {
  let jwksUri: string;
  try {
    jwksUri = await discoverJwksUri(issuer);
  } catch {
    throw new IdTokenError("unavailable", "The sign-in provider could not be reached.");
  }
  const cached = keySets.get(issuer);
  if (cached && cached.jwksUri === jwksUri) return cached.keys;
  const keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: FETCH_TIMEOUT_MS });
  keySets.set(issuer, { jwksUri, keys });
  return keys;
}

/** Verifies an ID token against the issuer's published keys (discovery + JWKS over HTTP). */
export async function verifyIdToken(token: string, opts: VerifyIdTokenOptions): Promise<IdTokenClaims> {
  return verifyIdTokenWithKeys(token, await issuerKeys(opts.issuer), opts);
}

/** Google's tokens may name their issuer without the scheme. */
function acceptedIssuers(issuer: string): string | string[] {
  const trimmed = trimSlash(issuer);
  return trimmed === DEFAULT_GOOGLE_ISSUER ? [trimmed, "accounts.google.com"] : trimmed;
}

/** Verifies an ID token against the given key set (jose's createLocalJWKSet or createRemoteJWKSet). */
export async function verifyIdTokenWithKeys(
  token: string,
  keys: JWTVerifyGetKey,
  opts: VerifyIdTokenOptions,
): Promise<IdTokenClaims> {
  let payload: JWTPayload;
  try {
    const verified = await jwtVerify(token, keys, {
      issuer: acceptedIssuers(opts.issuer),
      audience: opts.audience,
      algorithms: ID_TOKEN_ALGORITHMS,
      clockTolerance: ID_TOKEN_CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["iss", "aud", "exp", "sub"],
      currentDate: opts.now,
    });
    payload = verified.payload;
  } catch (error) {
    throw toIdTokenError(error);
  }

  if (typeof payload.sub !== "string" || payload.sub === "" || payload.sub.length > 255) {
    throw new IdTokenError("malformed", "The sign-in token has no valid subject.");
  }
  if (opts.nonce !== undefined && payload.nonce !== opts.nonce) {
    throw new IdTokenError("nonce", "The sign-in token was not issued for this sign-in.");
  }
  const claims: IdTokenClaims = {
    sub: payload.sub,
    email: typeof payload.email === "string" && payload.email.trim() ? payload.email.trim().toLowerCase() : undefined,
    emailVerified: payload.email_verified === true || payload.email_verified === "true",
    // A display name the provider lets people choose: what a page or an email cannot show is removed.
    name: typeof payload.name === "string" ? stripControlCharacters(payload.name) || undefined : undefined,
    payload,
  };
  if (opts.email !== undefined) checkIdTokenEmail(claims, opts.email);
  return claims;
}

/** Throws IdTokenError('email') unless the token asserts this email (any case) and that it is verified. */
export function checkIdTokenEmail(
  claims: IdTokenClaims,
  email: string,
  opts: { requireVerified?: boolean } = {},
): void {
  if (!claims.email || claims.email !== email.trim().toLowerCase()) {
    throw new IdTokenError("email", "The email does not match the sign-in token.");
  }
  if ((opts.requireVerified ?? true) && !claims.emailVerified) {
    throw new IdTokenError("email", "The provider has not verified this email address.");
  }
}

function toIdTokenError(error: unknown): IdTokenError {
  if (error instanceof IdTokenError) return error;
  const e = (error ?? {}) as { code?: string; claim?: string };
  switch (e.code) {
    case "ERR_JWT_EXPIRED":
      return new IdTokenError("expired", "The sign-in token has expired.");
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (e.claim === "iss") return new IdTokenError("issuer", "The sign-in token comes from another issuer.");
      if (e.claim === "aud") return new IdTokenError("audience", "The sign-in token was issued for another client.");
      if (e.claim === "nbf" || e.claim === "iat")
        return new IdTokenError("expired", "The sign-in token is not valid now.");
      return new IdTokenError("malformed", "The sign-in token lacks a required claim.");
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return new IdTokenError("signature", "The sign-in token's signature is not valid.");
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return new IdTokenError("malformed", "The sign-in token is not a valid token.");
    default:
      // Fetching the keys failed (timeout, network, a bad JWKS document).
      return new IdTokenError("unavailable", "The sign-in provider could not be reached.");
  }
}

// ---------------------------------------------------------------------------------------------
// Replay

/**
 * The key under which a used ID token is remembered: its issuer and `jti` when it has one (the
 * provider's own id of this token), else the whole token. Only a sha256 is stored.
 */
export function idTokenUseKey(token: string, payload: JWTPayload): string {
  const id = typeof payload.jti === "string" && payload.jti !== "" ? `jti:${payload.iss ?? ""}:${payload.jti}` : `token:${token}`;
  return createHash("sha256").update(`id-token-use:${id}`, "utf8").digest("hex");
}

/**
 * Records a verified ID token as used, once: false when it was used before (a replay). The insert
 * on the primary key is the check, so of parallel uses exactly one gets true. Remembered until the
 * token could no longer verify anyway (`exp` plus the clock tolerance); expired entries are purged
 * here.
 */
export async function claimIdTokenUse(db: Database, token: string, payload: JWTPayload, nowMs = Date.now()): Promise<boolean> {
  const expMs = typeof payload.exp === "number" ? payload.exp * 1000 : nowMs;
  await db.deleteFrom("used_id_tokens").where("expires_at", "<=", new Date(nowMs).toISOString()).execute();
  try {
    await db
      .insertInto("used_id_tokens")
      .values({
        key_hash: idTokenUseKey(token, payload),
        expires_at: new Date(Math.max(expMs, nowMs) + ID_TOKEN_CLOCK_TOLERANCE_SECONDS * 1000).toISOString(),
      })
      .execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
