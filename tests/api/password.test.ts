import { describe, expect, it } from "vitest";
import { createSetPasswordToken } from "../../api/identity/one-time-tokens";
import { hashToken } from "../../api/platform/tokens";
import { createUserWithoutPassword } from "../../api/identity/users";
import { databases, useApi } from "./harness";
import { uniqueEmail } from "../support/emails";

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };
const RESET_INVALID = "This reset link is invalid or has expired. Please start again.";
const SET_INVALID = "This link is invalid or has expired.";

describe.each(databases())("password reset ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  /** forgot-password then reset-password-by-code: the reset token. */
  async function resetToken(email: string): Promise<string> {
    const sent = await t.post("/api/auth/forgot-password", { json: { email } });
    expect(sent.status).toBe(200);
    const code = await t.latestCode(email);
    const res = await t.post("/api/auth/reset-password-by-code", { json: { email, code } });
    expect(res.status).toBe(200);
    return res.body.data.reset_token as string;
  }

  const reset = (body: Record<string, unknown>, token?: string) => t.post("/api/auth/reset-password", { json: body, token });

  it("resets the password, revokes the account's other tokens and keeps the caller's own", async () => {
    const email = uniqueEmail("reset");
    await t.createUser({ email, password: "old-password" });
    const mine = await t.login(email, "old-password");
    const other = await t.login(email, "old-password");
    const someoneElse = await t.login("demo@example.com", "demo-password");

    const sent = await t.post("/api/auth/forgot-password", { json: { email } });
    expect(sent.body).toEqual({
      status: true,
      success: true,
      message: "If an account exists for this email, we have sent a password reset code.",
      data: null,
    });
    expect((await t.mailbox(email))[0]!.subject).toBe("Your password reset code");
    const code = await t.latestCode(email);
    const byCode = await t.post("/api/auth/reset-password-by-code", { json: { email, code } });
    expect(byCode.status).toBe(200);
    expect(byCode.body).toMatchObject({ status: true, success: true, data: { reset_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) } });
    const token = byCode.body.data.reset_token as string;
    // Stored hashed, valid 15 minutes.
    const stored = await t.db.selectFrom("one_time_tokens").selectAll().where("token_hash", "=", hashToken(token)).executeTakeFirstOrThrow();
    expect(stored.purpose).toBe("reset");
    expect((Date.parse(stored.expires_at) - Date.parse(stored.created_at)) / 1000).toBe(900);
    // The code is used up.
    expect((await t.post("/api/auth/reset-password-by-code", { json: { email, code } })).status).toBe(422);

    const res = await reset({ token, email, password: "brand-new-pass", password_confirmation: "brand-new-pass" }, mine);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, success: true, message: "Your password has been reset.", data: { passkey_review: null } });

    expect((await t.get("/api/me", { token: mine })).status).toBe(200);
    expect((await t.get("/api/me", { token: other })).status).toBe(401);
    expect((await t.get("/api/me", { token: someoneElse })).status).toBe(200);
    expect((await t.post("/api/user/login", { json: { email, password: "old-password" } })).status).toBe(401);
    expect((await t.post("/api/user/login", { json: { email, password: "brand-new-pass" } })).status).toBe(200);

    // (A sign-in without a device key counts as from a new browser: its alert may come after this email.)
    const mail = (await t.mailbox(email)).find((m) => m.subject !== "New sign-in to your account");
    expect(mail!.subject).toBe("Your password was changed");
    expect(mail!.text).not.toMatch(/\b\d{6}\b/);

    // The reset token is single use.
    const again = await reset({ token, email, password: "third-password", password_confirmation: "third-password" });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({
      status: false,
      success: false,
      message: RESET_INVALID,
      errors: { message: RESET_INVALID, code: "link_invalid", fields: { token: [RESET_INVALID] } },
    });
  });

  it("without a bearer token (or with another account's), revokes every token of the account", async () => {
    const email = uniqueEmail("reset-all");
    await t.createUser({ email, password: "old-password" });
    const a = await t.login(email, "old-password");
    const b = await t.login(email, "old-password");
    const demo = await t.login("demo@example.com", "demo-password");
    const token = await resetToken(email);
    const res = await reset({ token, email, password: "brand-new-pass", password_confirmation: "brand-new-pass" }, demo);
    expect(res.status).toBe(200);
    expect((await t.get("/api/me", { token: a })).status).toBe(401);
    expect((await t.get("/api/me", { token: b })).status).toBe(401);
    expect((await t.get("/api/me", { token: demo })).status).toBe(200);
  });

  it("refuses tokens that are expired, unknown or for another email", async () => {
    const email = uniqueEmail("reset-bad");
    await t.createUser({ email, password: "old-password" });
    const token = await resetToken(email);
    const body = { email, password: "brand-new-pass", password_confirmation: "brand-new-pass" };

    expect((await reset({ ...body, token: "x".repeat(43) })).body.message).toBe(RESET_INVALID);
    expect((await reset({ ...body, token: "short" })).body.message).toBe(RESET_INVALID);
    expect((await reset({ ...body, token: "" })).body.message).toBe(RESET_INVALID);
    const otherEmail = await reset({ ...body, email: "demo@example.com", token });
    expect(otherEmail.status).toBe(422);
    expect(otherEmail.body.message).toBe(RESET_INVALID);
    expect((await reset({ ...body, email: uniqueEmail("nobody"), token })).body.message).toBe(RESET_INVALID);

    await t.db
      .updateTable("one_time_tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("token_hash", "=", hashToken(token))
      .execute();
    expect((await reset({ ...body, token })).body.message).toBe(RESET_INVALID);
    // Nothing changed.
    expect((await t.post("/api/user/login", { json: { email, password: "old-password" } })).status).toBe(200);
  });

  it("checks the new password with the spec's messages", async () => {
    const email = uniqueEmail("reset-rules");
    await t.createUser({ email, password: "old-password" });
    const token = await resetToken(email);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ password: "" }, "password", "Please enter password"],
      [{ password_confirmation: undefined }, "password_confirmation", "Please enter password"],
      [{ password: "short", password_confirmation: "short" }, "password", "Password must be at least 8 characters"],
      [{ password_confirmation: "different-pass" }, "password_confirmation", "Passwords don't match"],
    ];
    for (const [change, field, message] of cases) {
      const res = await reset({ token, email, password: "brand-new-pass", password_confirmation: "brand-new-pass", ...change });
      expect(res.status, message).toBe(422);
      expect(res.body.message, message).toBe(message);
      expect(res.body.errors.fields[field], message).toEqual([message]);
    }
    // The token survived the refused attempts.
    expect((await reset({ token, email, password: "brand-new-pass", password_confirmation: "brand-new-pass" })).status).toBe(200);
  });

  it("lets an account without a password set one through forgot-password", async () => {
    const email = uniqueEmail("google-only");
    await createUserWithoutPassword(t.db, { email, name: "Google User" }, t.clock);
    const token = await resetToken(email);
    expect((await reset({ token, email, password: "first-password", password_confirmation: "first-password" })).status).toBe(200);
    const login = await t.post("/api/user/login", { json: { email, password: "first-password" } });
    expect(login.status).toBe(200);
    expect(login.body.data.user.has_password).toBe(true);
  });

  it("a newer reset token replaces an older one", async () => {
    const email = uniqueEmail("reset-twice");
    await t.createUser({ email, password: "old-password" });
    const first = await resetToken(email);
    t.clock.advanceSeconds(30);
    const second = await resetToken(email);
    const body = { email, password: "brand-new-pass", password_confirmation: "brand-new-pass" };
    expect((await reset({ ...body, token: first })).status).toBe(422);
    expect((await reset({ ...body, token: second })).status).toBe(200);
  });
});

describe.each(databases())("first password ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  const generate = (body: Record<string, unknown>) => t.post("/api/generate/new-password", { json: body });

  /** A bearer token for an account without a password (signed in by code). */
  async function signInByCode(email: string): Promise<string> {
    await t.post("/api/auth/get-login-code", { json: { email } });
    const res = await t.post("/api/auth/code-login", { json: { email, code: await t.latestCode(email) } });
    expect(res.status).toBe(200);
    expect(res.body.data.user.has_password).toBe(false);
    return res.body.data.token as string;
  }

  it("emails a set-password link; the link sets the password once", async () => {
    const email = uniqueEmail("no-password");
    await createUserWithoutPassword(t.db, { email, name: "Apple User" }, t.clock);
    const bearer = await signInByCode(email);
    const me = await t.get("/api/me", { token: bearer });
    expect(me.body.data).toMatchObject({ email, name: "Apple User", has_password: false });

    const res = await t.post("/api/user/set-password-email", { token: bearer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, success: true, message: "We have emailed you a link to set your password.", data: null });
    const [mail] = await t.mailbox(email);
    expect(mail!.subject).toBe("Set your account password");
    const link = new RegExp(`${t.config.publicUrl.replace(/[.:/]/g, "\\$&")}/generate-password/([A-Za-z0-9_-]{43})`).exec(mail!.text);
    expect(link).not.toBeNull();
    const token = link![1]!;

    // The 30 s resend gate applies.
    const again = await t.post("/api/user/set-password-email", { token: bearer });
    expect(again.status).toBe(429);
    expect(again.body.message).toBe("Please wait 30 seconds before requesting a new code.");

    const set = await generate({ token, password: "first-password", password_confirmation: "first-password" });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ status: true, success: true, message: "Your password has been set.", data: null });
    expect((await t.mailbox(email))[0]!.subject).toBe("Your password was set");
    // The session that asked stays signed in and now has a password.
    expect((await t.get("/api/me", { token: bearer })).body.data.has_password).toBe(true);
    expect((await t.post("/api/user/login", { json: { email, password: "first-password" } })).status).toBe(200);

    // Single use.
    const reuse = await generate({ token, password: "other-password", password_confirmation: "other-password" });
    expect(reuse.status).toBe(422);
    expect(reuse.body).toEqual({
      status: false,
      success: false,
      message: SET_INVALID,
      errors: { message: SET_INVALID, code: "link_invalid", fields: { token: [SET_INVALID] } },
    });

    // Now the account has a password.
    t.clock.advanceSeconds(31);
    const has = await t.post("/api/user/set-password-email", { token: bearer });
    expect(has.status).toBe(409);
    expect(has.body.message).toBe("Your account already has a password.");
  });

  it("needs a bearer token", async () => {
    const res = await t.post("/api/user/set-password-email");
    expect(res.status).toBe(401);
  });

  it("createSetPasswordToken: 24 hours, refused when expired or unknown, checked with the spec's messages", async () => {
    const email = uniqueEmail("helper");
    const userId = await createUserWithoutPassword(t.db, { email }, t.clock);
    const token = await createSetPasswordToken(t.db, userId);
    const row = await t.db.selectFrom("one_time_tokens").selectAll().where("token_hash", "=", hashToken(token)).executeTakeFirstOrThrow();
    expect(row.purpose).toBe("set_password");
    expect((Date.parse(row.expires_at) - Date.parse(row.created_at)) / 3600_000).toBe(24);

    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ password: "" }, "password", "Please enter password"],
      [{ password: "short", password_confirmation: "short" }, "password", "Password must be at least 8 characters"],
      [{ password_confirmation: "different-pass" }, "password_confirmation", "Passwords don't match"],
    ];
    for (const [change, field, message] of cases) {
      const res = await generate({ token, password: "first-password", password_confirmation: "first-password", ...change });
      expect(res.status, message).toBe(422);
      expect(res.body.errors.fields[field], message).toEqual([message]);
    }

    const old = await createSetPasswordToken(t.db, userId, Date.now() - 25 * 3600_000);
    expect((await generate({ token: old, password: "first-password", password_confirmation: "first-password" })).body.message).toBe(SET_INVALID);
    expect((await generate({ token: "y".repeat(43), password: "first-password", password_confirmation: "first-password" })).body.message).toBe(SET_INVALID);
    expect((await generate({ password: "first-password", password_confirmation: "first-password" })).body.message).toBe(SET_INVALID);

    expect((await generate({ token, password: "first-password", password_confirmation: "first-password" })).status).toBe(200);
    expect((await generate({ token, password: "first-password", password_confirmation: "first-password" })).status).toBe(422);
  });
});
