import { describe, expect, it } from "vitest";
import { hashToken } from "../../api/platform/tokens";
import { databases, useApi } from "./harness";
import { uniqueEmail } from "../support/emails";

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FIREFOX_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0";

describe.each(databases())("sign-up ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  const registration = (email: string, code: string, extra: Record<string, unknown> = {}) => ({
    email,
    password: "new-password-1",
    password_confirmation: "new-password-1",
    verification_code: code,
    agreement: 1,
    newsletter: 0,
    platform: "Web Browser",
    ...extra,
  });

  it("signs up in three steps: temp-signup, verify-temp-code, register-user", async () => {
    const email = uniqueEmail("signup");
    const sent = await t.post("/api/user/temp-signup", { json: { email, isCheckout: true, plan_id: "6" } });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ status: true, success: true, message: "Verification code sent to your email!", data: null });
    const [mail] = await t.mailbox(email);
    expect(mail!.subject).toBe("Your verification code");
    const code = await t.latestCode(email);
    const row = await t.db.selectFrom("verification_codes").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ purpose: "signup", plan_id: "6" });
    expect(Number(row.is_checkout)).toBe(1);

    const verified = await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ status: true, success: true, message: "Verification successful!", data: null });
    // Verifying does not use the code up.
    expect((await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } })).status).toBe(200);

    const res = await t.post("/api/user/register-user", {
      json: registration(email, code, { newsletter: 1 }),
      headers: { "user-agent": FIREFOX_MAC },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      success: true,
      message: "Registration successful.",
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      data: {
        token: res.body.token,
        user: {
          id: expect.any(Number),
          email,
          name: null,
          has_password: true,
          email_verified_at: expect.stringMatching(ISO),
          created_at: expect.stringMatching(ISO),
          language: null,
        },
      },
    });
    const me = await t.get("/api/me", { token: res.body.token });
    expect(me.body.data.email).toBe(email);

    const user = await t.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
    expect(user.agreement_at).toMatch(ISO);
    expect(Number(user.newsletter)).toBe(1);
    expect(user.newsletter_at).toMatch(ISO);
    const device = await t.db
      .selectFrom("tokens")
      .innerJoin("devices", "devices.id", "tokens.device_id")
      .selectAll("devices")
      .where("tokens.token_hash", "=", hashToken(res.body.token))
      .executeTakeFirstOrThrow();
    expect(device).toMatchObject({ platform: "Web Browser", device_os: "macOS", device_brand: "Firefox" });

    // The code is used up; the password works.
    expect((await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } })).body.message).toBe(
      "This code has expired. Please request a new one.",
    );
    expect((await t.post("/api/user/login", { json: { email, password: "new-password-1" } })).status).toBe(200);
  });

  it("POST /api/user/signup is the same registration in one call; form bodies and flag spellings work", async () => {
    const email = uniqueEmail("one-call");
    await t.post("/api/user/temp-signup", { form: { email } });
    const code = await t.latestCode(email);
    const res = await t.post("/api/user/signup", {
      form: {
        email: email.toUpperCase(),
        password: "another-pass",
        password_confirmation: "another-pass",
        verification_code: code,
        agreement: "on",
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Registration successful.");
    expect(res.body.data.user.email).toBe(email);
    const user = await t.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
    expect(Number(user.newsletter)).toBe(0);
    expect(user.newsletter_at).toBeNull();
  });

  it("validates the registration with the spec's messages", async () => {
    const email = uniqueEmail("invalid");
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ agreement: 0 }, "agreement", "You must agree to terms and conditions"],
      [{ agreement: "0" }, "agreement", "You must agree to terms and conditions"],
      [{ agreement: undefined }, "agreement", "You must agree to terms and conditions"],
      [{ password: "" }, "password", "Please fill in all fields"],
      [{ password_confirmation: undefined }, "password_confirmation", "Please fill in all fields"],
      [{ password: "short", password_confirmation: "short" }, "password", "Password must be at least 8 characters"],
      [{ password_confirmation: "new-password-2" }, "password_confirmation", "Passwords do not match"],
      [{ verification_code: "12345" }, "verification_code", "Please enter the 6-digit verification code"],
      [{ email: "" }, "email", "Email is required"],
      [{ email: "bad@" }, "email", "Please enter a valid email address"],
    ];
    for (const [change, field, message] of cases) {
      const res = await t.post("/api/user/register-user", { json: registration(email, "123456", change) });
      expect(res.status, message).toBe(422);
      expect(res.body.errors.fields[field], message).toEqual([message]);
      expect(Object.keys(res.body.errors.fields), message).toEqual([field]);
      expect(res.body.message, message).toBe(message);
    }
    // temp-signup's own validation.
    const missing = await t.post("/api/user/temp-signup", { json: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe("Email is required");
    const invalid = await t.post("/api/user/temp-signup", { json: { email: "nope" } });
    expect(invalid.body.message).toBe("Please enter a valid email address");
    const code = await t.post("/api/user/verify-temp-code", { json: { email, verification_code: "abc" } });
    expect(code.body.errors.fields.verification_code).toEqual(["Please enter the 6-digit verification code"]);
  });

  it("refuses a wrong or missing code without creating the account", async () => {
    const email = uniqueEmail("wrong-code");
    const none = await t.post("/api/user/register-user", { json: registration(email, "123456") });
    expect(none.status).toBe(422);
    expect(none.body.message).toBe("This code has expired. Please request a new one.");
    await t.post("/api/user/temp-signup", { json: { email } });
    const code = await t.latestCode(email);
    const wrong = await t.post("/api/user/register-user", { json: registration(email, code === "000000" ? "000001" : "000000") });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({
      message: "Invalid verification code",
      code: "code_invalid",
      fields: { verification_code: ["Invalid verification code"] },
    });
    expect(await t.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst()).toBeUndefined();
  });

  it("an existing account gets 'You already have an account' instead of a code, and the same answer", async () => {
    const email = uniqueEmail("existing");
    await t.createUser({ email, password: "password-123" });
    const res = await t.post("/api/user/temp-signup", { json: { email } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Verification code sent to your email!");
    const [mail] = await t.mailbox(email);
    expect(mail!.subject).toBe("You already have an account");
    expect(mail!.text).not.toMatch(/\b\d{6}\b/);
    expect(mail!.text).toContain(`${t.config.publicUrl}/login`);
    expect(mail!.text).toContain(`${t.config.publicUrl}/forget-password`);
  });

  it("answers 409 when the account was created after the code was sent", async () => {
    const email = uniqueEmail("race");
    await t.post("/api/user/temp-signup", { json: { email } });
    const code = await t.latestCode(email);
    await t.createUser({ email, password: "password-123" }); // e.g. signed up with Google meanwhile
    const res = await t.post("/api/user/register-user", { json: registration(email, code) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      status: false,
      success: false,
      message: "An account with this email already exists. Please sign in.",
      errors: { message: "An account with this email already exists. Please sign in.", code: "email_taken" },
    });
    // The existing password is untouched.
    expect((await t.post("/api/user/login", { json: { email, password: "password-123" } })).status).toBe(200);
  });

  it("registers a desktop client with its device fields", async () => {
    const email = uniqueEmail("desktop");
    await t.post("/api/user/temp-signup", { json: { email } });
    const res = await t.post("/api/user/register-user", {
      json: registration(email, await t.latestCode(email), {
        platform: "Desktop",
        device_os: "Windows",
        device_os_version: "11",
        device_brand: "Lenovo",
        device_model: "ThinkPad",
      }),
    });
    expect(res.status).toBe(200);
    const device = await t.db
      .selectFrom("tokens")
      .innerJoin("devices", "devices.id", "tokens.device_id")
      .selectAll("devices")
      .where("tokens.token_hash", "=", hashToken(res.body.token))
      .executeTakeFirstOrThrow();
    expect(device).toMatchObject({ platform: "Desktop", device_os: "Windows", device_os_version: "11", device_brand: "Lenovo", device_model: "ThinkPad" });
  });
});
