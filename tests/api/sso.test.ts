import { describe, expect, it } from "vitest";
import { hashToken } from "../../api/platform/tokens";
import { databases, useApi } from "./harness";

const INVALID = "This sign-in link is invalid or has expired.";

describe.each(databases())("SSO token ($name)", (kind) => {
  const t = useApi(kind);

  const exchange = (access_token: string, extra: Record<string, string> = {}) =>
    t.post("/api/auth/sso-login-with-token", { json: { access_token, ...extra } });

  it("issues a one-time token (60 s) that signs the same account in once", async () => {
    const bearer = await t.login("demo@example.com", "demo-password");
    const res = await t.post("/api/auth/sso-token", { token: bearer });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      success: true,
      message: expect.any(String),
      data: { access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
    });
    const accessToken = res.body.data.access_token as string;
    const row = await t.db
      .selectFrom("one_time_tokens")
      .selectAll()
      .where("token_hash", "=", hashToken(accessToken))
      .executeTakeFirstOrThrow();
    expect(row.purpose).toBe("sso");
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(60_000);

    const login = await exchange(accessToken, { platform: "Desktop", device_os: "macOS" });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ status: true, success: true, message: "Login successful." });
    expect(login.body.data.user.email).toBe("demo@example.com");
    const newToken = login.body.data.token as string;
    expect(newToken).not.toBe(bearer);
    expect((await t.get("/api/me", { token: newToken })).body.data.email).toBe("demo@example.com");
    const device = await t.db
      .selectFrom("tokens")
      .innerJoin("devices", "devices.id", "tokens.device_id")
      .selectAll("devices")
      .where("tokens.token_hash", "=", hashToken(newToken))
      .executeTakeFirstOrThrow();
    expect(device).toMatchObject({ platform: "Desktop", device_os: "macOS" });

    // Single use.
    const again = await exchange(accessToken);
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ status: false, success: false, message: INVALID, errors: { message: INVALID, code: "sso_token_invalid" } });
  });

  it("refuses an expired token (after 60 s) and unknown ones", async () => {
    const bearer = await t.login("demo@example.com", "demo-password");
    const accessToken = (await t.post("/api/auth/sso-token", { token: bearer })).body.data.access_token as string;
    // 61 seconds later (real time, like every token lifetime): move the stored expiry instead of waiting.
    await t.db
      .updateTable("one_time_tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("token_hash", "=", hashToken(accessToken))
      .execute();
    expect((await exchange(accessToken)).body.message).toBe(INVALID);
    expect((await exchange("z".repeat(43))).status).toBe(401);
    expect((await exchange("not a token")).status).toBe(401);
    // A bearer token is not an SSO token.
    expect((await exchange(bearer)).status).toBe(401);
    expect((await t.post("/api/auth/sso-login-with-token", { json: {} })).status).toBe(422);
  });

  it("moving the business clock does not expire an SSO token", async () => {
    const bearer = await t.login("demo@example.com", "demo-password");
    const accessToken = (await t.post("/api/auth/sso-token", { token: bearer })).body.data.access_token as string;
    t.clock.advanceDays(1);
    expect((await exchange(accessToken)).status).toBe(200);
  });

  it("tells whose account a live token opens without using it up (the portal's 'Continue as')", async () => {
    const bearer = await t.login("demo@example.com", "demo-password");
    const accessToken = (await t.post("/api/auth/sso-token", { token: bearer })).body.data.access_token as string;
    const account = (access_token: unknown) => t.post("/api/auth/sso-token/account", { json: { access_token } });

    for (let i = 0; i < 2; i++) {
      const res = await account(accessToken);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: true, success: true, message: expect.any(String), data: { email: "demo@example.com" } });
    }
    const row = await t.db
      .selectFrom("one_time_tokens")
      .select("used_at")
      .where("token_hash", "=", hashToken(accessToken))
      .executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();

    // Still exchanged exactly once; afterwards, and for unknown, expired or non-SSO tokens, 401.
    expect((await exchange(accessToken)).status).toBe(200);
    const used = await account(accessToken);
    expect(used.status).toBe(401);
    expect(used.body).toEqual({ status: false, success: false, message: INVALID, errors: { message: INVALID, code: "sso_token_invalid" } });
    expect((await account("z".repeat(43))).status).toBe(401);
    expect((await account(bearer)).status).toBe(401);
    const stale = (await t.post("/api/auth/sso-token", { token: bearer })).body.data.access_token as string;
    await t.db
      .updateTable("one_time_tokens")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("token_hash", "=", hashToken(stale))
      .execute();
    expect((await account(stale)).status).toBe(401);
    for (const bad of ["", "x".repeat(201), 42, null]) expect((await account(bad)).status, String(bad)).toBe(422);
  });

  it("needs a bearer token to issue one", async () => {
    const res = await t.post("/api/auth/sso-token");
    expect(res.status).toBe(401);
    expect(res.body.message).toBe("Unauthenticated.");
  });
});
