import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { tombstoneEmail } from "../../api/identity/account-deletion";
import { AUTHENTICATION_CODE_REQUIRED, currentCode, secondFactorFailureKey } from "../../api/identity/two-factor";
import { dialectOf } from "../../api/platform/db";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// 'Delete my account' (issue 12): gateway first, then one transaction that erases personal data and
// keeps the payment records, anonymised.

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };

async function signUpAgain(t: TestApi, email: string) {
  expect((await t.post("/api/user/temp-signup", { json: { email } })).status).toBe(200);
  const code = await t.latestCode(email);
  const res = await t.post("/api/user/register-user", {
    json: {
      email,
      password: "new-password-1",
      password_confirmation: "new-password-1",
      verification_code: code,
      agreement: 1,
      newsletter: 0,
      platform: "Web Browser",
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.user as { id: number; email: string };
}

describe.each(databases({ postgres: "one deletion transaction under the account's row lock" }))("account deletion ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  it("erases personal data, signs out every device, cancels renewal and cards at the gateway, keeps the transactions", async () => {
    const email = "leaving@example.com";
    const { userId, token } = await customer(t, email);
    await t.db.updateTable("users").set({ name: "Leaving Person", newsletter: 1 }).where("id", "=", userId).execute();
    const paid = await t.post("/api/payments/card", {
      token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    const secondDevice = await t.login(email, "pay-password");
    await t.db
      .insertInto("account_links")
      .values({ user_id: userId, link_type: "GOOGLE", subject: "google-sub-leaving", email, created_at: new Date().toISOString() })
      .execute();
    const before = await t.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    const card = await t.db.selectFrom("payment_methods").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    const transactionsBefore = await t.db
      .selectFrom("transactions")
      .select(["id", "amount_cents", "created_at", "status"])
      .where("user_id", "=", userId)
      .execute();
    expect(transactionsBefore).toHaveLength(1);

    const missing = await t.post("/api/account/delete", { token, json: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.password).toEqual(["Please enter your password."]);
    const wrong = await t.post("/api/account/delete", { token, json: { password: "not-the-password" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.password).toEqual(["The password is incorrect."]);
    const hostile = await t.post("/api/account/delete", { token, json: { password: { $ne: 1 } } });
    expect(hostile.status).toBe(422);
    // An account with a password confirms with it, not with an emailed code.
    expect((await t.post("/api/account/delete/send-code", { token })).status).toBe(409);
    expect((await t.get("/api/me", { token })).status).toBe(200);

    const deleted = await t.post("/api/account/delete", { token, form: { password: "pay-password" } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.message).toBe("Your account has been deleted.");

    // Every old token fails, and so do the old credentials.
    expect((await t.get("/api/me", { token })).status).toBe(401);
    expect((await t.get("/api/me", { token: secondDevice })).status).toBe(401);
    const relogin = await t.post("/api/user/login", { json: { email, password: "pay-password" } });
    expect(relogin.status).not.toBe(200);

    // Personal data erased; the row stays only for the payment records.
    const after = await t.db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    expect(after).toMatchObject({
      email: tombstoneEmail(userId),
      name: null,
      password_hash: null,
      email_verified_at: null,
      agreement_at: null,
      newsletter: 0,
      newsletter_at: null,
      stripe_customer_id: null,
    });
    expect(after.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    for (const table of ["tokens", "devices", "payment_methods", "account_links", "one_time_tokens", "desktop_codes"] as const) {
      const rows = await t.db.selectFrom(table).select("user_id").where("user_id", "=", userId).execute();
      expect(rows, table).toEqual([]);
    }
    expect(await t.db.selectFrom("verification_codes").select("id").where("email", "=", email).execute()).toEqual([]);

    // Payment records kept: same amounts and dates, pointing to the anonymised row.
    const transactionsAfter = await t.db
      .selectFrom("transactions")
      .select(["id", "amount_cents", "created_at", "status"])
      .where("user_id", "=", userId)
      .execute();
    expect(transactionsAfter).toEqual(transactionsBefore);
    const subAfter = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
    expect(subAfter.cancel_at_period_end).toBe(1);

    // At the gateway: auto-renewal off, the card detached, the customer without personal data.
    const stripe = t.api.payments.gateway.stripe;
    expect((await stripe.subscriptions.retrieve(sub.stripe_sub_id!)).cancel_at_period_end).toBe(true);
    expect((await stripe.paymentMethods.retrieve(card.payment_method_id)).customer).toBeNull();
    expect(before.stripe_customer_id).toBeTruthy();
    const atStripe = await stripe.customers.retrieve(before.stripe_customer_id!);
    expect(atStripe.deleted).toBeFalsy();
    expect(atStripe).toMatchObject({ email: null, name: null });

    // The email is free: it signs up again as a new account, with no history.
    const fresh = await signUpAgain(t, email);
    expect(fresh.id).not.toBe(userId);
    const freshToken = await t.login(email, "new-password-1");
    const history = await t.post("/api/billing/transactions", { token: freshToken, json: {} });
    expect(history.status, history.text).toBe(200);
    expect(history.body.data.transactions).toEqual([]);
  });

  it("an account without a password confirms with an emailed code", async () => {
    const email = "no-password@example.com";
    const userId = await t.createUser({ email, name: "Google Person" });
    // Code sign-in gives the session, as Google sign-in would.
    expect((await t.post("/api/auth/get-login-code", { json: { email } })).status).toBe(200);
    const login = await t.post("/api/auth/code-login", { json: { email, code: await t.latestCode(email) } });
    expect(login.status, login.text).toBe(200);
    const token = login.body.data.token as string;

    const noCode = await t.post("/api/account/delete", { token, json: {} });
    expect(noCode.status).toBe(422);
    expect(noCode.body.errors.fields.code).toEqual(["Please enter the 6-digit verification code"]);

    const sent = await t.post("/api/account/delete/send-code", { token });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.message).toBe("We have emailed you a code to confirm.");
    const [mail] = await t.mailbox(email);
    expect(mail!.subject).toBe("Your account deletion code");
    // The 30 s rule of every emailed code.
    expect((await t.post("/api/account/delete/send-code", { token })).status).toBe(429);

    const code = await t.latestCode(email);
    // Its own purpose: sent right after a sign-in code, and it does not sign in.
    expect((await t.post("/api/auth/code-login", { json: { email, code } })).status).toBe(422);
    const wrongCode = code === "000000" ? "111111" : "000000";
    const wrong = await t.post("/api/account/delete", { token, json: { code: wrongCode } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.code).toEqual(["Invalid verification code"]);
    const malformed = await t.post("/api/account/delete", { token, json: { code: "12ab" } });
    expect(malformed.status).toBe(422);

    const deleted = await t.post("/api/account/delete", { token, json: { code } });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await t.get("/api/me", { token })).status).toBe(401);
    const after = await t.db.selectFrom("users").select(["email", "name"]).where("id", "=", userId).executeTakeFirstOrThrow();
    expect(after).toEqual({ email: tombstoneEmail(userId), name: null });
  });

  it("limits wrong passwords per account: 5, then 429 even with the right one", async () => {
    const { token } = await customer(t, "guessing@example.com");
    for (let i = 0; i < 5; i++) {
      expect((await t.post("/api/account/delete", { token, json: { password: `guess-${i}` } })).status).toBe(422);
    }
    const limited = await t.post("/api/account/delete", { token, json: { password: "pay-password" } });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/^Too many wrong passwords\. Please try again in \d+ minutes\.$/);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await t.get("/api/me", { token })).status).toBe(200);
  });

  it("is one transaction: a failure half-way deletes nothing", async () => {
    const email = "half-way@example.com";
    const { userId, token } = await customer(t, email);
    // The last statement (the user row's tombstone email) will hit the UNIQUE constraint.
    await t.createUser({ email: tombstoneEmail(userId) });
    const failed = await t.post("/api/account/delete", { token, json: { password: "pay-password" } });
    expect(failed.status).toBe(500);

    expect((await t.get("/api/me", { token })).status).toBe(200);
    const user = await t.db.selectFrom("users").select(["email", "password_hash", "deleted_at"]).where("id", "=", userId).executeTakeFirstOrThrow();
    expect(user.email).toBe(email);
    expect(user.password_hash).toBeTruthy();
    expect(user.deleted_at).toBeNull();
    expect(await t.db.selectFrom("devices").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
  });

  // Issue 33, item 6: the second factor, what is lost, the refund first, the email afterwards.

  const DAY_MS = 86_400_000;
  const PASSWORD = "pay-password";

  async function turnOnTwoFactor(token: string) {
    const setup = await t.post("/api/account/two-factor/setup", { token });
    const secret: string = setup.body.data.secret;
    const enabled = await t.post("/api/account/two-factor/enable", { token, json: { code: currentCode(secret), password: PASSWORD } });
    expect(enabled.status, enabled.text).toBe(200);
    return { secret, recoveryCodes: enabled.body.data.recovery_codes as string[] };
  }

  /** An app code of a later time step than the one 'Turn on' used (each step is accepted once). */
  const nextCode = (secret: string) => currentCode(secret, Date.now() + 30_000);
  /** Six digits that none of the three accepted steps show. */
  const wrongCode = (secret: string) => {
    const valid = new Set([-1, 0, 1, 2].map((steps) => currentCode(secret, Date.now() + steps * 30_000)));
    return ["000000", "111111", "222222", "333333", "444444"].find((code) => !valid.has(code))!;
  };
  const alive = async (userId: number) =>
    (await t.db.selectFrom("users").select("deleted_at").where("id", "=", userId).executeTakeFirstOrThrow()).deleted_at === null;
  const failures = async (userId: number) =>
    Number((await t.db.selectFrom("rate_limits").select("count").where("key", "=", secondFactorFailureKey(userId)).executeTakeFirst())?.count ?? 0);

  async function buyYearByCard(who: { token: string; email: string }) {
    const paid = await t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 5, email: who.email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
  }

  it("with two-factor on: the password alone is refused and nothing is deleted; a wrong code is refused and counted; password and app code delete it", async () => {
    const { userId, token, email } = await customer(t, "two-factor-leaving@example.com");
    const { secret } = await turnOnTwoFactor(token);

    const preview = await t.get("/api/account/delete/preview", { token });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({ confirm_with: "password", two_factor: true, paid_plan: null, refund: null });

    const passwordOnly = await t.post("/api/account/delete", { token, json: { password: PASSWORD } });
    expect(passwordOnly.status).toBe(422);
    expect(passwordOnly.body.errors.fields).toEqual({ authentication_code: [AUTHENTICATION_CODE_REQUIRED] });
    const blank = await t.post("/api/account/delete", { token, form: { password: PASSWORD, authentication_code: "  " } });
    expect(blank.status).toBe(422);
    expect(blank.body.errors.fields.authentication_code).toEqual([AUTHENTICATION_CODE_REQUIRED]);
    // Every missing proof is named at once.
    const nothing = await t.post("/api/account/delete", { token, json: {} });
    expect(nothing.status).toBe(422);
    expect(nothing.body.errors.fields).toEqual({ password: ["Please enter your password."], authentication_code: [AUTHENTICATION_CODE_REQUIRED] });
    expect(await failures(userId)).toBe(0);

    // A wrong password with the right code: refused on the password, and the code is not used up.
    const code = nextCode(secret);
    const wrongPassword = await t.post("/api/account/delete", { token, json: { password: "not-it", authentication_code: code } });
    expect(wrongPassword.status).toBe(422);
    expect(wrongPassword.body.errors.fields).toEqual({ password: ["The password is incorrect."] });

    const wrong = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: wrongCode(secret) } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields).toEqual({ authentication_code: ["Invalid authentication code"] });
    const notARecoveryCode = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: "abcde-fghjk" } });
    expect(notARecoveryCode.status).toBe(422);
    expect(notARecoveryCode.body.errors.fields).toEqual({ authentication_code: ["Invalid recovery code"] });
    // Counted where the sign-in step counts wrong second factors.
    expect(await failures(userId)).toBe(2);
    expect((await t.get("/api/me", { token })).status).toBe(200);
    expect(await alive(userId)).toBe(true);

    const deleted = await t.post("/api/account/delete", { token, form: { password: PASSWORD, authentication_code: `${code.slice(0, 3)} ${code.slice(3)}` } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await alive(userId)).toBe(false);
    expect((await t.get("/api/me", { token })).status).toBe(401);
    expect(await t.db.selectFrom("two_factor").select("user_id").where("user_id", "=", userId).execute()).toEqual([]);
    expect((await t.mailbox(email)).map((mail) => mail.subject)).toContain("Your VPN account was deleted");
  });

  it("a recovery code confirms once; a deletion that fails gives it back", async () => {
    const { userId, token, email } = await customer(t, "recovery-leaving@example.com");
    const { recoveryCodes } = await turnOnTwoFactor(token);
    const [first, second] = recoveryCodes as [string, string];

    // The first one is used at a sign-in's second step.
    const login = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
    expect(login.body.data.two_factor_required).toBe(true);
    const verified = await t.post("/api/user/two-factor/verify", { json: { challenge: login.body.data.challenge, recovery_code: first } });
    expect(verified.status, verified.text).toBe(200);
    const used = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: first } });
    expect(used.status).toBe(422);
    expect(used.body.errors.fields).toEqual({ authentication_code: ["Invalid recovery code"] });
    expect(await alive(userId)).toBe(true);

    // The erasure fails (its tombstone email is taken): nothing was deleted, so the code is still good.
    const blocker = await t.createUser({ email: tombstoneEmail(userId) });
    const typed = second.toUpperCase().replace("-", "");
    expect((await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: typed } })).status).toBe(500);
    expect(await alive(userId)).toBe(true);
    await t.db.deleteFrom("users").where("id", "=", blocker).execute();

    const deleted = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: typed } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await alive(userId)).toBe(false);
  });

  it("wrong codes stop at the account's second-factor budget: then 429, even with the right code", async () => {
    const { userId, token } = await customer(t, "two-factor-guessing@example.com");
    const { secret } = await turnOnTwoFactor(token);
    const limit = t.config.login.maxSecondFactorFailuresPerAccount;
    for (let i = 0; i < limit; i++) {
      const res = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: wrongCode(secret) } });
      expect(res.status, res.text).toBe(422);
    }
    const limited = await t.post("/api/account/delete", { token, json: { password: PASSWORD, authentication_code: nextCode(secret) } });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toMatch(/^Too many wrong authentication codes for this account\. Please try again in \d+ minutes\.$/);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await alive(userId)).toBe(true);
  });

  it("an account without a password and with two-factor: the emailed code and the app code; a wrong app code does not use up the emailed one", async () => {
    const email = "no-password-two-factor@example.com";
    const userId = await t.createUser({ email, name: "Google Person" });
    expect((await t.post("/api/auth/get-login-code", { json: { email } })).status).toBe(200);
    const login = await t.post("/api/auth/code-login", { json: { email, code: await t.latestCode(email) } });
    const token = login.body.data.token as string;
    const setup = await t.post("/api/account/two-factor/setup", { token });
    const secret: string = setup.body.data.secret;
    expect((await t.post("/api/account/two-factor/send-code", { token })).status).toBe(200);
    const enabled = await t.post("/api/account/two-factor/enable", { token, json: { code: currentCode(secret), verification_code: await t.latestCode(email) } });
    expect(enabled.status, enabled.text).toBe(200);

    expect((await t.get("/api/account/delete/preview", { token })).body.data).toMatchObject({ confirm_with: "code", two_factor: true });
    expect((await t.post("/api/account/delete/send-code", { token })).status).toBe(200);
    const emailed = await t.latestCode(email);
    const codeOnly = await t.post("/api/account/delete", { token, json: { code: emailed } });
    expect(codeOnly.status).toBe(422);
    expect(codeOnly.body.errors.fields).toEqual({ authentication_code: [AUTHENTICATION_CODE_REQUIRED] });
    const wrong = await t.post("/api/account/delete", { token, json: { code: emailed, authentication_code: wrongCode(secret) } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields).toEqual({ authentication_code: ["Invalid authentication code"] });

    const deleted = await t.post("/api/account/delete", { token, json: { code: emailed, authentication_code: nextCode(secret) } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await alive(userId)).toBe(false);
  });

  it("emails 'Your VPN account was deleted' to the address the account had, with a text and an HTML part, after the deletion", async () => {
    const email = "goodbye-mail@example.com";
    const { userId, token } = await customer(t, email);
    expect((await t.post("/api/account/delete", { token, json: { password: PASSWORD } })).status).toBe(200);

    const rows = await t.db.selectFrom("mail_outbox").selectAll().where("subject", "=", "Your VPN account was deleted").where("to_address", "=", email).execute();
    expect(rows).toHaveLength(1);
    const [mail] = rows as [(typeof rows)[number]];
    for (const body of [mail.text, mail.html]) {
      expect(body).toContain("Your VPN account with this email address was deleted, as you asked.");
      expect(body).toContain("Deleted: your name, email address and password");
      expect(body).toContain("Kept: the records of your payments (amounts, dates and plans) that the law requires us to keep. They no longer hold your name or email address.");
      expect(body).toContain("Any auto-renewal was cancelled: nothing will be charged again.");
      expect(body).toContain(`${t.config.publicUrl}/login?tab=signup`);
    }
    expect(mail.html).toMatch(/^<!doctype html>/);
    expect(mail.html).toContain("<title>Your VPN account was deleted</title>");
    expect(mail.text).not.toContain("<p>");
    expect(await t.db.selectFrom("mail_outbox").select("id").where("to_address", "=", tombstoneEmail(userId)).execute()).toEqual([]);
  });

  it("a mail failure neither fails nor undoes the deletion", async () => {
    const email = "mail-down@example.com";
    const { userId, token } = await customer(t, email);
    // The outbox refuses this one email, as a mail server that is down would.
    const postgres = dialectOf(t.db) === "postgres";
    if (postgres) {
      await sql`CREATE FUNCTION refuse_deleted_mail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'mail is down'; END; $$ LANGUAGE plpgsql`.execute(t.db);
      await sql`CREATE TRIGGER refuse_deleted_mail BEFORE INSERT ON mail_outbox FOR EACH ROW WHEN (NEW.subject = 'Your VPN account was deleted') EXECUTE FUNCTION refuse_deleted_mail()`.execute(t.db);
    } else {
      await sql`CREATE TRIGGER refuse_deleted_mail BEFORE INSERT ON mail_outbox WHEN NEW.subject = 'Your VPN account was deleted' BEGIN SELECT RAISE(ABORT, 'mail is down'); END`.execute(t.db);
    }
    try {
      const deleted = await t.post("/api/account/delete", { token, json: { password: PASSWORD } });
      expect(deleted.status, deleted.text).toBe(200);
    } finally {
      await sql`DROP TRIGGER refuse_deleted_mail${postgres ? sql` ON mail_outbox` : sql``}`.execute(t.db);
      if (postgres) await sql`DROP FUNCTION refuse_deleted_mail()`.execute(t.db);
    }
    expect(await alive(userId)).toBe(false);
    expect((await t.get("/api/me", { token })).status).toBe(401);
    expect((await t.mailbox(email)).map((mail) => mail.subject)).not.toContain("Your VPN account was deleted");
  });

  // Last in this suite: it moves the product's clock.
  it("says what is lost: the paid days of the plan in the database at the API's clock, and the refund while the guarantee covers the payment", async () => {
    const none = await customer(t, "nothing-to-lose@example.com");
    const empty = await t.get("/api/account/delete/preview", { token: none.token });
    expect(empty.body.data).toEqual({ confirm_with: "password", two_factor: false, now: expect.any(String), paid_plan: null, refund: null });

    const who = await customer(t, "paid-days@example.com");
    await buyYearByCard(who);
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    const payment = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    const expected = (now: Date) => Math.ceil((Date.parse(sub.sub_exp_date) - now.getTime()) / DAY_MS);

    const today = (await t.get("/api/account/delete/preview", { token: who.token })).body.data;
    expect(today.paid_plan).toEqual({ title: sub.title, paid_until: sub.sub_exp_date, days_left: expected(new Date(today.now)), auto_renews: true });
    expect(today.paid_plan.days_left).toBeGreaterThanOrEqual(365);
    expect(today.refund).toMatchObject({ transaction_id: Number(payment.id), history_page: 1, paid_at: payment.created_at, days_since_payment: 0, amount_cents: payment.amount_cents });
    expect(today.refund.refundable_until).toBe(new Date(Date.parse(payment.created_at) + 30 * DAY_MS).toISOString());

    t.clock.advanceSeconds(12 * 86_400);
    const later = (await t.get("/api/account/delete/preview", { token: who.token })).body.data;
    expect(later.paid_plan.days_left).toBe(expected(new Date(later.now)));
    expect(later.paid_plan.days_left).toBe(today.paid_plan.days_left - 12);
    expect(later.refund.days_since_payment).toBe(12);

    // Auto-renewal off: still the same days, and it says the plan does not renew.
    await t.db.updateTable("subscriptions").set({ cancel_at_period_end: 1 }).where("id", "=", sub.id).execute();
    expect((await t.get("/api/account/delete/preview", { token: who.token })).body.data.paid_plan.auto_renews).toBe(false);

    // Day 31: the guarantee no longer covers the payment (the refund's own rule says so too).
    t.clock.advanceSeconds(19 * 86_400);
    const past = (await t.get("/api/account/delete/preview", { token: who.token })).body.data;
    expect(past.refund).toBeNull();
    expect(past.paid_plan.days_left).toBe(expected(new Date(past.now)));
    const refused = await t.post(`/api/billing/transactions/${payment.id}/refund`, { token: who.token, json: {} });
    expect(refused.status).toBe(409);
  });
});
