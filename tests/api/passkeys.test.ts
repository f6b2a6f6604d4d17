import { describe, expect, it } from "vitest";
import { PASSKEY_ADDED_SUBJECT, PASSKEY_MESSAGES, relyingParty } from "../../api/identity/passkeys";
import { type TestApi, databases, useApi } from "./harness";
import { SoftAuthenticator, b64url } from "./soft-authenticator";

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
  const t = useApi(kind);

  async function account(t: TestApi) {
    const email = `passkey-${Math.random().toString(36).slice(2)}@example.com`;
    const userId = await t.createUser({ email, password: "correct-horse-1" });
    const token = await t.login(email, "correct-horse-1");
    const { rpID, origin } = relyingParty(t.config.publicUrl);
    return { email, userId, token, authenticator: new SoftAuthenticator(rpID, origin) };
  }

  async function addPasskey(a: Awaited<ReturnType<typeof account>>, name = "Laptop") {
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
    const options = await t.post("/api/account/passkeys/options", { token: a.token });
    expect(options.body.data.options.rp.id).toBe(relyingParty(t.config.publicUrl).rpID);
    expect(options.body.data.options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "preferred" });

    const added = await addPasskey(a);
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({ name: "Laptop", last_used_at: null });

    // The next options exclude it.
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
});
