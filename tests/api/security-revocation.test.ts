import { afterAll, describe, expect, it } from "vitest";
import { currentCode } from "../../api/identity/two-factor";
import { type TestApi, databases, useApi } from "./harness";
import { startOidcStub } from "./oidc-stub";
import { GOOD, GOOD_OTHER, customer, newKey, paymentMethod } from "./payment-support";

// Security review, issue 17: what a stolen session could still do after the owner ends it (SSO
// tokens, waiting two-factor sign-ins, desktop codes), ID token replay, turning two-factor on
// without the password, and the money-back guarantee coming back with a new account.

const stub = await startOidcStub();
afterAll(() => stub.close());

const PASSWORD = "password-123";
const SSO_INVALID = "This sign-in link is invalid or has expired.";
const CHALLENGE_ENDED = "This sign-in has expired or was ended. Please start again.";

describe.each(databases())("sessions ended: what they made ends too ($name)", (kind) => {
  const t = useApi(kind, {
    env: { ...stub.env, LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "100", LOGIN_MAX_FAILURES_PER_IP: "100", CODE_MAX_PER_IP_PER_HOUR: "1000" },
  });
  let n = 0;
  const newEmail = (prefix: string) => `${prefix}-${kind.name}-${++n}@example.com`;

  async function account(prefix: string) {
    const email = newEmail(prefix);
    const userId = await t.createUser({ email, password: PASSWORD });
    return { email, userId };
  }

  async function ssoToken(bearer: string): Promise<string> {
    const res = await t.post("/api/auth/sso-token", { token: bearer });
    expect(res.status).toBe(200);
    return res.body.data.access_token;
  }

  const ssoLogin = (access_token: string) => t.post("/api/auth/sso-login-with-token", { json: { access_token } });
  const ssoAccount = (access_token: string) => t.post("/api/auth/sso-token/account", { json: { access_token } });

  async function expectRefused(accessToken: string) {
    const peek = await ssoAccount(accessToken);
    expect(peek.status).toBe(401);
    const res = await ssoLogin(accessToken);
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(SSO_INVALID);
  }

  /** forgot-password, then the emailed code for a reset token. */
  async function resetToken(email: string): Promise<string> {
    expect((await t.post("/api/auth/forgot-password", { json: { email } })).status).toBe(200);
    const res = await t.post("/api/auth/reset-password-by-code", { json: { email, code: await t.latestCode(email) } });
    expect(res.status).toBe(200);
    return res.body.data.reset_token;
  }

  async function deviceOf(bearer: string): Promise<number> {
    const list = await t.get("/api/devices", { token: bearer });
    return list.body.data[0].find((d: { current: boolean }) => d.current).id;
  }

  /** Two-factor on (setup, then enable with a code and the password). */
  async function turnOnTwoFactor(bearer: string): Promise<string> {
    const setup = await t.post("/api/account/two-factor/setup", { token: bearer });
    const secret: string = setup.body.data.secret;
    const enable = await t.post("/api/account/two-factor/enable", { token: bearer, json: { code: currentCode(secret), password: PASSWORD } });
    expect(enable.status, enable.text).toBe(200);
    return secret;
  }

  async function challengeFor(email: string): Promise<string> {
    const res = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
    expect(res.body.data.two_factor_required).toBe(true);
    return res.body.data.challenge;
  }

  it("an SSO token made by a stolen session is refused after a password reset (signed out)", async () => {
    const { email } = await account("sso-reset");
    const thief = await t.login(email, PASSWORD);
    const stolen = await ssoToken(thief);
    const reset = await t.post("/api/auth/reset-password", {
      json: { token: await resetToken(email), email, password: "new-password-1", password_confirmation: "new-password-1" },
    });
    expect(reset.status).toBe(200);
    await expectRefused(stolen);
  });

  it("after a password change the other sessions' SSO tokens are refused, the changing session's own still works", async () => {
    const { email } = await account("sso-change");
    const owner = await t.login(email, PASSWORD);
    const thief = await t.login(email, PASSWORD);
    const stolen = await ssoToken(thief);
    const mine = await ssoToken(owner);
    // The signed-in change-password dialog: a reset with the owner's bearer token keeps that session.
    const change = await t.post("/api/auth/reset-password", {
      token: owner,
      json: { token: await resetToken(email), email, password: "new-password-2", password_confirmation: "new-password-2" },
    });
    expect(change.status).toBe(200);
    await expectRefused(stolen);
    expect((await ssoLogin(mine)).status).toBe(200);
  });

  it("an SSO token is refused after terminate-all, after its device is terminated, and after its session logs out", async () => {
    const { email } = await account("sso-terminate");
    const owner = await t.login(email, PASSWORD);
    const thief = await t.login(email, PASSWORD);

    // One device: only what that device's sessions made.
    const fromThief = await ssoToken(thief);
    const fromOwner = await ssoToken(owner);
    const terminate = await t.post("/api/devices/terminate", { token: owner, json: { device_id: await deviceOf(thief) } });
    expect(terminate.status).toBe(200);
    await expectRefused(fromThief);
    expect((await ssoLogin(fromOwner)).status).toBe(200);

    // All devices.
    const thief2 = await t.login(email, PASSWORD);
    const fromThief2 = await ssoToken(thief2);
    expect((await t.post("/api/devices/terminate-all", { token: owner, json: {} })).status).toBe(200);
    await expectRefused(fromThief2);

    // Logout of the session that made it.
    const session = await t.login(email, PASSWORD);
    const fromSession = await ssoToken(session);
    expect((await t.post("/api/user/logout", { token: session })).status).toBe(200);
    await expectRefused(fromSession);
  });

  it("an SSO token is refused after the account is deleted", async () => {
    const { email } = await account("sso-delete");
    const owner = await t.login(email, PASSWORD);
    const stolen = await ssoToken(await t.login(email, PASSWORD));
    const deleted = await t.post("/api/account/delete", { token: owner, json: { password: PASSWORD } });
    expect(deleted.status, deleted.text).toBe(200);
    await expectRefused(stolen);
  });

  it("a waiting two-factor sign-in is refused after terminate-all and after a password reset", async () => {
    const { email } = await account("challenge");
    const owner = await t.login(email, PASSWORD);
    const secret = await turnOnTwoFactor(owner);

    // Someone who knows the password waits at the second step; the owner signs everyone out.
    const pending = await challengeFor(email);
    expect((await t.post("/api/devices/terminate-all", { token: owner, json: {} })).status).toBe(200);
    const afterTerminate = await t.post("/api/user/two-factor/verify", { json: { challenge: pending, code: currentCode(secret, Date.now() + 30_000) } });
    expect(afterTerminate.status).toBe(422);
    expect(afterTerminate.body.message).toBe(CHALLENGE_ENDED);

    const pending2 = await challengeFor(email);
    const reset = await t.post("/api/auth/reset-password", {
      json: { token: await resetToken(email), email, password: "new-password-3", password_confirmation: "new-password-3" },
    });
    expect(reset.status).toBe(200);
    const afterReset = await t.post("/api/user/two-factor/verify", { json: { challenge: pending2, code: currentCode(secret, Date.now() + 60_000) } });
    expect(afterReset.status).toBe(422);
    expect(afterReset.body.message).toBe(CHALLENGE_ENDED);
  });

  it("a desktop hand-off code is refused after its session is terminated", async () => {
    const { email, userId } = await account("desktop");
    const owner = await t.login(email, PASSWORD);
    const desktop = await t.post("/api/user/login", { json: { email, password: PASSWORD, platform: "Desktop", device_os: "Windows" } });
    const issued = await t.post("/api/auth/desktop-code/issue", { token: desktop.body.data.token });
    expect(issued.status).toBe(200);
    expect((await t.post("/api/devices/terminate-all", { token: owner, json: {} })).status).toBe(200);
    const redeemed = await t.post("/api/auth/desktop-code", { json: { code: issued.body.data.code } });
    expect(redeemed.status).toBe(422);
    const row = await t.db.selectFrom("desktop_codes").select(["used_at", "token_ciphertext"]).where("user_id", "=", userId).executeTakeFirstOrThrow();
    expect(row.token_ciphertext).toBeNull();
  });
});

describe.each(databases({ postgres: "parallel replays of one ID token: unique claims" }))("ID token replay ($name)", (kind) => {
  const t = useApi(kind, { env: stub.env });
  let n = 0;
  const newEmail = () => `replay-${kind.name}-${++n}@example.com`;
  const thirdPartyLogin = (email: string, idToken: string, provider = "GOOGLE") =>
    t.post("/api/user/thirdparty-login", { json: { email, firebase_id_token: idToken, auth_method: provider } });

  it("signs in once with an ID token; the same token again is refused (with and without a jti)", async () => {
    const email = newEmail();
    const token = await stub.sign("google", { email, sub: `g-${email}` });
    expect((await thirdPartyLogin(email, token)).status).toBe(200);
    const again = await thirdPartyLogin(email, token);
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("Login failed: this Google sign-in was already used. Please sign in with Google again.");
    expect(again.body.data?.token).toBeUndefined();
    // A fresh token of the same person still signs in.
    expect((await thirdPartyLogin(email, await stub.sign("google", { email, sub: `g-${email}` }))).status).toBe(200);

    // Apple, and a token without a jti: remembered by a hash of the whole token.
    const appleEmail = newEmail();
    const noJti = await stub.sign("apple", { email: appleEmail, sub: `a-${appleEmail}` }, { omit: ["jti"] });
    expect((await thirdPartyLogin(appleEmail, noJti, "APPLE")).status).toBe(200);
    const replayed = await thirdPartyLogin(appleEmail, noJti, "APPLE");
    expect(replayed.status).toBe(409);
    expect(replayed.body.message).toBe("Login failed: this Apple sign-in was already used. Please sign in with Apple again.");
  });

  it("10 parallel uses of one ID token: exactly one signs in", async () => {
    const email = newEmail();
    const token = await stub.sign("google", { email, sub: `g-${email}` });
    const answers = await Promise.all(Array.from({ length: 10 }, () => thirdPartyLogin(email, token)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    const users = await t.db.selectFrom("users").select("id").where("email", "=", email).execute();
    expect(users).toHaveLength(1);
    const tokens = await t.db.selectFrom("tokens").select("id").where("user_id", "=", users[0]!.id).execute();
    expect(tokens).toHaveLength(1);
  });

  it("keeps used tokens only until they expire", async () => {
    await t.db.insertInto("used_id_tokens").values({ key_hash: "stale", expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const email = newEmail();
    const token = await stub.sign("google", { email, sub: `g-${email}` });
    expect((await thirdPartyLogin(email, token)).status).toBe(200);
    const rows = await t.db.selectFrom("used_id_tokens").selectAll().execute();
    expect(rows.map((r) => r.key_hash)).not.toContain("stale");
    // The newest one is kept until its exp plus the 60 s the verification tolerates.
    const exp = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).exp as number;
    expect(rows.map((r) => Date.parse(r.expires_at))).toContain(exp * 1000 + 60_000);
  });
});

describe.each(databases())("turning two-factor on asks who is there ($name)", (kind) => {
  const t = useApi(kind, { env: { ...stub.env, CODE_MAX_PER_IP_PER_HOUR: "1000" } });
  let n = 0;
  const newEmail = (prefix: string) => `${prefix}-${kind.name}-${++n}@example.com`;
  const enable = (token: string, json: Record<string, unknown>) => t.post("/api/account/two-factor/enable", { token, json });
  const status = async (token: string) => (await t.get("/api/account/two-factor", { token })).body.data.enabled;

  async function pendingSecret(token: string): Promise<string> {
    const setup = await t.post("/api/account/two-factor/setup", { token });
    expect(setup.status).toBe(200);
    return setup.body.data.secret;
  }

  it("with a password: refused without it and with a wrong one (nothing changes), turned on with the right one", async () => {
    const email = newEmail("enable-pw");
    await t.createUser({ email, password: PASSWORD });
    const token = await t.login(email, PASSWORD);
    const secret = await pendingSecret(token);

    const missing = await enable(token, { code: currentCode(secret) });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.password).toEqual(["Please enter your password."]);
    const wrong = await enable(token, { code: currentCode(secret), password: "not-the-password" });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.password).toEqual(["The password is incorrect."]);
    expect(await status(token)).toBe(false);
    // The pending secret is kept: the same QR code still works.
    expect((await t.post("/api/account/two-factor/setup", { token })).body.data.secret).toBe(secret);

    const ok = await enable(token, { code: currentCode(secret), password: PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body.data.recovery_codes).toHaveLength(10);
    expect(await status(token)).toBe(true);
  });

  it("a burst of wrong passwords gets 5 tries, then 429", async () => {
    const email = newEmail("enable-burst");
    await t.createUser({ email, password: PASSWORD });
    const token = await t.login(email, PASSWORD);
    const secret = await pendingSecret(token);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => enable(token, { code: currentCode(secret), password: `wrong-${i}` })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 422)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    // Even the right password now waits.
    expect((await enable(token, { code: currentCode(secret), password: PASSWORD })).status).toBe(429);
    expect(await status(token)).toBe(false);
  });

  it("without a password (Google only): confirmed with a code emailed to the account", async () => {
    const email = newEmail("enable-google");
    const login = await t.post("/api/user/thirdparty-login", {
      json: { email, firebase_id_token: await stub.sign("google", { email, sub: `g-${email}` }), auth_method: "GOOGLE" },
    });
    expect(login.status, login.text).toBe(200);
    const token: string = login.body.data.token;
    const secret = await pendingSecret(token);

    const missing = await enable(token, { code: currentCode(secret) });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.verification_code).toEqual(["Please enter the 6-digit verification code"]);
    const unsent = await enable(token, { code: currentCode(secret), verification_code: "123456" });
    expect(unsent.status).toBe(422);
    expect(unsent.body.errors.fields.verification_code).toBeDefined();

    const sent = await t.post("/api/account/two-factor/send-code", { token });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.message).toBe("We have emailed you a code to confirm.");
    const mail = (await t.mailbox(email))[0]!;
    expect(mail.subject).toBe("Your code to turn on two-factor authentication");
    const emailed = await t.latestCode(email);

    // A wrong authentication code does not use up the emailed one.
    const right = currentCode(secret);
    const wrongTotp = right === "000000" ? "111111" : "000000";
    const wrong = await enable(token, { code: wrongTotp, verification_code: emailed });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.code).toEqual(["Invalid authentication code"]);
    const ok = await enable(token, { code: right, verification_code: emailed });
    expect(ok.status, ok.text).toBe(200);
    expect(await status(token)).toBe(true);
  });

  it("accounts with a password get no emailed code instead", async () => {
    const email = newEmail("enable-sendcode");
    await t.createUser({ email, password: PASSWORD });
    const token = await t.login(email, PASSWORD);
    const res = await t.post("/api/account/two-factor/send-code", { token });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("Your account has a password: confirm with your password.");
  });
});

describe.each(databases({ postgres: "two accounts' refunds at once" }))("the money-back guarantee is once per customer ($name)", (kind) => {
  const t = useApi(kind);
  const EMAIL_USED = "The money-back guarantee has already been used with this email address.";
  const CARD_USED = "The money-back guarantee has already been used with this card.";

  async function buyMonth(who: { token: string; email: string }, card: string): Promise<number> {
    const res = await t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, card), planId: 1, email: who.email, idempotency_key: newKey() },
    });
    expect(res.status, res.text).toBe(200);
    return (await firstRow(t, who.token)).id;
  }

  async function firstRow(api: TestApi, token: string): Promise<{ id: number; refundable: boolean }> {
    const res = await api.post("/api/billing/transactions", { token, json: { per_page: 50 } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.transactions[0];
  }

  const refund = (token: string, id: number) => t.post(`/api/billing/transactions/${id}/refund`, { token, json: {} });

  it("a deleted account signed up again with the same email gets no second refund; another account paying with the same card neither", async () => {
    const email = `guarantee-${kind.name}@example.com`;
    const first = await customer(t, email);
    const paid = await buyMonth(first, GOOD);
    expect((await refund(first.token, paid)).status).toBe(200);
    expect((await t.post("/api/account/delete", { token: first.token, json: { password: "pay-password" } })).status).toBe(200);

    // What is kept holds neither the email nor the fingerprint, and names no account.
    const kept = await t.db.selectFrom("refund_guarantee_uses").selectAll().execute();
    expect(kept.map((r) => r.kind).sort()).toEqual(["card", "email"]);
    expect(JSON.stringify(kept)).not.toContain(email);

    // The same email again, with another card: no refund (neither the flag nor a post).
    const again = await customer(t, email.toUpperCase());
    const paidAgain = await buyMonth(again, GOOD_OTHER);
    expect((await firstRow(t, again.token)).refundable).toBe(false);
    const refused = await refund(again.token, paidAgain);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(EMAIL_USED);

    // Another email, the first card: no refund either, and nothing reached the gateway.
    const other = await customer(t, `guarantee-other-${kind.name}@example.com`);
    const paidOther = await buyMonth(other, GOOD);
    const byCard = await refund(other.token, paidOther);
    expect(byCard.status).toBe(409);
    expect(byCard.body.message).toBe(CARD_USED);
    const refunds = await t.db.selectFrom("refunds").select("user_id").execute();
    expect(refunds.map((r) => Number(r.user_id))).toEqual([first.userId]);
  });

  it("two accounts with one card posting at once: one refund", async () => {
    const a = await customer(t, `guarantee-race-a-${kind.name}@example.com`);
    const b = await customer(t, `guarantee-race-b-${kind.name}@example.com`);
    const paidA = await buyMonth(a, GOOD_OTHER);
    const paidB = await buyMonth(b, GOOD_OTHER);
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => refund(a.token, paidA)),
      ...Array.from({ length: 5 }, () => refund(b.token, paidB)),
    ]);
    // The winner's five posts follow its one refund; the other account's are refused.
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(5).fill(200), ...Array(5).fill(409)]);
    const rows = await t.db.selectFrom("refunds").select("user_id").where("user_id", "in", [a.userId, b.userId]).execute();
    expect(rows).toHaveLength(1);
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.message === CARD_USED)).toBe(true);
  });
});
