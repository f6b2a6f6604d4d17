import { generateKeyPairSync } from "node:crypto";
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { loadApiConfig } from "../../api/platform/config";
import { IdTokenError, verifyIdToken, verifyIdTokenWithKeys } from "../../api/identity/id-tokens";
import { hashToken } from "../../api/platform/tokens";
import { databases, startApi, useApi } from "./harness";
import { SANDBOX_AUDIENCE, startOidcStub } from "./oidc-stub";

const stub = await startOidcStub();
afterAll(() => stub.close());

const GOOGLE = stub.issuer("google");
const APPLE = stub.issuer("apple");

/** The reason verifyIdToken refuses with, or "ok". */
async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof IdTokenError) return error.reason;
    throw error;
  }
}

describe("identity config", () => {
  it("runs both providers against the sandbox by default", () => {
    const config = loadApiConfig({ SANDBOX: "true", PUBLIC_URL: "https://vpn.example.com" });
    expect(config.identity).toEqual({
      google: {
        issuer: "https://vpn.example.com/dev/oidc/google",
        clientId: "sandbox-google-client",
        clientSecret: "sandbox-google-secret",
      },
      apple: {
        issuer: "https://vpn.example.com/dev/oidc/apple",
        clientId: "sandbox.apple.client",
        teamId: "SANDBOXTEAM",
        keyId: "SANDBOXKEY",
      },
    });
    expect(config.desktopCodes).toEqual({ maxPerIp: 10, windowSeconds: 600 });
  });

  it("honours GOOGLE_ISSUER / APPLE_ISSUER in sandbox mode (tests)", () => {
    const config = loadApiConfig({
      SANDBOX: "true",
      GOOGLE_ISSUER: "http://127.0.0.1:9/google/",
      APPLE_ISSUER: "http://127.0.0.1:9/apple",
    });
    expect(config.identity.google).toMatchObject({
      issuer: "http://127.0.0.1:9/google",
      clientId: "sandbox-google-client",
    });
    expect(config.identity.apple).toMatchObject({
      issuer: "http://127.0.0.1:9/apple",
      clientId: "sandbox.apple.client",
    });
  });

  it("goes live with the client ids, Google's and Apple's issuers by default", () => {
    const pem = generateKeyPairSync("ec", { namedCurve: "P-256" })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const config = loadApiConfig({
      SANDBOX: "true",
      GOOGLE_CLIENT_ID: "123.apps.googleusercontent.com",
      GOOGLE_CLIENT_SECRET: "gsecret",
      APPLE_CLIENT_ID: "com.example.vpn.web",
      APPLE_TEAM_ID: "TEAM123456",
      APPLE_KEY_ID: "KEY1234567",
      // As a one-line .env value.
      APPLE_PRIVATE_KEY: pem.trim().replace(/\n/g, "\\n"),
      DESKTOP_CODE_MAX_PER_IP: "4",
    });
    expect(config.identity.google).toEqual({
      issuer: "https://accounts.google.com",
      clientId: "123.apps.googleusercontent.com",
      clientSecret: "gsecret",
    });
    expect(config.identity.apple).toEqual({
      issuer: "https://appleid.apple.com",
      clientId: "com.example.vpn.web",
      teamId: "TEAM123456",
      keyId: "KEY1234567",
      privateKey: pem.trim(),
    });
    expect(config.integrations).toMatchObject({ google: "live", apple: "live" });
    expect(config.desktopCodes.maxPerIp).toBe(4);
  });

  it("requires the team id, key id and private key with APPLE_CLIENT_ID, and a real key", () => {
    expect(() => loadApiConfig({ SANDBOX: "true", APPLE_CLIENT_ID: "com.example.vpn.web" })).toThrow(
      "Invalid environment: APPLE_TEAM_ID: required when APPLE_CLIENT_ID is set; APPLE_KEY_ID: required when APPLE_CLIENT_ID is set; APPLE_PRIVATE_KEY: required when APPLE_CLIENT_ID is set",
    );
    expect(() => loadApiConfig({ SANDBOX: "true", APPLE_PRIVATE_KEY: "not a key" })).toThrow(/APPLE_PRIVATE_KEY: expected the PEM/);
    expect(() => loadApiConfig({ SANDBOX: "true", GOOGLE_ISSUER: "accounts.google.com" })).toThrow(/GOOGLE_ISSUER/);
    expect(() => loadApiConfig({ SANDBOX: "true", DESKTOP_CODE_MAX_PER_IP: "0" })).toThrow(/DESKTOP_CODE_MAX_PER_IP/);
  });
});

describe("ID-token verification", () => {
  const google = { issuer: GOOGLE, audience: SANDBOX_AUDIENCE.google };
  const apple = { issuer: APPLE, audience: SANDBOX_AUDIENCE.apple };

  it("accepts a good token and returns its claims", async () => {
    const token = await stub.sign("google", { sub: "g-1", email: "Ann@Example.com", name: " Ann " });
    const claims = await verifyIdToken(token, google);
    expect(claims).toMatchObject({ sub: "g-1", email: "ann@example.com", emailVerified: true, name: "Ann" });
    // Apple: ES256, email_verified as the string "true", no name.
    const appleClaims = await verifyIdToken(await stub.sign("apple", { sub: "a-1" }), apple);
    expect(appleClaims).toMatchObject({ sub: "a-1", emailVerified: true, name: undefined });
  });

  it("fetches the discovery document and the keys once per issuer", async () => {
    for (let i = 0; i < 3; i++) await verifyIdToken(await stub.sign("google"), google);
    expect(stub.hits.get("/google/.well-known/openid-configuration")).toBe(1);
    expect(stub.hits.get("/google/jwks")).toBe(1);
  });

  it("refuses a bad signature (another key, an unknown kid, HS256, none)", async () => {
    expect(await reasonOf(verifyIdToken(await stub.sign("google", {}, { rogue: true }), google))).toBe("signature");
    expect(await reasonOf(verifyIdToken(await stub.sign("apple", {}, { rogue: true }), apple))).toBe("signature");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", {}, { kid: "nope" }), google))).toBe("signature");
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: GOOGLE, aud: google.audience, sub: "x", iat: now, exp: now + 60 };
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256", kid: "google-key-1" })
      .sign(new TextEncoder().encode("x".repeat(32)));
    expect(await reasonOf(verifyIdToken(hs, google))).toBe("signature");
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(
      JSON.stringify(claims),
    ).toString("base64url")}.`;
    expect(await reasonOf(verifyIdToken(none, google))).toBe("signature");
    expect(await reasonOf(verifyIdToken("not.a.jwt", google))).toBe("malformed");
  });

  it("refuses a wrong audience, a wrong issuer, an expired token; tolerates 60 s of clock skew", async () => {
    expect(await reasonOf(verifyIdToken(await stub.sign("google", { aud: "someone-else" }), google))).toBe("audience");
    // Signed with Google's key, but naming another issuer.
    expect(await reasonOf(verifyIdToken(await stub.sign("google", { iss: APPLE }), google))).toBe("issuer");
    const now = Math.floor(Date.now() / 1000);
    expect(await reasonOf(verifyIdToken(await stub.sign("google", { exp: now - 120 }), google))).toBe("expired");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", { exp: now - 30 }), google))).toBe("ok");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", {}, { omit: ["exp"] }), google))).toBe("malformed");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", {}, { omit: ["sub"] }), google))).toBe("malformed");
    // `now` moves the verifier's clock.
    const token = await stub.sign("google");
    expect(await reasonOf(verifyIdToken(token, { ...google, now: new Date(Date.now() + 3600_000) }))).toBe("expired");
  });

  it("checks the nonce when given", async () => {
    const token = await stub.sign("google", { nonce: "n-123" });
    expect(await reasonOf(verifyIdToken(token, { ...google, nonce: "n-123" }))).toBe("ok");
    expect(await reasonOf(verifyIdToken(token, { ...google, nonce: "n-999" }))).toBe("nonce");
    expect(await reasonOf(verifyIdToken(await stub.sign("google"), { ...google, nonce: "n-123" }))).toBe("nonce");
  });

  it("checks the email when given: it must match (any case) and be verified", async () => {
    const opts = { ...google, email: "Someone@Example.com" };
    expect(await reasonOf(verifyIdToken(await stub.sign("google"), opts))).toBe("ok");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", { email_verified: false }), opts))).toBe("email");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", {}, { omit: ["email_verified"] }), opts))).toBe(
      "email",
    );
    expect(
      await reasonOf(
        verifyIdToken(await stub.sign("apple", { email_verified: "false" }), {
          ...apple,
          email: "someone@example.com",
        }),
      ),
    ).toBe("email");
    expect(await reasonOf(verifyIdToken(await stub.sign("google", { email: "other@example.com" }), opts))).toBe(
      "email",
    );
  });

  it("takes an injected key set (verifyIdTokenWithKeys)", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256");
    const keys = createLocalJWKSet({ keys: [{ ...(await exportJWK(publicKey)), kid: "k", alg: "ES256" }] });
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ sub: "s", email: "a@b.example", email_verified: true })
      .setProtectedHeader({ alg: "ES256", kid: "k" })
      .setIssuer("https://issuer.example")
      .setAudience("client")
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(privateKey);
    const claims = await verifyIdTokenWithKeys(token, keys, { issuer: "https://issuer.example", audience: "client" });
    expect(claims.sub).toBe("s");
    expect(
      await reasonOf(verifyIdTokenWithKeys(token, keys, { issuer: "https://issuer.example", audience: "x" })),
    ).toBe("audience");
  });

  it("reports an unreachable issuer as 'unavailable'", async () => {
    const token = await stub.sign("google");
    expect(await reasonOf(verifyIdToken(token, { issuer: `${stub.baseUrl}/nowhere`, audience: "x" }))).toBe(
      "unavailable",
    );
  });
});

describe.each(databases({ postgres: "parallel first sign-ins and disconnects: unique retries, row locks" }))("Google and Apple sign-in ($name)", (kind) => {
  const t = useApi(kind, { env: stub.env });

  const thirdPartyLogin = (json: Record<string, unknown>) => t.post("/api/user/thirdparty-login", { json });
  let n = 0;
  const unique = (prefix: string) => `${prefix}-${kind.name}-${++n}`;
  const newEmail = () => `${unique("person")}@example.com`;

  async function linksOf(userId: number) {
    return t.db.selectFrom("account_links").selectAll().where("user_id", "=", userId).orderBy("id").execute();
  }

  it("creates an account without a password, with the link, and signs it in", async () => {
    const email = newEmail();
    const sub = unique("g");
    const token = await stub.sign("google", { sub, email });
    const res = await thirdPartyLogin({ name: "Ann Smith", email, firebase_id_token: token, auth_method: "GOOGLE" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      success: true,
      message: "Login successful.",
      data: {
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        user: {
          id: expect.any(Number),
          email,
          name: "Ann Smith",
          has_password: false,
          email_verified_at: expect.any(String),
          created_at: expect.any(String),
          language: null,
        },
      },
    });
    const userId = res.body.data.user.id as number;
    expect(await linksOf(userId)).toEqual([
      expect.objectContaining({ link_type: "GOOGLE", subject: sub, email, user_id: userId }),
    ]);
    const me = await t.get("/api/me", { token: res.body.data.token });
    expect(me.body.data).toMatchObject({ id: userId, email });
    const device = await t.db
      .selectFrom("tokens")
      .innerJoin("devices", "devices.id", "tokens.device_id")
      .selectAll("devices")
      .where("tokens.token_hash", "=", hashToken(res.body.data.token))
      .executeTakeFirstOrThrow();
    expect(device.platform).toBe("Web Browser");

    // Again: the same account through the link.
    const again = await thirdPartyLogin({
      email,
      firebase_id_token: await stub.sign("google", { sub, email }),
      auth_method: "GOOGLE",
    });
    expect(again.status).toBe(200);
    expect(again.body.data.user.id).toBe(userId);
    expect(await linksOf(userId)).toHaveLength(1);
  });

  it("Apple: without a name the account is named after the part of the email before the @; Desktop devices", async () => {
    const email = newEmail();
    const token = await stub.sign("apple", { email: email.toUpperCase() });
    const res = await thirdPartyLogin({
      email: email.toUpperCase(),
      firebase_id_token: token,
      auth_method: "apple",
      platform: "Desktop",
      device_os: "Windows",
      device_os_version: "11",
      device_brand: "Dell",
      device_model: "XPS 13",
    });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ email, name: email.split("@")[0], has_password: false });
    expect(await linksOf(res.body.data.user.id)).toEqual([expect.objectContaining({ link_type: "APPLE", email })]);
    const device = await t.db
      .selectFrom("tokens")
      .innerJoin("devices", "devices.id", "tokens.device_id")
      .selectAll("devices")
      .where("tokens.token_hash", "=", hashToken(res.body.data.token))
      .executeTakeFirstOrThrow();
    expect(device).toMatchObject({
      platform: "Desktop",
      device_os: "Windows",
      device_os_version: "11",
      device_brand: "Dell",
      device_model: "XPS 13",
    });
    // Google without a name in the payload: the token's name, else the same fallback.
    const email2 = newEmail();
    const res2 = await thirdPartyLogin({
      email: email2,
      firebase_id_token: await stub.sign("google", { email: email2 }),
      auth_method: "GOOGLE",
    });
    expect(res2.body.data.user.name).toBe(email2.split("@")[0]);
    const email3 = newEmail();
    const res3 = await thirdPartyLogin({
      email: email3,
      firebase_id_token: await stub.sign("google", { email: email3, name: "Token Name" }),
      auth_method: "GOOGLE",
    });
    expect(res3.body.data.user.name).toBe("Token Name");
  });

  it("an existing account with that email signs in and gets the link when the provider verified the email", async () => {
    const email = newEmail();
    const userId = await t.createUser({ email, password: "password-123", name: "Existing" });
    const sub = unique("g");
    const res = await thirdPartyLogin({
      name: "Someone Else",
      email,
      firebase_id_token: await stub.sign("google", { sub, email }),
      auth_method: "GOOGLE",
    });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: userId, email, name: "Existing", has_password: true });
    expect(await linksOf(userId)).toEqual([expect.objectContaining({ link_type: "GOOGLE", subject: sub })]);
    // The password still works.
    await t.login(email, "password-123");
  });

  it("an existing account's email not verified by the provider is refused (403), and no link is made", async () => {
    const email = newEmail();
    const userId = await t.createUser({ email, password: "password-123" });
    const google = await thirdPartyLogin({
      email,
      firebase_id_token: await stub.sign("google", { email, email_verified: false }),
      auth_method: "GOOGLE",
    });
    expect(google.status).toBe(403);
    const message =
      "This email belongs to an existing account. Sign in with your password, then connect your Google account.";
    expect(google.body).toEqual({ status: false, success: false, message, errors: { message, code: "password_sign_in_required" } });
    const apple = await thirdPartyLogin({
      email,
      firebase_id_token: await stub.sign("apple", { email, email_verified: "false" }),
      auth_method: "APPLE",
    });
    expect(apple.status).toBe(403);
    expect(apple.body.message).toBe(
      "This email belongs to an existing account. Sign in with your password, then connect your Apple account.",
    );
    expect(await linksOf(userId)).toEqual([]);

    // No account yet and an unverified email: no account is made.
    const fresh = newEmail();
    const res = await thirdPartyLogin({
      email: fresh,
      firebase_id_token: await stub.sign("google", { email: fresh, email_verified: false }),
      auth_method: "GOOGLE",
    });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Login failed: Google has not verified this email address.");
    expect(await t.db.selectFrom("users").select("id").where("email", "=", fresh).executeTakeFirst()).toBeUndefined();
  });

  it("an existing link (by sub) wins, even when the provider's email differs from the account's", async () => {
    const email = newEmail();
    const sub = unique("a");
    const first = await thirdPartyLogin({
      email,
      firebase_id_token: await stub.sign("apple", { sub, email }),
      auth_method: "APPLE",
    });
    const userId = first.body.data.user.id as number;
    // The person changed their email at the provider; another account owns that email here.
    const changed = newEmail();
    const otherId = await t.createUser({ email: changed, password: "password-123" });
    const res = await thirdPartyLogin({
      email: changed,
      firebase_id_token: await stub.sign("apple", { sub, email: changed }),
      auth_method: "APPLE",
    });
    expect(res.status).toBe(200);
    expect(res.body.data.user).toMatchObject({ id: userId, email });
    expect(await linksOf(otherId)).toEqual([]);
    expect(await linksOf(userId)).toEqual([expect.objectContaining({ subject: sub, email: changed })]);
  });

  it("parallel first sign-ins make one account and one link", async () => {
    const email = newEmail();
    const sub = unique("g");
    const results = await Promise.all(
      Array.from({ length: 4 }, async () =>
        thirdPartyLogin({ email, firebase_id_token: await stub.sign("google", { sub, email }), auth_method: "GOOGLE" }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const ids = new Set(results.map((r) => r.body.data.user.id));
    expect(ids.size).toBe(1);
    expect(await linksOf([...ids][0])).toHaveLength(1);
  });

  it("refuses tokens that do not verify (401) and invalid bodies (422)", async () => {
    const email = newEmail();
    const attempt = async (token: string, method = "GOOGLE", payloadEmail = email) =>
      thirdPartyLogin({ email: payloadEmail, firebase_id_token: token, auth_method: method });
    const notVerified = "Login failed: the Google sign-in could not be verified. Please try again.";
    for (const res of [
      await attempt(await stub.sign("google", { email }, { rogue: true })),
      await attempt(await stub.sign("google", { email, aud: "another-client" })),
      await attempt(await stub.sign("google", { email, exp: Math.floor(Date.now() / 1000) - 300 })),
      // An Apple token sent as Google's.
      await attempt(await stub.sign("apple", { email })),
      await attempt("garbage"),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        status: false,
        success: false,
        message: notVerified,
        errors: { message: notVerified, code: "provider_sign_in_failed" },
      });
    }
    const apple = await attempt(await stub.sign("google", { email }), "APPLE");
    expect(apple.body.message).toBe("Login failed: the Apple sign-in could not be verified. Please try again.");

    const mismatch = await attempt(await stub.sign("google", { email: "someone.else@example.com" }));
    expect(mismatch.status).toBe(401);
    expect(mismatch.body.message).toBe("Login failed: the email does not match your Google account.");
    const noEmail = await attempt(await stub.sign("google", {}, { omit: ["email"] }));
    expect(noEmail.body.message).toBe("Login failed: the email does not match your Google account.");
    expect(await t.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst()).toBeUndefined();

    const empty = await thirdPartyLogin({});
    expect(empty.status).toBe(422);
    expect(Object.keys(empty.body.errors.fields).sort()).toEqual(["auth_method", "email", "firebase_id_token"]);
    const badMethod = await thirdPartyLogin({ email, firebase_id_token: "x", auth_method: "FACEBOOK" });
    expect(badMethod.status).toBe(422);
    expect(badMethod.body.errors.fields.auth_method).toEqual(["The auth method must be GOOGLE or APPLE."]);
    const badPlatform = await thirdPartyLogin({
      email,
      firebase_id_token: "x",
      auth_method: "GOOGLE",
      platform: "iOS",
    });
    expect(badPlatform.status).toBe(422);
    expect(badPlatform.body.errors.fields.platform).toEqual(["The platform must be Web Browser or Desktop."]);
  });

  it("answers 503 when the provider cannot be reached", async () => {
    const other = await startApi(kind, {
      env: { GOOGLE_ISSUER: `${stub.baseUrl}/down` },
    });
    try {
      const email = newEmail();
      const res = await other.post("/api/user/thirdparty-login", {
        json: { email, firebase_id_token: await stub.sign("google", { email }), auth_method: "GOOGLE" },
      });
      expect(res.status).toBe(503);
      expect(res.body.message).toBe("Sign-in with Google is unavailable right now. Please try again later.");
    } finally {
      await other.close();
    }
  });

  describe("connected accounts", () => {
    async function passwordUser() {
      const email = newEmail();
      const id = await t.createUser({ email, password: "password-123" });
      return { id, email, token: await t.login(email, "password-123") };
    }

    /** A passwordless account made by signing in with a provider. */
    async function providerUser(provider: "google" | "apple") {
      const email = newEmail();
      const res = await thirdPartyLogin({
        email,
        firebase_id_token: await stub.sign(provider, { email, sub: unique(provider) }),
        auth_method: provider.toUpperCase(),
      });
      expect(res.status).toBe(200);
      return { id: res.body.data.user.id as number, email, token: res.body.data.token as string };
    }

    const connect = async (bearer: string, linkType: "GOOGLE" | "APPLE", claims: Record<string, unknown>) => {
      const email = (claims.email as string) ?? "someone@example.com";
      return t.post("/api/account/connect", {
        token: bearer,
        json: {
          name: "X",
          email,
          firebase_id_token: await stub.sign(linkType === "GOOGLE" ? "google" : "apple", { email, ...claims }),
          link_type: linkType,
        },
      });
    };

    it("link-list shows the account's links", async () => {
      const user = await providerUser("google");
      const list = await t.post("/api/account/link-list", { token: user.token });
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        status: true,
        success: true,
        message: "OK",
        data: { linked: [{ id: expect.any(Number), link_type: "GOOGLE", email: user.email }] },
      });
      const other = await passwordUser();
      expect((await t.post("/api/account/link-list", { token: other.token })).body.data.linked).toEqual([]);
      expect((await t.post("/api/account/link-list")).status).toBe(401);
    });

    it("an ID token connects once: the same token again is refused (409), before any other check", async () => {
      const user = await passwordUser();
      const email = newEmail();
      const token = await stub.sign("google", { email, sub: unique("g") });
      const body = { name: "X", email, firebase_id_token: token, link_type: "GOOGLE" };
      const first = await t.post("/api/account/connect", { token: user.token, json: body });
      expect(first.status).toBe(200);
      const other = await passwordUser();
      const replayed = await t.post("/api/account/connect", { token: other.token, json: body });
      expect(replayed.status).toBe(409);
      expect(replayed.body.message).toBe("This Google sign-in was already used. Please connect Google again.");
      expect(replayed.body.errors.code).toBe("id_token_replayed");
      expect((await t.post("/api/account/link-list", { token: other.token })).body.data.linked).toEqual([]);
    });

    it("connects a provider account; refuses one connected elsewhere and a second one of the same type (409)", async () => {
      const user = await passwordUser();
      const sub = unique("g");
      const res = await connect(user.token, "GOOGLE", { sub, email: "My.Gmail@gmail.com" });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: true,
        success: true,
        message: "Account connected.",
        data: { id: expect.any(Number), link_type: "GOOGLE", email: "my.gmail@gmail.com" },
      });
      const list = await t.post("/api/account/link-list", { token: user.token });
      expect(list.body.data.linked).toEqual([res.body.data]);
      // The connected Google account now signs into this account.
      const login = await thirdPartyLogin({
        email: "my.gmail@gmail.com",
        firebase_id_token: await stub.sign("google", { sub, email: "my.gmail@gmail.com" }),
        auth_method: "GOOGLE",
      });
      expect(login.body.data.user.id).toBe(user.id);

      // Same provider account again, or another Google account: this account already has Google.
      for (const claims of [{ sub }, { sub: unique("g") }]) {
        const again = await connect(user.token, "GOOGLE", claims);
        expect(again.status).toBe(409);
        expect(again.body.message).toBe("Your account is already connected to Google.");
      }
      // Someone else tries to connect that Google account.
      const other = await passwordUser();
      const taken = await connect(other.token, "GOOGLE", { sub });
      expect(taken.status).toBe(409);
      expect(taken.body.message).toBe("This Google account is already connected to another account.");

      // Apple: connectable next to Google; wording likewise.
      const appleSub = unique("a");
      expect((await connect(user.token, "APPLE", { sub: appleSub })).status).toBe(200);
      const appleTaken = await connect(other.token, "APPLE", { sub: appleSub });
      expect(appleTaken.body.message).toBe("This Apple account is already connected to another account.");
      expect((await connect(user.token, "APPLE", { sub: unique("a") })).body.message).toBe(
        "Your account is already connected to Apple.",
      );
      expect(
        (await t.post("/api/account/link-list", { token: user.token })).body.data.linked.map((l: any) => l.link_type),
      ).toEqual(["GOOGLE", "APPLE"]);
    });

    it("refuses to connect with a token that does not verify (422, not 401) or without a session", async () => {
      const user = await passwordUser();
      const bad = await t.post("/api/account/connect", {
        token: user.token,
        json: {
          email: "a@example.com",
          firebase_id_token: await stub.sign("google", { email: "a@example.com" }, { rogue: true }),
          link_type: "GOOGLE",
        },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.message).toBe("The Google sign-in could not be verified. Please try again.");
      expect(bad.body.errors.fields.firebase_id_token).toEqual([bad.body.message]);
      const unverified = await connect(user.token, "APPLE", { email: "a@example.com", email_verified: "false" });
      expect(unverified.status).toBe(422);
      expect(unverified.body.message).toBe("Apple has not verified this email address.");
      const mismatch = await t.post("/api/account/connect", {
        token: user.token,
        json: {
          email: "b@example.com",
          firebase_id_token: await stub.sign("google", { email: "a@example.com" }),
          link_type: "GOOGLE",
        },
      });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.message).toBe("The email does not match your Google account.");
      expect((await t.post("/api/account/connect", { token: user.token, json: {} })).status).toBe(422);
      expect((await t.post("/api/account/connect", { json: {} })).status).toBe(401);
      expect((await t.post("/api/account/link-list", { token: user.token })).body.data.linked).toEqual([]);
    });

    it("disconnects; never the last way to sign in of an account without a password", async () => {
      // Password + link: the link can go.
      const withPassword = await passwordUser();
      const link = (await connect(withPassword.token, "GOOGLE", { sub: unique("g") })).body.data;
      const res = await t.post("/api/account/disconnect", {
        token: withPassword.token,
        json: { link_id: link.id, link_type: "GOOGLE" },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true, success: true, message: "Account disconnected.", data: null });
      expect((await t.post("/api/account/link-list", { token: withPassword.token })).body.data.linked).toEqual([]);

      // No password, one link: refused.
      const only = await providerUser("apple");
      const [onlyLink] = (await t.post("/api/account/link-list", { token: only.token })).body.data.linked;
      const refused = await t.post("/api/account/disconnect", {
        token: only.token,
        form: { link_id: String(onlyLink.id), link_type: "APPLE" },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.message).toBe("Set a password before disconnecting your only way to sign in.");
      expect(await linksOf(only.id)).toHaveLength(1);

      // No password, two links: one can go, then the other cannot.
      const google = (await connect(only.token, "GOOGLE", { sub: unique("g") })).body.data;
      expect(
        (
          await t.post("/api/account/disconnect", {
            token: only.token,
            json: { link_id: onlyLink.id, link_type: "APPLE" },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await t.post("/api/account/disconnect", {
            token: only.token,
            json: { link_id: google.id, link_type: "GOOGLE" },
          })
        ).status,
      ).toBe(409);

      // Once a password is set, the last link can go.
      await t.db.updateTable("users").set({ password_hash: "x" }).where("id", "=", only.id).execute();
      expect(
        (
          await t.post("/api/account/disconnect", {
            token: only.token,
            json: { link_id: google.id, link_type: "GOOGLE" },
          })
        ).status,
      ).toBe(200);
      expect(await linksOf(only.id)).toEqual([]);
    });

    it("parallel disconnects cannot remove both links of an account without a password", async () => {
      const user = await providerUser("google");
      await connect(user.token, "APPLE", { sub: unique("a") });
      const links = (await t.post("/api/account/link-list", { token: user.token })).body.data.linked as Array<{
        id: number;
        link_type: string;
      }>;
      expect(links).toHaveLength(2);
      const results = await Promise.all(
        links.map((l) =>
          t.post("/api/account/disconnect", { token: user.token, json: { link_id: l.id, link_type: l.link_type } }),
        ),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await linksOf(user.id)).toHaveLength(1);
    });

    it("answers 404 for someone else's link, a wrong type or an unknown id; 422 for a bad body", async () => {
      const owner = await passwordUser();
      const link = (await connect(owner.token, "GOOGLE", { sub: unique("g") })).body.data;
      const other = await passwordUser();
      const notFound = "Connection not found.";
      for (const [token, json] of [
        [other.token, { link_id: link.id, link_type: "GOOGLE" }],
        [owner.token, { link_id: link.id, link_type: "APPLE" }],
        [owner.token, { link_id: 999_999, link_type: "GOOGLE" }],
      ] as const) {
        const res = await t.post("/api/account/disconnect", { token, json });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ status: false, success: false, message: notFound, errors: { message: notFound, code: "not_found" } });
      }
      expect(await linksOf(owner.id)).toHaveLength(1);
      const bad = await t.post("/api/account/disconnect", {
        token: owner.token,
        json: { link_id: "abc", link_type: "X" },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.fields).toEqual({
        link_id: ["The link id must be a number."],
        link_type: ["The link type must be GOOGLE or APPLE."],
      });
      expect((await t.post("/api/account/disconnect", { json: {} })).status).toBe(401);
    });

    it("deleting an account deletes its links", async () => {
      const user = await providerUser("google");
      await t.db.deleteFrom("users").where("id", "=", user.id).execute();
      expect(await linksOf(user.id)).toEqual([]);
    });
  });
});

describe.each(databases())("Google sign-in, live mode ($name)", (kind) => {
  const t = useApi(kind, {
    env: { GOOGLE_CLIENT_ID: "live-client.apps.googleusercontent.com", GOOGLE_CLIENT_SECRET: "live-secret", GOOGLE_ISSUER: GOOGLE },
  });

  it("verifies tokens for the configured client id", async () => {
    const email = "live@example.com";
    const good = await stub.sign("google", { email, aud: "live-client.apps.googleusercontent.com" });
    const res = await t.post("/api/user/thirdparty-login", {
      json: { email, firebase_id_token: good, auth_method: "GOOGLE" },
    });
    expect(res.status).toBe(200);
    // A token for the sandbox client is not for us.
    const sandbox = await stub.sign("google", { email });
    expect(
      (
        await t.post("/api/user/thirdparty-login", {
          json: { email, firebase_id_token: sandbox, auth_method: "GOOGLE" },
        })
      ).status,
    ).toBe(401);
  });
});
