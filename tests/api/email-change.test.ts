import { describe, expect, it } from "vitest";
import { describeDevice, issueToken } from "../../api/identity/sessions";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, newKey, paymentMethod } from "./payment-support";

// Changing the account's email (issue 22, docs/decisions/036): password or emailed code, a code to
// the new address, no enumeration, the unique race, and the 7-day link that puts the old one back.

const LOTS = { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "1000" };
const PASSWORD = "change-password-1";
let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;

async function account(t: TestApi, opts: { password?: string | null } = {}) {
  const email = unique("owner");
  const password = opts.password === undefined ? PASSWORD : opts.password;
  const userId = await t.createUser({ email, password });
  const token = password
    ? await t.login(email, password)
    : (await issueToken(t.db, { userId, device: describeDevice({ platform: "Web Browser" }, "test"), ttlDays: 1, clock: t.clock })).token;
  return { email, userId, token };
}

function revertLinkIn(text: string): string {
  const match = text.match(/\/email-revert\/([A-Za-z0-9_-]+)/);
  if (!match) throw new Error(`no revert link in ${text}`);
  return match[1]!;
}

/** Let the 30 s resend gate pass (business clock). */
function pass30s(t: TestApi) {
  t.clock.advanceSeconds(31);
}

describe.each(databases())("email change ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  it("changes the email with the password and the code sent to the new address; the old address gets the revert link", async () => {
    const { email, userId, token } = await account(t);
    const newEmail = unique("moved");
    await t.db
      .insertInto("account_links")
      .values({ user_id: userId, link_type: "GOOGLE", subject: "google-sub-change", email, created_at: new Date().toISOString() })
      .execute();

    const wrong = await t.post("/api/account/email/start", { token, json: { email: newEmail, password: "not-it" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.password).toEqual(["The password is incorrect."]);
    const missing = await t.post("/api/account/email/start", { token, json: { email: newEmail } });
    expect(missing.body.errors.fields.password).toEqual(["Please enter your current password."]);
    const same = await t.post("/api/account/email/start", { token, json: { email: email.toUpperCase(), password: PASSWORD } });
    expect(same.body.errors.fields.email).toEqual(["This is already your email address."]);
    const bad = await t.post("/api/account/email/start", { token, json: { email: "nope", password: PASSWORD } });
    expect(bad.status).toBe(422);
    const hostile = await t.post("/api/account/email/start", { token, json: { email: { $ne: 1 }, password: [PASSWORD] } });
    expect(hostile.status).toBe(422);
    expect(await t.mailbox(newEmail)).toHaveLength(0);

    const started = await t.post("/api/account/email/start", { token, form: { email: ` ${newEmail.toUpperCase()} `, password: PASSWORD } });
    expect(started.status, started.text).toBe(200);
    expect(started.body.message).toBe("We have emailed a code to your new email address.");
    const [codeMail] = await t.mailbox(newEmail);
    expect(codeMail!.subject).toBe("Confirm your new email address");
    const code = await t.latestCode(newEmail);

    const wrongCode = await t.post("/api/account/email/verify", { token, json: { code: code === "000000" ? "111111" : "000000" } });
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.body.errors.fields.code).toEqual(["Invalid verification code"]);

    const verified = await t.post("/api/account/email/verify", { token, json: { code } });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.message).toBe("Your email address has been changed.");
    expect(verified.body.data.email).toBe(newEmail);
    // The session stays; the account has the new address; the link to Google stays.
    const me = await t.get("/api/me", { token });
    expect(me.body.data.email ?? me.body.data.user?.email).toBe(newEmail);
    const link = await t.db.selectFrom("account_links").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    expect(link.subject).toBe("google-sub-change");

    // Sign in with the new address, not the old one.
    await t.login(newEmail, PASSWORD);
    expect((await t.post("/api/user/login", { json: { email, password: PASSWORD } })).status).not.toBe(200);

    const [changed] = await t.mailbox(email);
    expect(changed!.subject).toBe("Your email address was changed");
    expect(changed!.text).toContain(`${t.config.publicUrl}/email-revert/`);
    const revert = await t.db.selectFrom("email_change_reverts").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    expect(Date.parse(revert.expires_at) - Date.parse(revert.created_at)).toBe(7 * 86_400_000);
    expect(revert.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(revert.token_hash).not.toBe(revertLinkIn(changed!.text));

    // The event log has it, without addresses.
    const events = await t.db.selectFrom("security_events").selectAll().where("user_id", "=", userId).execute();
    const change = events.find((event) => event.kind === "email_changed");
    expect(change).toBeDefined();
    expect(change!.detail).toBeNull();
    expect(JSON.stringify(events)).not.toContain("@");

    // The code is used up.
    const again = await t.post("/api/account/email/verify", { token, json: { code } });
    expect(again.status).toBe(422);
  });

  it("answers the same for an address that has an account: that address is told so, and no code works", async () => {
    const { token } = await account(t);
    const other = await account(t);
    const free = unique("free");

    const toFree = await t.post("/api/account/email/start", { token, json: { email: free, password: PASSWORD } });
    pass30s(t);
    const toTaken = await t.post("/api/account/email/start", { token, json: { email: other.email, password: PASSWORD } });
    expect(toTaken.status).toBe(toFree.status);
    expect(toTaken.body).toEqual(toFree.body);
    expect([...toTaken.headers.keys()].sort()).toEqual([...toFree.headers.keys()].sort());

    const [notice] = await t.mailbox(other.email);
    expect(notice!.subject).toBe("This email address already has an account");
    expect(notice!.text.match(/\b\d{6}\b/g)).toBeNull();
    // The code sent to the free address earlier was replaced; any code is refused with the ordinary message.
    for (const code of [await t.latestCode(free), "123456"]) {
      const refused = await t.post("/api/account/email/verify", { token, json: { code } });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.fields.code).toEqual(["Invalid verification code"]);
    }
    const still = await t.db.selectFrom("users").select("email").where("email", "=", other.email).execute();
    expect(still).toHaveLength(1);
  });

  it("refuses with the invalid-code message when the address got an account meanwhile", async () => {
    const { token, email } = await account(t);
    const target = unique("meanwhile");
    expect((await t.post("/api/account/email/start", { token, json: { email: target, password: PASSWORD } })).status).toBe(200);
    const code = await t.latestCode(target);
    await t.createUser({ email: target, password: "someone-else-1" });
    const refused = await t.post("/api/account/email/verify", { token, json: { code } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.fields.code).toEqual(["Invalid verification code"]);
    const me = await t.db.selectFrom("users").select("email").where("email", "=", email).execute();
    expect(me).toHaveLength(1);
  });

  it("an account without a password confirms with a code sent to its current address", async () => {
    const { email, token } = await account(t, { password: null });
    const newEmail = unique("nopass-moved");
    const needCode = await t.post("/api/account/email/start", { token, json: { email: newEmail } });
    expect(needCode.status).toBe(422);
    expect(needCode.body.errors.fields.code).toEqual(["Please enter the code we sent to your current email address."]);

    const sent = await t.post("/api/account/email/send-auth-code", { token });
    expect(sent.status, sent.text).toBe(200);
    const authCode = await t.latestCode(email);
    const wrong = await t.post("/api/account/email/start", { token, json: { email: newEmail, code: authCode === "000000" ? "111111" : "000000" } });
    expect(wrong.body.errors.fields.code).toEqual(["Invalid verification code"]);
    const started = await t.post("/api/account/email/start", { token, json: { email: newEmail, code: authCode } });
    expect(started.status, started.text).toBe(200);
    const verified = await t.post("/api/account/email/verify", { token, json: { code: await t.latestCode(newEmail) } });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.data.email).toBe(newEmail);
    // An account with a password confirms with it instead.
    const withPassword = await account(t);
    expect((await t.post("/api/account/email/send-auth-code", { token: withPassword.token })).status).toBe(409);
  });

  it("resends under the 30 s gate", async () => {
    const { token } = await account(t);
    const target = unique("resend");
    expect((await t.post("/api/account/email/resend", { token })).status).toBe(422);
    expect((await t.post("/api/account/email/start", { token, json: { email: target, password: PASSWORD } })).status).toBe(200);
    const tooSoon = await t.post("/api/account/email/resend", { token });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.message).toMatch(/^Please wait \d+ seconds before requesting a new code\.$/);
    pass30s(t);
    const resent = await t.post("/api/account/email/resend", { token });
    expect(resent.status, resent.text).toBe(200);
    const mails = await t.mailbox(target);
    expect(mails).toHaveLength(2);
    const verified = await t.post("/api/account/email/verify", { token, json: { code: await t.latestCode(target) } });
    expect(verified.status).toBe(200);
  });

  it("the revert link puts the old address back, signs out everywhere, works once and for 7 days", async () => {
    const { email, userId, token } = await account(t);
    const second = await t.login(email, PASSWORD);
    const newEmail = unique("revert");
    await t.post("/api/account/email/start", { token, json: { email: newEmail, password: PASSWORD } });
    expect((await t.post("/api/account/email/verify", { token, json: { code: await t.latestCode(newEmail) } })).status).toBe(200);
    const link = revertLinkIn((await t.mailbox(email))[0]!.text);

    expect((await t.post("/api/account/email/revert", { json: { token: "x".repeat(43) } })).status).toBe(422);
    const reverted = await t.post("/api/account/email/revert", { form: { token: link } });
    expect(reverted.status, reverted.text).toBe(200);
    expect(reverted.body.message).toBe("Your previous email address is back, and every device has been signed out. Please sign in again.");
    const user = await t.db.selectFrom("users").select("email").where("id", "=", userId).executeTakeFirstOrThrow();
    expect(user.email).toBe(email);
    expect((await t.get("/api/me", { token })).status).toBe(401);
    expect((await t.get("/api/me", { token: second })).status).toBe(401);
    await t.login(email, PASSWORD);

    const twice = await t.post("/api/account/email/revert", { json: { token: link } });
    expect(twice.status).toBe(422);
    expect(twice.body.message).toBe("This link is invalid, has expired or was already used.");
  });

  it("the card gateway's customer follows the change and the revert, so Stripe's receipts go to the address in use", async () => {
    const { email, userId, token } = await account(t);
    const paid = await t.post("/api/payments/card", {
      token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    const { stripe_customer_id } = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", userId).executeTakeFirstOrThrow();
    const stripe = t.api.payments.gateway.stripe;
    const emailAtStripe = async () => {
      const found = await stripe.customers.retrieve(stripe_customer_id!);
      return found.deleted ? null : found.email;
    };
    expect(await emailAtStripe()).toBe(email);

    const newEmail = unique("receipts");
    await t.post("/api/account/email/start", { token, json: { email: newEmail, password: PASSWORD } });
    expect((await t.post("/api/account/email/verify", { token, json: { code: await t.latestCode(newEmail) } })).status).toBe(200);
    expect(await emailAtStripe()).toBe(newEmail);

    const link = revertLinkIn((await t.mailbox(email))[0]!.text);
    expect((await t.post("/api/account/email/revert", { json: { token: link } })).status).toBe(200);
    expect(await emailAtStripe()).toBe(email);
  });

  it("limits wrong passwords to 5 per 15 minutes, also in a parallel burst", async () => {
    const { token } = await account(t);
    const target = unique("burst");
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => t.post("/api/account/email/start", { token, json: { email: target, password: "wrong-one" } })),
    );
    expect(burst.filter((r) => r.status === 422)).toHaveLength(5);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(3);
  });
});

describe.each(databases({ postgres: "a unique violation on the address (it aborts a PostgreSQL transaction)" }))("email change races ($name)", (kind) => {
  const t = useApi(kind, { env: LOTS });

  it("two accounts verifying the same address at once: exactly one gets it", async () => {
    const a = await account(t);
    const b = await account(t);
    const target = unique("race");
    expect((await t.post("/api/account/email/start", { token: a.token, json: { email: target, password: PASSWORD } })).status).toBe(200);
    const codeA = await t.latestCode(target);
    expect((await t.post("/api/account/email/start", { token: b.token, json: { email: target, password: PASSWORD } })).status).toBe(200);
    const codeB = await t.latestCode(target);
    const results = await Promise.all([
      t.post("/api/account/email/verify", { token: a.token, json: { code: codeA } }),
      t.post("/api/account/email/verify", { token: b.token, json: { code: codeB } }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    const loser = results.find((r) => r.status === 422)!;
    expect(loser.body.errors.fields.code).toEqual(["Invalid verification code"]);
    const owners = await t.db.selectFrom("users").select("id").where("email", "=", target).execute();
    expect(owners).toHaveLength(1);
  });

  it("the revert link refuses after 7 days, and when the old address was taken meanwhile", async () => {
    const first = await account(t);
    const moved = unique("expired");
    await t.post("/api/account/email/start", { token: first.token, json: { email: moved, password: PASSWORD } });
    await t.post("/api/account/email/verify", { token: first.token, json: { code: await t.latestCode(moved) } });
    const expiredLink = revertLinkIn((await t.mailbox(first.email))[0]!.text);
    await t.db
      .updateTable("email_change_reverts")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("user_id", "=", first.userId)
      .execute();
    const expired = await t.post("/api/account/email/revert", { json: { token: expiredLink } });
    expect(expired.status).toBe(422);

    const second = await account(t);
    const movedAgain = unique("taken-back");
    await t.post("/api/account/email/start", { token: second.token, json: { email: movedAgain, password: PASSWORD } });
    await t.post("/api/account/email/verify", { token: second.token, json: { code: await t.latestCode(movedAgain) } });
    const link = revertLinkIn((await t.mailbox(second.email))[0]!.text);
    await t.createUser({ email: second.email, password: "new-owner-1" });
    const refused = await t.post("/api/account/email/revert", { json: { token: link } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      "Your previous email address now belongs to another account, so it could not be put back. Please contact support.",
    );
    // Nothing changed: still the new address, still signed in.
    expect((await t.get("/api/me", { token: second.token })).status).toBe(200);
    const row = await t.db.selectFrom("users").select("email").where("id", "=", second.userId).executeTakeFirstOrThrow();
    expect(row.email).toBe(movedAgain);
  });
});

describe.each(databases())("email change limits ($name)", (kind) => {
  const t = useApi(kind, { env: { CODE_MAX_PER_IP_PER_HOUR: "1000", CODE_MAX_PER_EMAIL_PER_HOUR: "2" } });

  it("caps the codes per new address (whoever asks) and per account", async () => {
    const a = await account(t);
    const b = await account(t);
    const target = unique("capped");
    expect((await t.post("/api/account/email/start", { token: a.token, json: { email: target, password: PASSWORD } })).status).toBe(200);
    pass30s(t);
    expect((await t.post("/api/account/email/resend", { token: a.token })).status).toBe(200);
    // The address has had its two codes this hour: another account asking for it is refused too.
    const byOther = await t.post("/api/account/email/start", { token: b.token, json: { email: target, password: PASSWORD } });
    expect(byOther.status).toBe(429);
    expect(byOther.body.message).toBe("Too many code requests. Please try again later.");
    // And the account has had its two sends: another address is refused as well.
    pass30s(t);
    const elsewhere = await t.post("/api/account/email/start", { token: a.token, json: { email: unique("other"), password: PASSWORD } });
    expect(elsewhere.status).toBe(429);
    expect(await t.mailbox(target)).toHaveLength(2);
  });
});
