import { Secret, TOTP } from "otpauth";
import { afterAll, describe, expect, it } from "vitest";
import {
  currentCode,
  decryptSecret,
  encryptSecret,
  hashRecoveryCode,
  matchingStep,
  providerUsedMultiFactor,
  timeStep,
} from "../../api/identity/two-factor";
import { loadApiConfig } from "../../api/platform/config";
import { LIVE_ESSENTIALS, databases, useApi } from "./harness";
import { startOidcStub } from "./oidc-stub";

const stub = await startOidcStub();
afterAll(() => stub.close());

// RFC 6238 Appendix B: the published test vectors (8 digits; the seeds are ASCII "1234567890" repeated).
const RFC_SEEDS = {
  SHA1: "12345678901234567890",
  SHA256: "12345678901234567890123456789012",
  SHA512: "1234567890123456789012345678901234567890123456789012345678901234",
} as const;
const RFC_VECTORS: Array<[number, string, keyof typeof RFC_SEEDS]> = [
  [59, "94287082", "SHA1"],
  [59, "46119246", "SHA256"],
  [59, "90693936", "SHA512"],
  [1111111109, "07081804", "SHA1"],
  [1111111109, "68084774", "SHA256"],
  [1111111109, "25091201", "SHA512"],
  [1111111111, "14050471", "SHA1"],
  [1111111111, "67062674", "SHA256"],
  [1111111111, "99943326", "SHA512"],
  [1234567890, "89005924", "SHA1"],
  [1234567890, "91819424", "SHA256"],
  [1234567890, "93441116", "SHA512"],
  [2000000000, "69279037", "SHA1"],
  [2000000000, "90698825", "SHA256"],
  [2000000000, "38618901", "SHA512"],
  [20000000000, "65353130", "SHA1"],
  [20000000000, "77737706", "SHA256"],
  [20000000000, "47863826", "SHA512"],
];

describe("TOTP (RFC 6238)", () => {
  it.each(RFC_VECTORS)("at T=%i the code is %s (%s)", (seconds, expected, algorithm) => {
    const totp = new TOTP({ algorithm, digits: 8, period: 30, secret: Secret.fromUTF8(RFC_SEEDS[algorithm]) });
    expect(totp.generate({ timestamp: seconds * 1000 })).toBe(expected);
    expect(totp.validate({ token: expected, timestamp: seconds * 1000, window: 1 })).toBe(0);
  });

  it("accepts the product's 6-digit codes one step either side, not two", () => {
    const secret = new Secret({ size: 20 }).base32;
    const now = 1_700_000_015_000;
    expect(matchingStep(secret, currentCode(secret, now), now)).toBe(timeStep(now));
    expect(matchingStep(secret, currentCode(secret, now - 30_000), now)).toBe(timeStep(now) - 1);
    expect(matchingStep(secret, currentCode(secret, now + 30_000), now)).toBe(timeStep(now) + 1);
    expect(matchingStep(secret, currentCode(secret, now - 60_000), now)).toBeNull();
    expect(matchingStep(secret, currentCode(secret, now + 60_000), now)).toBeNull();
    expect(matchingStep(secret, "12345", now)).toBeNull();
  });

  it("encrypts secrets per account (AES-256-GCM) and reads recovery codes in any case, with or without the dash", () => {
    const key = Buffer.alloc(32, 7);
    const stored = encryptSecret(key, 5, "JBSWY3DPEHPK3PXP");
    expect(stored).not.toContain("JBSWY3DPEHPK3PXP");
    expect(decryptSecret(key, 5, stored)).toBe("JBSWY3DPEHPK3PXP");
    expect(() => decryptSecret(key, 6, stored)).toThrow();
    expect(() => decryptSecret(Buffer.alloc(32, 8), 5, stored)).toThrow();
    expect(hashRecoveryCode("ABCDE-FGHJK")).toBe(hashRecoveryCode(" abcdefghjk "));
  });

  it("takes its encryption key from TWO_FACTOR_ENCRYPTION_KEY, required outside sandbox mode", () => {
    const hex = "ab".repeat(32);
    const sandbox = { SANDBOX: "true" };
    expect(loadApiConfig({ ...sandbox, TWO_FACTOR_ENCRYPTION_KEY: hex }).twoFactor).toEqual({ encryptionKey: Buffer.from(hex, "hex"), developmentKey: false });
    expect(loadApiConfig({ ...sandbox, TWO_FACTOR_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64") }).twoFactor.encryptionKey).toEqual(Buffer.alloc(32, 1));
    expect(loadApiConfig(sandbox).twoFactor.developmentKey).toBe(true);
    expect(() => loadApiConfig({ ...sandbox, TWO_FACTOR_ENCRYPTION_KEY: "too-short" })).toThrow(/TWO_FACTOR_ENCRYPTION_KEY/);
    const { TWO_FACTOR_ENCRYPTION_KEY: _key, ...withoutKey } = LIVE_ESSENTIALS;
    expect(() => loadApiConfig({ NODE_ENV: "production", ...withoutKey })).toThrow(/TWO_FACTOR_ENCRYPTION_KEY: required outside sandbox mode/);
    expect(loadApiConfig(LIVE_ESSENTIALS).twoFactor.developmentKey).toBe(false);
  });

  it("reads the provider's multi-factor claim", () => {
    expect(providerUsedMultiFactor({ amr: ["pwd", "mfa"] })).toBe(true);
    expect(providerUsedMultiFactor({ amr: ["pwd"] })).toBe(false);
    expect(providerUsedMultiFactor({ amr: "mfa" })).toBe(false);
    expect(providerUsedMultiFactor({})).toBe(false);
  });
});

describe.each(databases())("two-factor authentication ($name)", (kind) => {
  const t = useApi(kind, { env: { ...stub.env, LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "50", CODE_MAX_PER_IP_PER_HOUR: "1000" } });
  let n = 0;
  const PASSWORD = "password-123";

  /** A new account with two-factor on: its token, secret and recovery codes. */
  async function enrolled() {
    const email = `tf-${kind.name}-${++n}@example.com`;
    const userId = await t.createUser({ email, password: PASSWORD });
    const token = await t.login(email, PASSWORD);
    const setup = await t.post("/api/account/two-factor/setup", { token });
    expect(setup.status).toBe(200);
    const secret: string = setup.body.data.secret;
    expect(setup.body.data.otpauth_url).toContain(`secret=${secret}`);
    const enable = await t.post("/api/account/two-factor/enable", { token, json: { code: currentCode(secret), password: PASSWORD } });
    expect(enable.status).toBe(200);
    const recoveryCodes: string[] = enable.body.data.recovery_codes;
    return { email, userId, token, secret, recoveryCodes };
  }

  async function passwordChallenge(email: string): Promise<string> {
    const res = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body.data.token).toBeUndefined();
    expect(res.body.data.two_factor_required).toBe(true);
    return res.body.data.challenge;
  }

  it("leaves sign-in unchanged while off, and keeps the secret only encrypted", async () => {
    const email = `plain-${kind.name}@example.com`;
    await t.createUser({ email, password: PASSWORD });
    const res = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
    expect(Object.keys(res.body.data).sort()).toEqual(["token", "user"]);
    const token = res.body.data.token;
    expect((await t.get("/api/account/two-factor", { token })).body.data).toEqual({ enabled: false, enabled_at: null, recovery_codes_left: 0 });

    const first = await t.post("/api/account/two-factor/setup", { token });
    const again = await t.post("/api/account/two-factor/setup", { token });
    expect(again.body.data.secret).toBe(first.body.data.secret);
    const row = await t.db.selectFrom("two_factor").selectAll().executeTakeFirstOrThrow();
    expect(row.enabled_at).toBeNull();
    expect(row.pending_secret_ciphertext).not.toContain(first.body.data.secret);
    // Not on until a code proves the app has the secret.
    const wrong = await t.post("/api/account/two-factor/enable", { token, json: { code: "000000" === currentCode(first.body.data.secret) ? "111111" : "000000", password: PASSWORD } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.code).toEqual(["Invalid authentication code"]);
    expect(Object.keys((await t.post("/api/user/login", { json: { email, password: PASSWORD } })).body.data).sort()).toEqual(["token", "user"]);
  });

  it("turns on with a code, then asks every password sign-in for a second factor", async () => {
    const { email, token, recoveryCodes } = await enrolled();
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect((await t.get("/api/account/two-factor", { token })).body.data).toMatchObject({ enabled: true, recovery_codes_left: 10 });
    const stored = await t.db.selectFrom("two_factor_recovery_codes").select("code_hash").execute();
    for (const code of recoveryCodes) expect(stored.map((r) => r.code_hash)).not.toContain(code);
    expect((await t.post("/api/account/two-factor/setup", { token })).status).toBe(409);

    const challenge = await passwordChallenge(email);
    const missing = await t.post("/api/user/two-factor/verify", { json: { challenge } });
    expect(missing.status).toBe(422);
    const unknown = await t.post("/api/user/two-factor/verify", { json: { challenge: "nope", code: "123456" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toBe("This sign-in has expired or was ended. Please start again.");
  });

  it("refuses a code that was already used, and accepts the next step's code once", async () => {
    const { email, secret } = await enrolled();
    // The code that turned two-factor on was used: the same one cannot sign in.
    const reused = await t.post("/api/user/two-factor/verify", { json: { challenge: await passwordChallenge(email), code: currentCode(secret) } });
    expect(reused.status).toBe(422);
    expect(reused.body.errors.fields.code).toEqual(["Invalid authentication code"]);

    const next = currentCode(secret, Date.now() + 30_000);
    const challenge = await passwordChallenge(email);
    const ok = await t.post("/api/user/two-factor/verify", { json: { challenge, code: next } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.email).toBe(email);
    expect((await t.get("/api/me", { token: ok.body.data.token })).status).toBe(200);
    // The challenge is used up, and the code too.
    expect((await t.post("/api/user/two-factor/verify", { json: { challenge, code: next } })).status).toBe(422);
    const again = await t.post("/api/user/two-factor/verify", { json: { challenge: await passwordChallenge(email), code: next } });
    expect(again.status).toBe(422);
  });

  it("accepts each recovery code once", async () => {
    const { email, token, recoveryCodes } = await enrolled();
    const code = recoveryCodes[0]!;
    const ok = await t.post("/api/user/two-factor/verify", { json: { challenge: await passwordChallenge(email), recovery_code: code.toUpperCase() } });
    expect(ok.status).toBe(200);
    const again = await t.post("/api/user/two-factor/verify", { json: { challenge: await passwordChallenge(email), recovery_code: code } });
    expect(again.status).toBe(422);
    expect(again.body.errors.fields.recovery_code).toEqual(["Invalid recovery code"]);
    expect((await t.get("/api/account/two-factor", { token })).body.data.recovery_codes_left).toBe(9);
  });

  it("ends the attempt after 5 wrong codes, even if the sixth is right", async () => {
    const { email, secret } = await enrolled();
    const challenge = await passwordChallenge(email);
    const right = currentCode(secret, Date.now() + 30_000);
    const wrong = right === "000000" ? "111111" : "000000";
    for (let i = 0; i < 4; i++) {
      const res = await t.post("/api/user/two-factor/verify", { json: { challenge, code: wrong } });
      expect(res.body.message).toBe("Invalid authentication code");
    }
    const fifth = await t.post("/api/user/two-factor/verify", { json: { challenge, code: wrong } });
    expect(fifth.status).toBe(422);
    expect(fifth.body.message).toBe("Too many wrong codes. Please start again.");
    const sixth = await t.post("/api/user/two-factor/verify", { json: { challenge, code: right } });
    expect(sixth.status).toBe(422);
    expect(sixth.body.message).toBe("This sign-in has expired or was ended. Please start again.");
    // Each wrong second factor is a 'Sign-in failed' in the account's activity.
    const user = await t.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    const failures = await t.db.selectFrom("security_events").select("detail").where("user_id", "=", user.id).where("kind", "=", "sign_in_failed").execute();
    expect(failures.map((row) => row.detail)).toEqual(Array(5).fill("Wrong two-factor code"));
  });

  it("asks after an emailed code, and after Google unless its token says it used multi-factor", async () => {
    const { email, secret } = await enrolled();
    await t.post("/api/auth/get-login-code", { json: { email } });
    const byCode = await t.post("/api/auth/code-login", { json: { email, code: await t.latestCode(email) } });
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.two_factor_required).toBe(true);


    const plain = await t.post("/api/user/thirdparty-login", {
      json: { email, firebase_id_token: await stub.sign("google", { email, sub: `g-${email}`, amr: ["pwd"] }), auth_method: "GOOGLE", platform: "Desktop" },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.data.two_factor_required).toBe(true);
    // The desktop sign-in's device is kept for the token the challenge gives.
    const verified = await t.post("/api/user/two-factor/verify", {
      json: { challenge: plain.body.data.challenge, code: currentCode(secret, Date.now() + 30_000) },
    });
    expect(verified.status).toBe(200);
    const issued = await t.post("/api/auth/desktop-code/issue", { token: verified.body.data.token });
    expect(issued.status).toBe(200);

    const mfa = await t.post("/api/user/thirdparty-login", {
      json: { email, firebase_id_token: await stub.sign("google", { email, sub: `g-${email}`, amr: ["pwd", "mfa"] }), auth_method: "GOOGLE" },
    });
    expect(mfa.status).toBe(200);
    expect(typeof mfa.body.data.token).toBe("string");
  });

  it("turns off with a recovery code (not with a wrong one), and sign-in gives a token again", async () => {
    const { email, token, recoveryCodes } = await enrolled();
    const wrong = await t.post("/api/account/two-factor/disable", { token, json: { recovery_code: "aaaaa-aaaaa" } });
    expect(wrong.status).toBe(422);
    const off = await t.post("/api/account/two-factor/disable", { token, json: { recovery_code: recoveryCodes[3] } });
    expect(off.status).toBe(200);
    expect(await t.db.selectFrom("two_factor_recovery_codes").selectAll().where("code_hash", "=", hashRecoveryCode(recoveryCodes[4]!)).execute()).toEqual([]);
    const res = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
    expect(typeof res.body.data.token).toBe("string");
    expect((await t.post("/api/account/two-factor/disable", { token, json: { code: "123456" } })).status).toBe(409);
  });

  it("leaves nothing behind when the account is deleted", async () => {
    const { userId, token, email, recoveryCodes } = await enrolled();
    await passwordChallenge(email);
    // With two-factor on, deleting asks for the second factor too (issue 33).
    const deleted = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: recoveryCodes[0] } });
    expect(deleted.status, deleted.text).toBe(200);
    for (const table of ["two_factor", "two_factor_recovery_codes", "two_factor_challenges"] as const) {
      expect(await t.db.selectFrom(table).selectAll().where("user_id", "=", userId).execute()).toEqual([]);
    }
  });
});
