import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { nameFromAppleUser } from "~/utils/identity/apple-strategy.server";
import { displayName } from "~/utils/identity/common.server";
import { IdTokenError, verifyIdToken } from "~/utils/identity/id-token.server";

// The portal's check of a provider's ID token (the API checks it again on its own).
const ISSUER = "https://issuer.example";
const AUDIENCE = "portal-client";
const NONCE = "nonce-123";

let sign: (claims: JWTPayload, options?: { key?: "other"; expiresIn?: string }) => Promise<string>;
let keys: ReturnType<typeof createLocalJWKSet>;

beforeAll(async () => {
  const good = await generateKeyPair("RS256");
  const other = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(good.publicKey)), kid: "k1", alg: "RS256" };
  keys = createLocalJWKSet({ keys: [jwk] });
  sign = (claims, options = {}) =>
    new SignJWT({ email: "ada@example.com", email_verified: true, nonce: NONCE, name: "Ada", ...claims })
      .setProtectedHeader({ alg: "RS256", kid: "k1" })
      .setIssuer(typeof claims.iss === "string" ? claims.iss : ISSUER)
      .setAudience((claims.aud as string | undefined) ?? AUDIENCE)
      .setSubject("subject-1")
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "5m")
      .sign(options.key === "other" ? other.privateKey : good.privateKey);
});

const expected = { issuer: ISSUER, audience: AUDIENCE, nonce: NONCE };

async function reason(token: Promise<string>) {
  try {
    await verifyIdToken(await token, expected, keys);
    return "accepted";
  } catch (error) {
    return error instanceof IdTokenError ? error.reason : `unexpected: ${String(error)}`;
  }
}

describe("verifyIdToken", () => {
  it("accepts a good token and reads email, name and subject", async () => {
    expect(await verifyIdToken(await sign({}), expected, keys)).toEqual({ email: "ada@example.com", name: "Ada", subject: "subject-1" });
  });

  it("accepts Apple's string email_verified", async () => {
    expect((await verifyIdToken(await sign({ email_verified: "true", name: undefined }), expected, keys)).name).toBeNull();
  });

  it.each([
    ["a bad signature", () => sign({}, { key: "other" }), "signature"],
    ["another audience", () => sign({ aud: "someone-else" }), "audience"],
    ["another issuer", () => sign({ iss: "https://evil.example" }), "issuer"],
    ["an expired token", () => sign({}, { expiresIn: "-5m" }), "expired"],
    ["a wrong nonce", () => sign({ nonce: "replayed" }), "nonce"],
    ["a missing nonce", () => sign({ nonce: undefined }), "nonce"],
    ["an unverified email", () => sign({ email_verified: false }), "email"],
    ["no email", () => sign({ email: undefined }), "email"],
  ])("refuses %s", async (_name, token, expectedReason) => {
    expect(await reason(token())).toBe(expectedReason);
  });

  it("refuses garbage", async () => {
    expect(await reason(Promise.resolve("not.a.jwt"))).toBe("invalid");
  });
});

describe("names from providers", () => {
  it("takes Apple's first-time user field", () => {
    expect(nameFromAppleUser('{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"a@b.co"}')).toBe("Ada Lovelace");
    expect(nameFromAppleUser('{"name":{"firstName":"Ada"}}')).toBe("Ada");
    expect(nameFromAppleUser("")).toBeNull();
    expect(nameFromAppleUser("{not json")).toBeNull();
  });

  it("falls back to the part of the email before the @ (identity §3)", () => {
    expect(displayName(null, "grace.hopper@example.com")).toBe("grace.hopper");
    expect(displayName("  ", "x@example.com")).toBe("x");
    expect(displayName("Grace", "x@example.com")).toBe("Grace");
  });
});
