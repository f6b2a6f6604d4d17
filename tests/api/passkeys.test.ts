import { describe, expect, it } from "vitest";
import { PASSKEY_ADDED_SUBJECT, PASSKEY_CODE_SUBJECT, PASSKEY_MESSAGES, relyingParty } from "../../api/identity/passkeys";
import { describeDevice, issueToken } from "../../api/identity/sessions";
import { currentCode } from "../../api/identity/two-factor";
import { SoftAuthenticator, b64url } from "./soft-authenticator";
import { type TestApi, databases, useApi } from "./harness";

/*
 * Passkeys over the API (docs/decisions/037), with a software authenticator: a P-256 key, "none"
 * attestation, the authenticator data and client data a browser would send. The ceremony in a real
 * browser (Chromium's virtual authenticator) is in tests/e2e/passkeys.spec.ts.
 */


describe("the relying party", () => {
  it("is PUBLIC_URL's host and origin; a loopback address is served as localhost", () => {
    expect(relyingParty("https://account.example.com")).toEqual({ rpID: "account.example.com", origin: "https://account.example.com" });
    expect(relyingParty("http://127.0.0.1:3230")).toEqual({ rpID: "localhost", origin: "http://localhost:3230" });
  });
});

describe.each(databases())("passkeys ($name)", (kind) => {
  const t = useApi(kind, { env: { CODE_MAX_PER_IP_PER_HOUR: "1000" } });
  const PASSWORD = "correct-horse-1";

  /** A new account and a session of it; `password: null`: an account without one (Google/Apple). */
  async function account(t: TestApi, opts: { password?: null } = {}) {
    const email = `passkey-${Math.random().toString(36).slice(2)}@example.com`;
    const password = opts.password === null ? null : PASSWORD;
    const userId = await t.createUser({ email, password });
    const token = password
      ? await t.login(email, password)
      : (await issueToken(t.db, { userId, device: describeDevice({ platform: "Web Browser" }, "test"), ttlDays: 1, clock: t.clock })).token;
    const { rpID, origin } = relyingParty(t.config.publicUrl);
    return { email, userId, token, authenticator: new SoftAuthenticator(rpID, origin) };
  }

  /** Confirms the session with the account's password (what adding a passkey needs first). */
  async function confirm(a: { token: string }, json: Record<string, unknown> = { password: PASSWORD }) {
    const res = await t.post("/api/account/passkeys/confirm", { token: a.token, json });
    expect(res.status, res.text).toBe(200);
    return res;
  }

  /** Turns two-factor on through the API; answers the secret. */
  async function enrolTwoFactor(a: { token: string }): Promise<string> {
    const setup = await t.post("/api/account/two-factor/setup", { token: a.token });
    const secret: string = setup.body.data.secret;
    const enabled = await t.post("/api/account/two-factor/enable", { token: a.token, json: { code: currentCode(secret), password: PASSWORD } });
    expect(enabled.status, enabled.text).toBe(200);
    return secret;
  }

  async function addPasskey(a: Awaited<ReturnType<typeof account>>, name = "Laptop") {
    await confirm(a);
    const options = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(options.status).toBe(200);
    const res = await t.post("/api/account/passkeys", {
      token: a.token,
      json: { challenge_id: options.body.data.challenge_id, name, response: a.authenticator.register(options.body.data.options) },
    });
    return res;
  }

  async function signIn(authenticator: SoftAuthenticator, opts: { counter?: number } = {}) {
    const options = await t.post("/api/auth/passkey/options");
    expect(options.status).toBe(200);
    expect(options.body.data.options.allowCredentials).toEqual([]);
    return t.post("/api/auth/passkey/login", {
      json: { challenge_id: options.body.data.challenge_id, response: authenticator.authenticate(options.body.data.options, opts) },
    });
  }

  it("adds a passkey (listed, security event, email), signs in with it without two-factor, and records its use", async () => {
    const a = await account(t);
    await confirm(a);
    const options = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(options.body.data.options.rp.id).toBe(relyingParty(t.config.publicUrl).rpID);
    expect(options.body.data.options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" });

    const added = await addPasskey(a);
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ name: "Laptop", last_used_at: null });

    // The next options exclude it.
    await confirm(a);
    const again = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(again.body.data.options.excludeCredentials).toEqual([{ id: b64url(a.authenticator.credentialId), type: "public-key", transports: ["internal"] }]);

    const mail = await t.mailbox(a.email);
    expect(mail.some((m) => m.subject === PASSKEY_ADDED_SUBJECT && m.text.includes("Laptop"))).toBe(true);
    const events = await t.db.selectFrom("security_events").select(["kind", "detail"]).where("user_id", "=", a.userId).execute();
    expect(events).toContainEqual({ kind: "passkey_added", detail: "Laptop" });

    // Two-factor on: a password sign-in asks for the second factor, a passkey does not.
    const now = new Date().toISOString();
    await t.db
      .insertInto("two_factor")
      .values({ user_id: a.userId, secret_ciphertext: "v1.x.y.z", pending_secret_ciphertext: null, pending_created_at: null, enabled_at: now, last_used_step: null, updated_at: now })
      .execute();
    const password = await t.post("/api/user/login", { json: { email: a.email, password: "correct-horse-1" } });
    expect(password.body.data.two_factor_required).toBe(true);

    const signedIn = await signIn(a.authenticator);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.user.email).toBe(a.email);
    const me = await t.get("/api/me", { token: signedIn.body.data.token });
    expect(me.status).toBe(200);
    const kinds = (await t.db.selectFrom("security_events").select("kind").where("user_id", "=", a.userId).execute()).map((e) => e.kind);
    expect(kinds).toContain("signed_in");

    const list = await t.get("/api/account/passkeys", { token: a.token });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].last_used_at).not.toBeNull();
    const stored = await t.db.selectFrom("passkeys").select("counter").where("user_id", "=", a.userId).executeTakeFirstOrThrow();
    expect(Number(stored.counter)).toBe(1);

    // A counter that does not move on (a cloned authenticator) is refused.
    const replayed = await signIn(a.authenticator, { counter: 1 });
    expect(replayed.status).toBe(401);
    expect(replayed.body.errors.code).toBe("passkey_rejected");
  });

  it("uses a challenge once, and not after it expired", async () => {
    const a = await account(t);
    expect((await addPasskey(a)).status).toBe(200);

    const options = await t.post("/api/auth/passkey/options");
    const body = { challenge_id: options.body.data.challenge_id, response: a.authenticator.authenticate(options.body.data.options) };
    expect((await t.post("/api/auth/passkey/login", { json: body })).status).toBe(200);
    const reused = await t.post("/api/auth/passkey/login", { json: body });
    expect(reused.status).toBe(422);
    expect(reused.body.errors.message).toBe(PASSKEY_MESSAGES.requestEnded);

    const late = await t.post("/api/auth/passkey/options");
    await t.db.updateTable("passkey_challenges").set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const expired = await t.post("/api/auth/passkey/login", {
      json: { challenge_id: late.body.data.challenge_id, response: a.authenticator.authenticate(late.body.data.options) },
    });
    expect(expired.status).toBe(422);
    expect(expired.body.errors.code).toBe("passkey_request_ended");

    // A registration challenge is the account's own: another account cannot use it.
    const other = await account(t);
    await confirm(a);
    await confirm(other);
    const theirs = await t.post("/api/account/passkeys/options", { token: a.token });
    const stolen = await t.post("/api/account/passkeys", {
      token: other.token,
      json: { challenge_id: theirs.body.data.challenge_id, name: "Phone", response: other.authenticator.register(theirs.body.data.options) },
    });
    expect(stolen.status).toBe(422);
  });

  it("removes only the caller's own passkeys; a removed passkey no longer signs in", async () => {
    const a = await account(t);
    const b = await account(t);
    const added = await addPasskey(a);
    const id = added.body.data.id as number;

    const foreign = await t.request("DELETE", `/api/account/passkeys/${id}`, { token: b.token });
    expect(foreign.status).toBe(404);
    expect((await t.get("/api/account/passkeys", { token: a.token })).body.data).toHaveLength(1);

    const removed = await t.request("DELETE", `/api/account/passkeys/${id}`, { token: a.token });
    expect(removed.status).toBe(200);
    expect((await t.get("/api/account/passkeys", { token: a.token })).body.data).toEqual([]);
    const events = await t.db.selectFrom("security_events").select(["kind", "detail"]).where("user_id", "=", a.userId).execute();
    expect(events).toContainEqual({ kind: "passkey_removed", detail: "Laptop" });

    const refused = await signIn(a.authenticator);
    expect(refused.status).toBe(401);
    expect(refused.body.errors.message).toBe(PASSKEY_MESSAGES.notRegistered);
  });

  it("answers hostile input with a 4xx, never a 500", async () => {
    const a = await account(t);
    const options = await t.post("/api/auth/passkey/options");
    const good = a.authenticator.authenticate(options.body.data.options);
    const cases: unknown[] = [
      {},
      { challenge_id: options.body.data.challenge_id },
      { challenge_id: options.body.data.challenge_id, response: "nope" },
      { challenge_id: options.body.data.challenge_id, response: { ...good, id: "not base64!" } },
      { challenge_id: options.body.data.challenge_id, response: { ...good, type: "password" } },
      { challenge_id: ["x"], response: good },
      { challenge_id: "x".repeat(500), response: good },
      { challenge_id: options.body.data.challenge_id, response: { ...good, response: { ...good.response, signature: "A".repeat(9000) } } },
    ];
    for (const json of cases) {
      const res = await t.post("/api/auth/passkey/login", { json });
      expect(res.status, JSON.stringify(json).slice(0, 120)).toBe(422);
    }
    // Well-formed base64 that is not what it claims: refused by the verification.
    const fresh = await t.post("/api/auth/passkey/options");
    const garbage = await t.post("/api/auth/passkey/login", {
      json: { challenge_id: fresh.body.data.challenge_id, response: { ...good, response: { ...good.response, clientDataJSON: b64url(Buffer.from("{}")), authenticatorData: "AAAA" } } },
    });
    expect([401, 422]).toContain(garbage.status);
    const huge = await t.post("/api/auth/passkey/login", { json: { challenge_id: "x", response: { ...good, pad: "A".repeat(100_000) } } });
    expect(huge.status).toBe(413);

    // Registration: garbage attestation, blank name.
    await confirm(a);
    const reg = await t.post("/api/account/passkeys/options", { token: a.token });
    const badAttestation = await t.post("/api/account/passkeys", {
      token: a.token,
      json: { challenge_id: reg.body.data.challenge_id, name: "Laptop", response: { ...a.authenticator.register(reg.body.data.options), response: { clientDataJSON: "e30", attestationObject: "AAAA" } } },
    });
    expect(badAttestation.status).toBe(401);
    const reg2 = await t.post("/api/account/passkeys/options", { token: a.token });
    const blank = await t.post("/api/account/passkeys", {
      token: a.token,
      json: { challenge_id: reg2.body.data.challenge_id, name: "   ", response: a.authenticator.register(reg2.body.data.options) },
    });
    expect(blank.status).toBe(422);
    expect(blank.body.errors.fields.name).toEqual([PASSKEY_MESSAGES.nameRequired]);
  });
  // Issue 30: a stolen session alone must not be able to plant a passkey (which then signs in without
  // the password and the second factor, and outlives a password reset).
  it("refuses registration options and registration without a confirmation; a wrong password confirms nothing", async () => {
    const a = await account(t);
    const unconfirmed = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.body.errors).toMatchObject({ code: "confirmation_required", message: PASSKEY_MESSAGES.confirmationRequired });

    const missing = await t.post("/api/account/passkeys/confirm", { token: a.token, json: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.password).toEqual([PASSKEY_MESSAGES.passwordRequired]);
    const wrong = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: "not-the-password" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toMatchObject({ code: "wrong_password", fields: { password: [PASSKEY_MESSAGES.wrongPassword] } });
    expect((await t.post("/api/account/passkeys/options", { token: a.token })).status).toBe(403);

    // Right: this session (only it) may ask for options and add one passkey.
    await confirm(a);
    const otherSession = await t.login(a.email, PASSWORD);
    expect((await t.post("/api/account/passkeys/options", { token: otherSession })).status).toBe(403);
    const options = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(options.status).toBe(200);
    const added = await t.post("/api/account/passkeys", {
      token: a.token,
      json: { challenge_id: options.body.data.challenge_id, name: "Laptop", response: a.authenticator.register(options.body.data.options) },
    });
    expect(added.status).toBe(200);

    // Used up by that passkey: a second one needs a new confirmation, and so does an expired one.
    expect((await t.post("/api/account/passkeys/options", { token: a.token })).status).toBe(403);
    await confirm(a);
    const late = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(late.status).toBe(200);
    await t.db.updateTable("passkey_confirmations").set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    const second = new SoftAuthenticator(relyingParty(t.config.publicUrl).rpID, relyingParty(t.config.publicUrl).origin);
    const expired = await t.post("/api/account/passkeys", {
      token: a.token,
      json: { challenge_id: late.body.data.challenge_id, name: "Phone", response: second.register(late.body.data.options) },
    });
    expect(expired.status).toBe(403);
    expect(expired.body.errors.code).toBe("confirmation_required");
    expect((await t.get("/api/account/passkeys", { token: a.token })).body.data).toHaveLength(1);
  });

  it("limits wrong confirmations per account", async () => {
    const a = await account(t);
    for (let i = 0; i < 5; i++) {
      expect((await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: `wrong-${i}` } })).status).toBe(422);
    }
    const limited = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: PASSWORD } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
  });

  it("with two-factor on, confirming needs a current authentication code too", async () => {
    const a = await account(t);
    const secret = await enrolTwoFactor(a);
    const passwordOnly = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: PASSWORD } });
    expect(passwordOnly.status).toBe(422);
    expect(passwordOnly.body.errors.fields.code).toEqual(["Please enter the 6-digit authentication code"]);
    const next = currentCode(secret, Date.now() + 30_000);
    const wrongCode = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: PASSWORD, code: next === "000000" ? "111111" : "000000" } });
    expect(wrongCode.status).toBe(422);
    expect(wrongCode.body.errors).toMatchObject({ code: "code_invalid", fields: { code: ["Invalid authentication code"] } });
    // The right code with a wrong password confirms nothing.
    const wrongPassword = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: "not-it", code: next } });
    expect(wrongPassword.body.errors.code).toBe("wrong_password");
    expect((await t.post("/api/account/passkeys/options", { token: a.token })).status).toBe(403);

    await confirm(a, { password: PASSWORD, code: next });
    expect((await t.post("/api/account/passkeys/options", { token: a.token })).status).toBe(200);
    // A code's time step is accepted once.
    const replayed = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { password: PASSWORD, code: next } });
    expect(replayed.body.errors.fields.code).toEqual(["Invalid authentication code"]);
  });

  it("an account without a password confirms with a code emailed to it", async () => {
    const a = await account(t, { password: null });
    const missing = await t.post("/api/account/passkeys/confirm", { token: a.token, json: {} });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.verification_code).toEqual([PASSKEY_MESSAGES.verificationCodeRequired]);
    const sent = await t.post("/api/account/passkeys/send-code", { token: a.token });
    expect(sent.status).toBe(200);
    const mail = (await t.mailbox(a.email))[0]!;
    expect(mail.subject).toBe(PASSKEY_CODE_SUBJECT);
    const code = await t.latestCode(a.email);
    const wrong = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { verification_code: code === "000000" ? "111111" : "000000" } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.fields.verification_code).toEqual(["Invalid verification code"]);
    await confirm(a, { verification_code: code });
    expect((await t.post("/api/account/passkeys/options", { token: a.token })).status).toBe(200);
    // Used once.
    const again = await t.post("/api/account/passkeys/confirm", { token: a.token, json: { verification_code: code } });
    expect(again.status).toBe(422);

    // An account with a password confirms with it: no code.
    const b = await account(t);
    expect((await t.post("/api/account/passkeys/send-code", { token: b.token })).status).toBe(409);
  });

  it("requires user verification (UV): a touch alone neither registers nor signs in", async () => {
    const a = await account(t);
    await confirm(a);
    const options = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(options.body.data.options.authenticatorSelection.userVerification).toBe("required");
    const unverified = await t.post("/api/account/passkeys", {
      token: a.token,
      json: { challenge_id: options.body.data.challenge_id, name: "Key", response: a.authenticator.register(options.body.data.options, undefined, { userVerified: false }) },
    });
    expect(unverified.status).toBe(401);
    expect(unverified.body.errors.code).toBe("passkey_rejected");
    expect((await t.get("/api/account/passkeys", { token: a.token })).body.data).toEqual([]);

    expect((await addPasskey(a)).status).toBe(200);
    // Two-factor on: the passkey skips it only because the authenticator verified the person.
    await enrolTwoFactor(a);
    const signInOptions = await t.post("/api/auth/passkey/options");
    expect(signInOptions.body.data.options.userVerification).toBe("required");
    const touchOnly = await t.post("/api/auth/passkey/login", {
      json: { challenge_id: signInOptions.body.data.challenge_id, response: a.authenticator.authenticate(signInOptions.body.data.options, { userVerified: false }) },
    });
    expect(touchOnly.status).toBe(401);
    expect(touchOnly.body.errors.code).toBe("passkey_rejected");
    expect(touchOnly.body.data?.token).toBeUndefined();
    expect((await signIn(a.authenticator)).status).toBe(200);
  });

  it("a password reset lists the account's passkeys with a token that removes them without signing in", async () => {
    const a = await account(t);
    expect((await addPasskey(a, "Laptop")).status).toBe(200);
    const planted = new SoftAuthenticator(relyingParty(t.config.publicUrl).rpID, relyingParty(t.config.publicUrl).origin);
    expect((await addPasskey({ ...a, authenticator: planted }, "Intruder")).status).toBe(200);

    expect((await t.post("/api/auth/forgot-password", { json: { email: a.email } })).status).toBe(200);
    const byCode = await t.post("/api/auth/reset-password-by-code", { json: { email: a.email, code: await t.latestCode(a.email) } });
    const reset = await t.post("/api/auth/reset-password", {
      json: { token: byCode.body.data.reset_token, email: a.email, password: "brand-new-pass-1", password_confirmation: "brand-new-pass-1" },
    });
    expect(reset.status).toBe(200);
    const review = reset.body.data.passkey_review;
    expect(review.passkeys.map((p: { name: string }) => p.name)).toEqual(["Intruder", "Laptop"]);
    // The reset signed every session out; the passkeys still sign in until removed.
    expect((await signIn(planted)).status).toBe(200);

    const listed = await t.post("/api/auth/reset-password/passkeys", { json: { token: review.token } });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    const intruder = review.passkeys.find((p: { name: string }) => p.name === "Intruder");
    const removed = await t.post("/api/auth/reset-password/passkeys/remove", { json: { token: review.token, id: intruder.id } });
    expect(removed.status).toBe(200);
    expect(removed.body.data.map((p: { name: string }) => p.name)).toEqual(["Laptop"]);
    expect((await signIn(planted)).status).toBe(401);
    const events = await t.db.selectFrom("security_events").select(["kind", "detail"]).where("user_id", "=", a.userId).execute();
    expect(events).toContainEqual({ kind: "passkey_removed", detail: "Intruder" });

    // Only this account's passkeys; a bad or expired token is refused.
    const b = await account(t);
    const theirs = (await addPasskey(b, "Theirs")).body.data.id;
    expect((await t.post("/api/auth/reset-password/passkeys/remove", { json: { token: review.token, id: theirs } })).status).toBe(404);
    const bogus = await t.post("/api/auth/reset-password/passkeys", { json: { token: "x".repeat(43) } });
    expect(bogus.status).toBe(422);
    expect(bogus.body.errors).toMatchObject({ code: "link_invalid", message: PASSKEY_MESSAGES.reviewInvalid });
    expect((await t.post("/api/auth/reset-password/passkeys", { json: {} })).status).toBe(422);
    await t.db.updateTable("passkey_reviews").set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
    expect((await t.post("/api/auth/reset-password/passkeys", { json: { token: review.token } })).status).toBe(422);

    // An account without passkeys gets no review.
    const c = await account(t);
    await t.post("/api/auth/forgot-password", { json: { email: c.email } });
    const cCode = await t.post("/api/auth/reset-password-by-code", { json: { email: c.email, code: await t.latestCode(c.email) } });
    const cReset = await t.post("/api/auth/reset-password", {
      json: { token: cCode.body.data.reset_token, email: c.email, password: "brand-new-pass-2", password_confirmation: "brand-new-pass-2" },
    });
    expect(cReset.body.data).toEqual({ passkey_review: null });
  });
  it("a deleted account's passkeys are deleted with it and sign in no more", async () => {
    const a = await account(t);
    expect((await addPasskey(a)).status).toBe(200);
    const deleted = await t.post("/api/account/delete", { token: a.token, json: { password: PASSWORD } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await t.db.selectFrom("passkeys").select("id").where("user_id", "=", a.userId).execute()).toEqual([]);
    const refused = await signIn(a.authenticator);
    expect(refused.status).toBe(401);
    expect(refused.body.errors.message).toBe(PASSKEY_MESSAGES.notRegistered);
  });
});
