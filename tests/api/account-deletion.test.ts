import { describe, expect, it } from "vitest";
import { tombstoneEmail } from "../../api/identity/account-deletion";
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
});
