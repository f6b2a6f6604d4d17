import { createRemoteJWKSet, type JWTPayload, jwtVerify, type JWTVerifyGetKey } from "jose";
import { discover } from "./providers.server";

// Every ID token is verified before it is trusted: signature against the provider's keys, issuer,
// audience, expiry and our nonce; and the email must be verified by the provider.

export type IdTokenProfile = { email: string; name: string | null; subject: string };

export class IdTokenError extends Error {
  constructor(
    message: string,
    readonly reason: "signature" | "issuer" | "audience" | "expired" | "nonce" | "email" | "invalid",
  ) {
    super(message);
  }
}

const keySets = new Map<string, JWTVerifyGetKey>();

async function keysFor(issuer: string): Promise<JWTVerifyGetKey> {
  let keys = keySets.get(issuer);
  if (!keys) {
    keys = createRemoteJWKSet(new URL((await discover(issuer)).jwks_uri));
    keySets.set(issuer, keys);
  }
  return keys;
}

export async function verifyIdToken(
  idToken: string,
  expected: { issuer: string; audience: string; nonce: string },
  keys?: JWTVerifyGetKey,
): Promise<IdTokenProfile> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys ?? (await keysFor(expected.issuer)), {
      issuer: expected.issuer,
      audience: expected.audience,
      algorithms: ["RS256", "ES256"],
      clockTolerance: 60,
    }));
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    if (code === "ERR_JWT_EXPIRED") throw new IdTokenError("auth.idToken.expired", "expired");
    if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED") {
      const claim = (error as { claim?: string }).claim;
      throw new IdTokenError("auth.idToken.notForUs", claim === "iss" ? "issuer" : "audience");
    }
    if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" || code === "ERR_JWKS_NO_MATCHING_KEY")
      throw new IdTokenError("auth.idToken.unverified", "signature");
    throw new IdTokenError("auth.idToken.unreadable", "invalid");
  }
  if (payload.nonce !== expected.nonce) throw new IdTokenError("auth.idToken.nonce", "nonce");
  const email = typeof payload.email === "string" ? payload.email.toLowerCase() : "";
  // Apple sends email_verified as the string "true".
  const verified = payload.email_verified === true || payload.email_verified === "true";
  if (!email || !verified) throw new IdTokenError("auth.idToken.emailUnverified", "email");
  return { email, name: typeof payload.name === "string" && payload.name.trim() ? payload.name.trim() : null, subject: String(payload.sub ?? "") };
}
