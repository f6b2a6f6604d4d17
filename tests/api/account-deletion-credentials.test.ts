import { afterAll, describe, expect, it } from "vitest";
import { refundEligibility } from "../../api/billing/refunds";
import { tombstoneEmail } from "../../api/identity/account-deletion";
import { PASSKEY_MESSAGES, relyingParty } from "../../api/identity/passkeys";
import { currentCode } from "../../api/identity/two-factor";
import type { DB } from "../../api/platform/db/schema";
import { type TestApi, databases, useApi } from "./harness";
import { startOidcStub } from "./oidc-stub";
import { GOOD, newKey, paymentMethod } from "./payment-support";
import { SoftAuthenticator } from "./soft-authenticator";

// Review issue 30: a passkey outlived its account. Deleting an account deletes every credential it
// had (passkeys, sessions, SSO and reset tokens, desktop codes, device keys, pending challenges and
// codes, Google/Apple links), and every way of signing in refuses a deleted account even if one
// survived, with the answer an unknown account gets.

const stub = await startOidcStub();
afterAll(() => stub.close());

const PASSWORD = "password-123";
const SSO_INVALID = "This sign-in link is invalid or has expired.";
const DESKTOP_CODE_INVALID = "This code is invalid or has expired.";
const RESET_LINK_INVALID = "This reset link is invalid or has expired. Please start again.";
const CHALLENGE_ENDED = "This sign-in has expired or was ended. Please start again.";

/** Every table whose rows let someone sign in or act as the account, or were on the way to it. */
const CREDENTIAL_TABLES = [
  "tokens",
  "devices",
  "one_time_tokens",
  "desktop_codes",
  "account_links",
  "passkeys",
  "passkey_challenges",
  "two_factor",
  "two_factor_recovery_codes",
  "two_factor_challenges",
  "known_sign_in_devices",
  "cancel_proofs",
  "email_change_requests",
  "email_change_reverts",
  "payment_methods",
  "security_events",
] as const satisfies readonly (keyof DB)[];

describe.each(databases({ postgres: "sign-ins racing the deletion: row locks" }))("a deleted account keeps no way in ($name)", (kind) => {
  const t = useApi(kind, {
    env: { ...stub.env, LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: "100", LOGIN_MAX_FAILURES_PER_IP: "100", CODE_MAX_PER_IP_PER_HOUR: "1000" },
  });
  let n = 0;
  const newEmail = (prefix: string) => `${prefix}-${kind.name}-${++n}@example.com`;

  function authenticator(api: TestApi) {
    const { rpID, origin } = relyingParty(api.config.publicUrl);
    return new SoftAuthenticator(rpID, origin);
  }

  /** Adding a passkey needs the password first (issue 30): a 5-minute confirmation for this session. */
  async function confirmPassword(token: string) {
    const confirmed = await t.post("/api/account/passkeys/confirm", { token, json: { password: PASSWORD } });
    expect(confirmed.status, confirmed.text).toBe(200);
  }

  async function addPasskey(token: string, device: SoftAuthenticator) {
    await confirmPassword(token);
    const options = await t.post("/api/account/passkeys/options", { token });
    const res = await t.post("/api/account/passkeys", {
      token,
      json: { challenge_id: options.body.data.challenge_id, name: "Laptop", response: device.register(options.body.data.options) },
    });
    expect(res.status, res.text).toBe(200);
  }

  async function passkeySignIn(device: SoftAuthenticator) {
    const options = await t.post("/api/auth/passkey/options");
    expect(options.status).toBe(200);
    return t.post("/api/auth/passkey/login", {
      json: { challenge_id: options.body.data.challenge_id, response: device.authenticate(options.body.data.options) },
    });
  }

  async function ssoToken(bearer: string): Promise<string> {
    const res = await t.post("/api/auth/sso-token", { token: bearer });
    expect(res.status, res.text).toBe(200);
    return res.body.data.access_token;
  }

  async function expectSsoRefused(accessToken: string) {
    const peek = await t.post("/api/auth/sso-token/account", { json: { access_token: accessToken } });
    expect(peek.status).toBe(401);
    expect(peek.body.message).toBe(SSO_INVALID);
    const res = await t.post("/api/auth/sso-login-with-token", { json: { access_token: accessToken } });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(SSO_INVALID);
  }

  async function desktopCode(email: string): Promise<string> {
    const desktop = await t.post("/api/user/login", { json: { email, password: PASSWORD, platform: "Desktop", device_os: "Windows" } });
    expect(desktop.status, desktop.text).toBe(200);
    const issued = await t.post("/api/auth/desktop-code/issue", { token: desktop.body.data.token });
    expect(issued.status, issued.text).toBe(200);
    return issued.body.data.code;
  }

  async function expectDesktopCodeRefused(code: string) {
    const res = await t.post("/api/auth/desktop-code", { json: { code } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(DESKTOP_CODE_INVALID);
  }

  async function resetToken(email: string): Promise<string> {
    expect((await t.post("/api/auth/forgot-password", { json: { email } })).status).toBe(200);
    const res = await t.post("/api/auth/reset-password-by-code", { json: { email, code: await t.latestCode(email) } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.reset_token;
  }

  async function turnOnTwoFactor(bearer: string): Promise<string> {
    const setup = await t.post("/api/account/two-factor/setup", { token: bearer });
    const secret: string = setup.body.data.secret;
    const enable = await t.post("/api/account/two-factor/enable", { token: bearer, json: { code: currentCode(secret), password: PASSWORD } });
    expect(enable.status, enable.text).toBe(200);
    return secret;
  }

  const googleLogin = (email: string, idToken: string) =>
    t.post("/api/user/thirdparty-login", { json: { email, firebase_id_token: idToken, auth_method: "GOOGLE" } });

  /** With two-factor on, the deletion also takes an authentication code (issue 33). */
  const deleteAccount = async (bearer: string, authenticationCode?: string) => {
    const res = await t.post("/api/account/delete", { token: bearer, json: { password: PASSWORD, ...(authenticationCode ? { authentication_code: authenticationCode } : {}) } });
    expect(res.status, res.text).toBe(200);
  };

  async function credentialRows(userId: number): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of CREDENTIAL_TABLES) {
      counts[table] = (await t.db.selectFrom(table).select("user_id").where("user_id", "=", userId).execute()).length;
    }
    return counts;
  }

  it("deletes every credential: the passkey, SSO token, desktop code, reset link, sessions and waiting sign-ins made before no longer work", async () => {
    const email = newEmail("leaving");
    const userId = await t.createUser({ email, password: PASSWORD });
    const owner = await t.login(email, PASSWORD);
    const device = authenticator(t);
    await addPasskey(owner, device);
    // A passkey registration left half-way (its confirmation and challenge wait).
    await confirmPassword(owner);
    expect((await t.post("/api/account/passkeys/options", { token: owner })).status).toBe(200);
    const byPasskey = await passkeySignIn(device);
    expect(byPasskey.status, byPasskey.text).toBe(200);
    const passkeySession: string = byPasskey.body.data.token;
    await t.db
      .insertInto("account_links")
      .values({ user_id: userId, link_type: "GOOGLE", subject: `g-${email}`, email, created_at: new Date().toISOString() })
      .execute();

    const sso = await ssoToken(owner);
    const code = await desktopCode(email);
    const reset = await resetToken(email);
    // An email change on its way: its code waits at the new address.
    const newAddress = newEmail("new-address");
    const started = await t.post("/api/account/email/start", { token: owner, json: { email: newAddress, password: PASSWORD } });
    expect(started.status, started.text).toBe(200);
    // Two-factor on, and someone with the password waiting at the second step.
    const secret = await turnOnTwoFactor(owner);
    const firstStep = await t.post("/api/user/login", { json: { email, password: PASSWORD } });
    expect(firstStep.body.data.two_factor_required).toBe(true);

    const before = await credentialRows(userId);
    for (const table of ["tokens", "devices", "one_time_tokens", "desktop_codes", "account_links", "passkeys", "passkey_challenges", "two_factor_challenges", "known_sign_in_devices", "email_change_requests"]) {
      expect(before[table], table).toBeGreaterThan(0);
    }

    // A later time step than the one 'Turn on' used: each step is accepted once.
    await deleteAccount(owner, currentCode(secret, Date.now() + 30_000));

    // The passkey: the answer of a passkey no account has.
    const refused = await passkeySignIn(device);
    expect(refused.status).toBe(401);
    expect(refused.body.errors.message).toBe(PASSKEY_MESSAGES.notRegistered);
    const unknown = await passkeySignIn(authenticator(t));
    expect(refused.body).toEqual(unknown.body);

    // Every session, the passkey's too.
    for (const bearer of [owner, passkeySession]) {
      expect((await t.get("/api/me", { token: bearer })).status).toBe(401);
      expect((await t.post("/api/billing/transactions", { token: bearer, json: {} })).status).toBe(401);
    }
    await expectSsoRefused(sso);
    await expectDesktopCodeRefused(code);
    const resetAfter = await t.post("/api/auth/reset-password", {
      json: { token: reset, email, password: "new-password-9", password_confirmation: "new-password-9" },
    });
    expect(resetAfter.status).toBe(422);
    expect(resetAfter.body.message).toBe(RESET_LINK_INVALID);
    const secondStep = await t.post("/api/user/two-factor/verify", { json: { challenge: firstStep.body.data.challenge, code: currentCode(secret, Date.now() + 30_000) } });
    expect(secondStep.status).toBe(422);
    expect(secondStep.body.message).toBe(CHALLENGE_ENDED);
    expect((await t.post("/api/user/login", { json: { email, password: PASSWORD } })).status).toBe(401);

    // Nothing is left in the database that could stand for the account.
    const after = await credentialRows(userId);
    expect(after).toEqual(Object.fromEntries(CREDENTIAL_TABLES.map((table) => [table, 0])));
    const codes = await t.db.selectFrom("verification_codes").select("email").where("email", "in", [email, newAddress, tombstoneEmail(userId)]).execute();
    expect(codes).toEqual([]);

    // Google, with the account's old subject: the link is gone, so it is an unknown person (a new account).
    const google = await googleLogin(email, await stub.sign("google", { email, sub: `g-${email}` }));
    expect(google.status, google.text).toBe(200);
    expect(google.body.data.user.id).not.toBe(userId);
    expect(google.body.data.user.email).toBe(email);
  });

  it("sign-ins racing the deletion: each is refused or its session is deleted with the account", async () => {
    const email = newEmail("racing");
    const userId = await t.createUser({ email, password: PASSWORD });
    const owner = await t.login(email, PASSWORD);
    const [deleted, ...logins] = await Promise.all([
      t.post("/api/account/delete", { token: owner, json: { password: PASSWORD } }),
      ...Array.from({ length: 6 }, () => t.post("/api/user/login", { json: { email, password: PASSWORD } })),
    ]);
    expect(deleted.status, deleted.text).toBe(200);
    for (const login of logins) {
      expect([200, 401], login.text).toContain(login.status);
      if (login.status === 200) expect((await t.get("/api/me", { token: login.body.data.token })).status).toBe(401);
    }
    expect(await t.db.selectFrom("tokens").select("id").where("user_id", "=", userId).execute()).toEqual([]);
    expect(await t.db.selectFrom("devices").select("id").where("user_id", "=", userId).execute()).toEqual([]);
  });

  it("refuses a deleted account at every way in even if a credential survived the deletion", async () => {
    const email = newEmail("survivor");
    const userId = await t.createUser({ email, password: PASSWORD });
    const owner = await t.login(email, PASSWORD);
    const device = authenticator(t);
    await addPasskey(owner, device);
    await t.db
      .insertInto("account_links")
      .values({ user_id: userId, link_type: "GOOGLE", subject: `g-${email}`, email, created_at: new Date().toISOString() })
      .execute();
    const paid = await t.post("/api/payments/card", {
      token: owner,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    const sso = await ssoToken(owner);
    const code = await desktopCode(email);

    // What a request racing the deletion could have written back: the rows as they were before it.
    const saved = {
      devices: await t.db.selectFrom("devices").selectAll().where("user_id", "=", userId).execute(),
      tokens: await t.db.selectFrom("tokens").selectAll().where("user_id", "=", userId).execute(),
      one_time_tokens: await t.db.selectFrom("one_time_tokens").selectAll().where("user_id", "=", userId).execute(),
      desktop_codes: await t.db.selectFrom("desktop_codes").selectAll().where("user_id", "=", userId).execute(),
      passkeys: await t.db.selectFrom("passkeys").selectAll().where("user_id", "=", userId).execute(),
      account_links: await t.db.selectFrom("account_links").selectAll().where("user_id", "=", userId).execute(),
    };
    await deleteAccount(owner);
    // (Rows the deletion left, if any, are left as they are.)
    const putBack = async <T extends keyof typeof saved>(table: T, rows: Record<string, unknown>[]) => {
      for (const row of rows) await t.db.insertInto(table).values(row as never).onConflict((oc) => oc.doNothing()).execute();
    };
    await putBack("devices", saved.devices);
    await putBack("tokens", saved.tokens.map((row) => ({ ...row, revoked_at: null })));
    await putBack("one_time_tokens", saved.one_time_tokens.map((row) => ({ ...row, used_at: null })));
    await putBack("desktop_codes", saved.desktop_codes);
    await putBack("passkeys", saved.passkeys.map((row) => ({ ...row, counter: Number(row.counter) })));
    await putBack("account_links", saved.account_links);

    // The bearer token: 401 everywhere, as an unknown token (billing, export, renewal, SSO, passkeys).
    expect((await t.get("/api/me", { token: owner })).status).toBe(401);
    expect((await t.post("/api/billing/transactions", { token: owner, json: {} })).status).toBe(401);
    expect((await t.get("/api/account/export", { token: owner })).status).toBe(401);
    expect((await t.post("/api/auth/sso-token", { token: owner })).status).toBe(401);
    expect((await t.post("/api/account/passkeys/options", { token: owner })).status).toBe(401);

    const refused = await passkeySignIn(device);
    expect(refused.status).toBe(401);
    expect(refused.body.errors.message).toBe(PASSKEY_MESSAGES.notRegistered);
    await expectSsoRefused(sso);
    await expectDesktopCodeRefused(code);

    // Google with the surviving link: an unknown person, so a new account (never the deleted one).
    const google = await googleLogin(email, await stub.sign("google", { email, sub: `g-${email}` }));
    expect(google.status, google.text).toBe(200);
    expect(google.body.data.user.id).not.toBe(userId);
    const links = await t.db.selectFrom("account_links").select("user_id").where("subject", "=", `g-${email}`).execute();
    expect(links.map((l) => Number(l.user_id))).toEqual([google.body.data.user.id]);

    // The money-back guarantee is never claimed for a deleted account (its email is no one's).
    const eligibility = await refundEligibility(t.db, userId, t.clock.now());
    expect(eligibility.ok).toBe(false);
    expect(await t.db.selectFrom("refunds").select("id").where("user_id", "=", userId).execute()).toEqual([]);
  });
});
