import { describe, expect, it } from "vitest";
import { hashToken } from "../../api/platform/tokens";
import { databases, useApi } from "./harness";

const CHROME_WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

describe.each(databases())("sign-in, tokens and sign-out ($name)", (kind) => {
  const t = useApi(kind);

  it("signs in the demo account and the token works on /api/me", async () => {
    const res = await t.post("/api/user/login", {
      json: { email: "demo@example.com", password: "demo-password" },
      headers: { "user-agent": CHROME_WINDOWS },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: true, success: true });
    const { token, user } = res.body.data;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(user).toEqual({
      id: expect.any(Number),
      email: "demo@example.com",
      name: "Demo User",
      has_password: true,
      email_verified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      // None chosen yet (issue 36): its emails are English until the customer chooses or signs in.
      language: null,
    });

    const me = await t.get("/api/me", { token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ status: true, success: true, message: expect.any(String), data: user });

    // Only the hash is stored; the device describes the browser from its User-Agent.
    const stored = await t.db
      .selectFrom("tokens")
      .innerJoin("devices", "devices.id", "tokens.device_id")
      .selectAll("devices")
      .select(["tokens.token_hash", "tokens.expires_at", "tokens.created_at as token_created_at"])
      .where("tokens.token_hash", "=", hashToken(token))
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      platform: "Web Browser",
      device_os: "Windows",
      device_os_version: "10",
      device_brand: "Chrome",
      device_model: "Chrome 131",
      user_agent: CHROME_WINDOWS,
    });
    const lifetimeDays = (Date.parse(stored.expires_at) - Date.parse(stored.token_created_at)) / 86_400_000;
    expect(lifetimeDays).toBe(30);
    const all = await t.db.selectFrom("tokens").select("token_hash").execute();
    expect(all.map((r) => r.token_hash)).not.toContain(token);
  });

  it("trims and lower-cases the email, and accepts form bodies", async () => {
    const json = await t.post("/api/user/login", { json: { email: "  DEMO@Example.COM ", password: "demo-password" } });
    expect(json.status).toBe(200);
    const form = await t.post("/api/user/login", { form: { email: "demo@example.com", password: "demo-password" } });
    expect(form.status).toBe(200);
    expect((await t.get("/api/me", { token: form.body.data.token })).status).toBe(200);
  });

  it("does not trim passwords", async () => {
    const res = await t.post("/api/user/login", { json: { email: "demo@example.com", password: " demo-password " } });
    expect(res.status).toBe(401);
  });

  it("records desktop device fields", async () => {
    const res = await t.post("/api/user/login", {
      json: {
        email: "demo@example.com",
        password: "demo-password",
        platform: "Desktop",
        device_os: "Windows",
        device_os_version: "11",
        device_brand: "Dell",
        device_model: "XPS 13",
      },
      headers: { "user-agent": "VPNClient/2.1" },
    });
    expect(res.status).toBe(200);
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
      user_agent: "VPNClient/2.1",
    });
  });

  it("answers a wrong password and an unknown email identically", async () => {
    await t.createUser({ email: "nopassword@example.com", password: null, name: "Social" });
    const wrong = await t.post("/api/user/login", { json: { email: "demo@example.com", password: "wrong-password" } });
    const unknown = await t.post("/api/user/login", { json: { email: "nobody@example.com", password: "wrong-password" } });
    const noPassword = await t.post("/api/user/login", {
      json: { email: "nopassword@example.com", password: "wrong-password" },
    });
    const expected = {
      status: false,
      success: false,
      message: "These credentials do not match our records.",
      errors: { message: "These credentials do not match our records.", code: "invalid_credentials" },
    };
    for (const res of [wrong, unknown, noPassword]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual(expected);
    }
    expect(unknown.text).toBe(wrong.text);
    expect(noPassword.text).toBe(wrong.text);
  });

  it("validates the body with the spec's messages", async () => {
    const empty = await t.post("/api/user/login", { json: {} });
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({
      status: false,
      success: false,
      message: "The email field is required.",
      errors: {
        message: "The email field is required.",
        code: "validation_failed",
        fields: { email: ["The email field is required."], password: ["The password field is required."] },
      },
    });

    const invalid = await t.post("/api/user/login", { json: { email: "not-an-email", password: "x" } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toBe("Please enter a valid email address");
    expect(invalid.body.errors.fields).toEqual({ email: ["Please enter a valid email address"] });

    const blank = await t.post("/api/user/login", { json: { email: "   ", password: "" } });
    expect(blank.status).toBe(422);
    expect(blank.body.errors.fields).toEqual({
      email: ["The email field is required."],
      password: ["The password field is required."],
    });

    const wrongTypes = await t.post("/api/user/login", { json: { email: 42, password: ["a"] } });
    expect(wrongTypes.status).toBe(422);
    expect(Object.keys(wrongTypes.body.errors.fields).sort()).toEqual(["email", "password"]);

    const notAnObject = await t.post("/api/user/login", { json: ["demo@example.com"] });
    expect(notAnObject.status).toBe(422);
    expect(notAnObject.body.success).toBe(false);

    for (const raw of ["null", '"demo@example.com"', "42"]) {
      const res = await t.post("/api/user/login", { raw, headers: { "content-type": "application/json" } });
      expect(res.status, raw).toBe(422);
    }

    const nulls = await t.post("/api/user/login", { json: { email: null, password: null } });
    expect(nulls.status).toBe(422);
    expect(nulls.body.errors.fields.email).toEqual(["The email field is required."]);
  });

  it("revokes the token on logout, and only that token", async () => {
    const first = await t.login("demo@example.com", "demo-password");
    const second = await t.login("demo@example.com", "demo-password");

    const out = await t.post("/api/user/logout", { token: first });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ status: true, success: true, message: "Logged out." });

    const after = await t.get("/api/me", { token: first });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({
      status: false,
      success: false,
      message: "Unauthenticated.",
      errors: { message: "Unauthenticated.", code: "unauthenticated" },
    });
    expect((await t.post("/api/user/logout", { token: first })).status).toBe(401);
    expect((await t.get("/api/me", { token: second })).status).toBe(200);
  });

  it("rejects an expired token", async () => {
    const token = await t.login("demo@example.com", "demo-password");
    expect((await t.get("/api/me", { token })).status).toBe(200);
    await t.db
      .updateTable("tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("token_hash", "=", hashToken(token))
      .execute();
    const res = await t.get("/api/me", { token });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Unauthenticated.");
  });

  it("rejects missing, malformed and unknown tokens", async () => {
    for (const authorization of [
      undefined,
      "",
      "Bearer",
      "Basic ZGVtbzpkZW1v",
      "Bearer not-a-token",
      `Bearer ${"A".repeat(43)}`,
    ]) {
      const res = await t.get("/api/me", { headers: authorization === undefined ? {} : { authorization } });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.body.message).toBe("Unauthenticated.");
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
  });

  it("records use of a token at most once a minute", async () => {
    const token = await t.login("demo@example.com", "demo-password");
    const hash = hashToken(token);
    const read = () =>
      t.db
        .selectFrom("tokens")
        .innerJoin("devices", "devices.id", "tokens.device_id")
        .select(["tokens.last_used_at", "devices.last_login_at", "devices.id"])
        .where("tokens.token_hash", "=", hash)
        .executeTakeFirstOrThrow();

    const before = await read();
    await t.get("/api/me", { token });
    expect(await read()).toEqual(before); // used within the minute: no write

    const old = new Date(Date.now() - 5 * 60_000).toISOString();
    await t.db.updateTable("tokens").set({ last_used_at: old }).where("token_hash", "=", hash).execute();
    await t.db.updateTable("devices").set({ last_login_at: old }).where("id", "=", before.id).execute();
    await t.get("/api/me", { token });
    const after = await read();
    expect(after.last_used_at > old).toBe(true);
    expect(after.last_login_at > old).toBe(true);
  });
});
