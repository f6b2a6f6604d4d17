/*
 * Sign in with Apple's client authentication, as the Apple stand-in checks it: the token request's
 * `client_secret` is an ES256 JWT signed with the developer's private key (the .p8), header
 * kid = key id, claims iss = team id, sub = client id (the Services ID), aud = Apple's issuer
 * (here the stand-in's issuer), iat, and exp at most six months after iat.
 */
import { type CryptoKey, type JWTPayload, decodeProtectedHeader, jwtVerify } from "jose";

/** Apple refuses client secrets whose exp is more than 15777000 s (six months) after iat. */
export const APPLE_CLIENT_SECRET_MAX_LIFETIME_SECONDS = 15_777_000;
const CLOCK_TOLERANCE_SECONDS = 60;

export interface AppleClientSecretExpectations {
  teamId: string;
  clientId: string;
  keyId: string;
  /** The `aud` the JWT must carry: the Apple stand-in's issuer. */
  audience: string;
  /** The public half of the developer key. */
  publicKey: CryptoKey;
  now?: Date;
}

export type AppleClientSecretResult = { ok: true; payload: JWTPayload } | { ok: false; reason: string };

/** Checks a client_secret JWT; never throws. `reason` is safe to return as error_description. */
export async function verifyAppleClientSecret(
  secret: string,
  expected: AppleClientSecretExpectations,
): Promise<AppleClientSecretResult> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(secret);
  } catch {
    return { ok: false, reason: "client_secret is not a JWT" };
  }
  if (header.alg !== "ES256") return { ok: false, reason: "client_secret must be signed with ES256" };
  if (header.kid !== expected.keyId) return { ok: false, reason: "client_secret kid does not name the registered key" };

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(secret, expected.publicKey, {
      algorithms: ["ES256"],
      issuer: expected.teamId,
      subject: expected.clientId,
      audience: expected.audience,
      requiredClaims: ["iss", "sub", "aud", "iat", "exp"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: expected.now,
    }));
  } catch (error) {
    return { ok: false, reason: describeJoseError(error) };
  }

  const now = Math.floor((expected.now ?? new Date()).getTime() / 1000);
  const iat = payload.iat as number;
  const exp = payload.exp as number;
  if (iat > now + CLOCK_TOLERANCE_SECONDS) return { ok: false, reason: "client_secret iat is in the future" };
  if (exp - iat > APPLE_CLIENT_SECRET_MAX_LIFETIME_SECONDS || exp - now > APPLE_CLIENT_SECRET_MAX_LIFETIME_SECONDS) {
    return { ok: false, reason: "client_secret exp is more than six months ahead" };
  }
  return { ok: true, payload };
}

function describeJoseError(error: unknown): string {
  const e = (error ?? {}) as { code?: string; claim?: string };
  switch (e.code) {
    case "ERR_JWT_EXPIRED":
      return "client_secret has expired";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "client_secret signature is invalid (it was not signed with the registered key)";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      switch (e.claim) {
        case "iss":
          return "client_secret iss must be the team id";
        case "sub":
          return "client_secret sub must be the client id";
        case "aud":
          return "client_secret aud must be the Apple issuer";
        case "nbf":
        case "iat":
          return "client_secret is not valid yet";
        default:
          return `client_secret is missing or has an invalid ${e.claim ?? "claim"}`;
      }
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return "client_secret is not a valid JWT";
    default:
      return "client_secret could not be verified";
  }
}
