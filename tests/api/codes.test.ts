import { describe, expect, it } from "vitest";
import { databases, useApi } from "./harness";
import { uniqueEmail } from "../support/emails";

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };

const INVALID = "Invalid verification code";
const EXPIRED = "This code has expired. Please request a new one.";
const BURNT = "Too many wrong attempts. Please request a new code.";

/** The error envelope of a refused code, with the message under the given field too. */
function codeRefusal(message: string, field: string) {
  const code = { [INVALID]: "code_invalid", [EXPIRED]: "code_expired", [BURNT]: "too_many_attempts" }[message];
  return { status: false, success: false, message, errors: { message, code, fields: { [field]: [message] } } };
}

describe.each(databases({ postgres: "parallel tries and sends: conditional updates and the code upsert" }))("emailed codes ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  const loginCode = (email: string) => t.post("/api/auth/get-login-code", { json: { email } });
  const codeLogin = (email: string, code: string) => t.post("/api/auth/code-login", { json: { email, code } });

  it("signs in with a code from the outbox; the code is used up", async () => {
    const email = uniqueEmail("code-login");
    await t.createUser({ email, password: "password-123", name: "Coder" });
    const sent = await loginCode(email.toUpperCase());
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      status: true,
      success: true,
      message: "If an account exists for this email, we have sent a sign-in code.",
      data: null,
    });
    const [mail] = await t.mailbox(email);
    expect(mail!.subject).toBe("Your sign-in code");
    const code = await t.latestCode(email);

    const res = await codeLogin(email, ` ${code} `);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, success: true, message: "Login successful." });
    expect(res.body.data.user).toMatchObject({ email, name: "Coder", has_password: true });
    expect((await t.get("/api/me", { token: res.body.data.token })).status).toBe(200);

    // Single use.
    expect((await codeLogin(email, code)).body).toEqual(codeRefusal(EXPIRED, "code"));
  });

  it("stores only a salted hash of the code", async () => {
    const email = uniqueEmail("hashed");
    await t.createUser({ email, password: "password-123" });
    await loginCode(email);
    const code = await t.latestCode(email);
    const row = await t.db
      .selectFrom("verification_codes")
      .selectAll()
      .where("email", "=", email)
      .where("purpose", "=", "login")
      .executeTakeFirstOrThrow();
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.code_salt).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(row)).not.toContain(code);
  });

  it("validates the email and the code's shape", async () => {
    const missing = await loginCode("");
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe("Email is required");
    expect((await t.post("/api/auth/get-login-code", { json: {} })).body.errors.fields.email).toEqual(["Email is required"]);
    const bad = await loginCode("not-an-email");
    expect(bad.status).toBe(422);
    expect(bad.body.errors.fields.email).toEqual(["Please enter a valid email address"]);
    expect((await loginCode(`${"a".repeat(250)}@example.com`)).body.message).toBe("Please enter a valid email address");

    for (const code of ["12345", "1234567", "12a456", "", "      "]) {
      const res = await codeLogin("someone@example.com", code);
      expect(res.status, code).toBe(422);
      expect(res.body.errors.fields.code, code).toEqual(["Please enter the 6-digit verification code"]);
    }
    const noCode = await t.post("/api/auth/code-login", { json: { email: "someone@example.com" } });
    expect(noCode.body.message).toBe("Please enter the 6-digit verification code");
  });

  it("expires a code after 300 seconds (business clock)", async () => {
    const email = uniqueEmail("expiry");
    await t.createUser({ email, password: "password-123" });
    await loginCode(email);
    const code = await t.latestCode(email);
    t.clock.advanceSeconds(290);
    // Still valid at 290 s (a wrong try does not use it up).
    expect((await codeLogin(email, code === "000000" ? "000001" : "000000")).body.message).toBe(INVALID);
    t.clock.advanceSeconds(11);
    const res = await codeLogin(email, code);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(codeRefusal(EXPIRED, "code"));

    // A new code works.
    await loginCode(email);
    expect((await codeLogin(email, await t.latestCode(email))).status).toBe(200);
  });

  it("burns a code after 5 wrong tries: the 6th try fails even with the right code", async () => {
    const email = uniqueEmail("burn");
    await t.createUser({ email, password: "password-123" });
    await loginCode(email);
    const code = await t.latestCode(email);
    const wrong = code === "999999" ? "999998" : "999999";
    for (let i = 1; i <= 5; i++) {
      const res = await codeLogin(email, wrong);
      expect(res.status, `try ${i}`).toBe(422);
      expect(res.body, `try ${i}`).toEqual(codeRefusal(INVALID, "code"));
    }
    const sixth = await codeLogin(email, code);
    expect(sixth.status).toBe(422);
    expect(sixth.body).toEqual(codeRefusal(BURNT, "code"));
    expect((await codeLogin(email, code)).body.message).toBe(BURNT);

    // A new code (after the 30 s gate) starts over.
    t.clock.advanceSeconds(30);
    expect((await loginCode(email)).status).toBe(200);
    expect((await codeLogin(email, await t.latestCode(email))).status).toBe(200);
  });

  it("right tries do not count toward the 5", async () => {
    const email = uniqueEmail("right-tries");
    await t.post("/api/user/temp-signup", { json: { email } });
    const code = await t.latestCode(email);
    const wrong = code === "111111" ? "111112" : "111111";
    for (let i = 0; i < 4; i++) await t.post("/api/user/verify-temp-code", { json: { email, verification_code: wrong } });
    for (let i = 0; i < 3; i++) {
      const ok = await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } });
      expect(ok.status).toBe(200);
    }
    // One wrong try left: it is refused as wrong, then the code is burnt.
    expect((await t.post("/api/user/verify-temp-code", { json: { email, verification_code: wrong } })).body.message).toBe(INVALID);
    expect((await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } })).body.message).toBe(BURNT);
  });

  it("refuses a resend within 30 seconds, then replaces the old code", async () => {
    const email = uniqueEmail("resend");
    await t.createUser({ email, password: "password-123" });
    expect((await loginCode(email)).status).toBe(200);
    const first = await t.latestCode(email);

    const tooSoon = await loginCode(email);
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body).toEqual({
      status: false,
      success: false,
      message: "Please wait 30 seconds before requesting a new code.",
      errors: { message: "Please wait 30 seconds before requesting a new code.", code: "rate_limited" },
    });
    expect(tooSoon.headers.get("retry-after")).toBe("30");
    expect(await t.mailbox(email)).toHaveLength(1);

    t.clock.advanceSeconds(12);
    const later = await loginCode(email);
    expect(later.status).toBe(429);
    expect(later.body.message).toBe("Please wait 18 seconds before requesting a new code.");
    expect(later.headers.get("retry-after")).toBe("18");

    t.clock.advanceSeconds(18);
    expect((await loginCode(email)).status).toBe(200);
    expect(await t.mailbox(email)).toHaveLength(2);
    const second = await t.latestCode(email);
    if (second !== first) expect((await codeLogin(email, first)).body.message).toBe(INVALID);
    expect((await codeLogin(email, second)).status).toBe(200);

    // The gate is per purpose: a reset code may be sent at once.
    expect((await t.post("/api/auth/forgot-password", { json: { email } })).status).toBe(200);
    // And the gate still holds after the code was used up.
    expect((await loginCode(email)).status).toBe(429);
  });

  it("holds under parallel requests: 5 wrong tries at most, one sign-in per code, one send per 30 s", async () => {
    const email = uniqueEmail("parallel");
    await t.createUser({ email, password: "password-123" });
    const sends = await Promise.all(Array.from({ length: 8 }, () => loginCode(email)));
    expect(sends.map((r) => r.status).sort()).toEqual([200, 429, 429, 429, 429, 429, 429, 429]);
    expect(await t.mailbox(email)).toHaveLength(1);

    const code = await t.latestCode(email);
    const wrong = Array.from({ length: 12 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0"));
    const guesses = await Promise.all(wrong.map((w) => codeLogin(email, w)));
    expect(guesses.every((r) => r.status === 422)).toBe(true);
    expect(guesses.filter((r) => r.body.message === INVALID)).toHaveLength(5);
    expect(guesses.filter((r) => r.body.message === BURNT)).toHaveLength(7);
    expect((await codeLogin(email, code)).body.message).toBe(BURNT);

    t.clock.advanceSeconds(30);
    await loginCode(email);
    const fresh = await t.latestCode(email);
    const logins = await Promise.all(Array.from({ length: 6 }, () => codeLogin(email, fresh)));
    expect(logins.filter((r) => r.status === 200)).toHaveLength(1);
    expect(logins.filter((r) => r.status === 422)).toHaveLength(5);
  });

  it("keeps purposes apart: a sign-in code does not reset a password", async () => {
    const email = uniqueEmail("purposes");
    await t.createUser({ email, password: "password-123" });
    await loginCode(email);
    const code = await t.latestCode(email);
    const res = await t.post("/api/auth/reset-password-by-code", { json: { email, code } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(EXPIRED);
    expect((await codeLogin(email, code)).status).toBe(200);
  });

  it("answers unknown emails exactly like known ones", async () => {
    const known = uniqueEmail("known");
    const unknown = uniqueEmail("unknown");
    await t.createUser({ email: known, password: "password-123" });

    for (const path of ["/api/auth/get-login-code", "/api/auth/forgot-password", "/api/user/temp-signup"]) {
      const a = await t.post(path, { json: { email: known } });
      const b = await t.post(path, { json: { email: unknown } });
      expect(a.status, path).toBe(200);
      expect([b.status, b.body], path).toEqual([a.status, a.body]);
      // The 30 s gate too.
      const a2 = await t.post(path, { json: { email: known } });
      const b2 = await t.post(path, { json: { email: unknown } });
      expect(a2.status, path).toBe(429);
      expect([b2.status, b2.body, b2.headers.get("retry-after")], path).toEqual([
        a2.status,
        a2.body,
        a2.headers.get("retry-after"),
      ]);
    }
    // Only the known email got a sign-in and a reset code; sign-up sent both an email (a code only to the unknown one).
    expect((await t.mailbox(known)).map((m) => m.subject)).toEqual([
      "You already have an account",
      "Your password reset code",
      "Your sign-in code",
    ]);
    expect((await t.mailbox(unknown)).map((m) => m.subject)).toEqual(["Your verification code"]);
    expect((await t.mailbox(known))[0]!.text).not.toMatch(/\b\d{6}\b/);

    // Trying codes: the same answers (wrong, then burnt) whether or not the account exists.
    for (const email of [known, unknown]) {
      for (let i = 0; i < 5; i++) expect((await codeLogin(email, "123456")).body).toEqual(codeRefusal(INVALID, "code"));
      expect((await codeLogin(email, "123456")).body).toEqual(codeRefusal(BURNT, "code"));
    }
    // An email never asked for a code: expired.
    expect((await codeLogin(uniqueEmail("never"), "123456")).body).toEqual(codeRefusal(EXPIRED, "code"));
  });

  it("email-is-exists accepts any valid email without saying whether it has an account", async () => {
    const known = uniqueEmail("exists");
    await t.createUser({ email: known, password: "password-123" });
    const a = await t.post("/api/anonymous/subscription/email-is-exists", { json: { email: known } });
    const b = await t.post("/api/anonymous/subscription/email-is-exists", { json: { email: uniqueEmail("absent") } });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ status: true, success: true, message: expect.any(String), data: { accepted: true } });
    expect([b.status, b.body]).toEqual([a.status, a.body]);
    const demo = await t.post("/api/anonymous/subscription/email-is-exists", { form: { email: "DEMO@example.com" } });
    expect(demo.body).toEqual(a.body);

    for (const email of ["nope", "", `${"a".repeat(243)}@example.com`, 42]) {
      const res = await t.post("/api/anonymous/subscription/email-is-exists", { json: { email } });
      expect(res.status, String(email)).toBe(422);
      expect(res.body.message).toBe("Email is not valid for subscription.");
      expect(res.body.errors.fields.email).toEqual(["Email is not valid for subscription."]);
    }
    expect((await t.post("/api/anonymous/subscription/email-is-exists", { json: {} })).status).toBe(422);
    // 254 characters is the limit.
    const longest = `${"a".repeat(242)}@example.com`;
    expect(longest).toHaveLength(254);
    expect((await t.post("/api/anonymous/subscription/email-is-exists", { json: { email: longest } })).status).toBe(200);
  });
});

describe.each(databases())("hourly caps on code requests ($name)", (kind) => {
  const t = useApi(kind, { env: { CODE_MAX_PER_EMAIL_PER_HOUR: "3", CODE_MAX_PER_IP_PER_HOUR: "5" } });
  const TOO_MANY = "Too many code requests. Please try again later.";

  it("caps requests per email (across purposes and addresses), the same for unknown emails", async () => {
    const known = uniqueEmail("cap-known");
    const unknown = uniqueEmail("cap-unknown");
    await t.createUser({ email: known, password: "password-123" });
    const answers: Array<[number, unknown]> = [];
    for (const email of [known, unknown]) {
      const paths = ["/api/auth/get-login-code", "/api/auth/forgot-password", "/api/user/temp-signup", "/api/auth/get-login-code"];
      for (const [i, path] of paths.entries()) {
        t.clock.advanceSeconds(31);
        const res = await t.post(path, { json: { email }, headers: { "x-forwarded-for": `203.0.113.${i + (email === known ? 10 : 20)}` } });
        answers.push([res.status, res.body]);
        if (i === 3) {
          expect(res.status).toBe(429);
          expect(res.body).toEqual({ status: false, success: false, message: TOO_MANY, errors: { message: TOO_MANY, code: "rate_limited" } });
          const retry = Number(res.headers.get("retry-after"));
          expect(retry).toBeGreaterThan(3500);
          expect(retry).toBeLessThanOrEqual(3600);
        } else {
          expect(res.status).toBe(200);
        }
      }
    }
    expect(answers.slice(4).map((a) => a[0])).toEqual(answers.slice(0, 4).map((a) => a[0]));
  });

  it("caps requests per client address", async () => {
    const ip = "198.51.100.77";
    for (let i = 0; i < 5; i++) {
      const res = await t.post("/api/auth/forgot-password", { json: { email: uniqueEmail("cap-ip") }, headers: { "x-forwarded-for": ip } });
      expect(res.status).toBe(200);
    }
    const blocked = await t.post("/api/auth/get-login-code", { json: { email: uniqueEmail("cap-ip") }, headers: { "x-forwarded-for": ip } });
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toBe(TOO_MANY);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(3500);
    // Another address is not affected.
    const other = await t.post("/api/auth/get-login-code", { json: { email: uniqueEmail("cap-ip") }, headers: { "x-forwarded-for": "198.51.100.78" } });
    expect(other.status).toBe(200);
  });

  it("does not count requests refused by the 30 s gate", async () => {
    const email = uniqueEmail("cap-gate");
    const ip = "198.51.100.90";
    expect((await t.post("/api/auth/get-login-code", { json: { email }, headers: { "x-forwarded-for": ip } })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      expect((await t.post("/api/auth/get-login-code", { json: { email }, headers: { "x-forwarded-for": ip } })).status).toBe(429);
    }
    t.clock.advanceSeconds(30);
    expect((await t.post("/api/auth/get-login-code", { json: { email }, headers: { "x-forwarded-for": ip } })).status).toBe(200);
  });
});
