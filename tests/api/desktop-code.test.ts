import { describe, expect, it } from "vitest";
import { DESKTOP_CODE_ALPHABET, generateDesktopCode, normalizeDesktopCode } from "../../api/identity/desktop-codes";
import { hashToken } from "../../api/platform/tokens";
import { databases, useApi } from "./harness";

const INVALID = "This code is invalid or has expired.";
const CODE_SHAPE = /^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{4}-[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{4}$/;

describe("desktop codes (units)", () => {
  it("are 8 characters of an unambiguous alphabet, shown XXXX-XXXX", () => {
    expect(DESKTOP_CODE_ALPHABET).toHaveLength(32);
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const code = generateDesktopCode();
      expect(code).toMatch(CODE_SHAPE);
      seen.add(code);
    }
    expect(seen.size).toBe(200);
  });

  it("are read with or without the dash, in any case, spaces ignored", () => {
    expect(normalizeDesktopCode("ABCD-EFGH")).toBe("ABCDEFGH");
    expect(normalizeDesktopCode("abcdefgh")).toBe("ABCDEFGH");
    expect(normalizeDesktopCode(" abcd - efgh ")).toBe("ABCDEFGH");
    expect(normalizeDesktopCode("ABCD-EFG")).toBeNull();
    expect(normalizeDesktopCode("ABCD-EFG0")).toBeNull(); // 0 is not in the alphabet
    expect(normalizeDesktopCode("ABCD-EFGHJ")).toBeNull();
  });
});

describe.each(databases())("desktop hand-off codes ($name)", (kind) => {
  const t = useApi(kind, { env: { DESKTOP_CODE_MAX_PER_IP: "1000" } });

  let n = 0;
  async function desktopSignIn() {
    const email = `desktop-${kind.name}-${++n}@example.com`;
    await t.createUser({ email, password: "password-123" });
    const res = await t.post("/api/user/login", {
      json: { email, password: "password-123", platform: "Desktop", device_os: "Windows" },
    });
    expect(res.status).toBe(200);
    return { email, token: res.body.data.token as string };
  }

  const issue = (token?: string) => t.post("/api/auth/desktop-code/issue", { token });
  const redeem = (code: unknown) => t.post("/api/auth/desktop-code", { json: { code } });

  it("gives the desktop app the very same token, once", async () => {
    const { email, token } = await desktopSignIn();
    const res = await issue(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: true,
      success: true,
      message: "Enter this code in the desktop app.",
      data: { code: expect.stringMatching(CODE_SHAPE), expires_in: 300 },
    });
    const code = res.body.data.code as string;

    // Neither the token nor the code is stored in clear.
    const row = await t.db.selectFrom("desktop_codes").selectAll().orderBy("id", "desc").executeTakeFirstOrThrow();
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(hashToken(token));
    expect(stored).not.toContain(code.replace("-", ""));
    expect(row.token_ciphertext).toBeTruthy();
    expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(300_000);

    const redeemed = await redeem(code);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toEqual({
      status: true,
      success: true,
      message: "Login successful.",
      data: { token, user: expect.objectContaining({ email, has_password: true }) },
    });
    expect((await t.get("/api/me", { token: redeemed.body.data.token })).body.data.email).toBe(email);
    // Used up, and the ciphertext is gone.
    const used = await redeem(code);
    expect(used.status).toBe(422);
    expect(used.body).toEqual({
      status: false,
      success: false,
      message: INVALID,
      errors: { message: INVALID, code: "code_invalid", fields: { code: [INVALID] } },
    });
    const after = await t.db.selectFrom("desktop_codes").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
    expect(after.token_ciphertext).toBeNull();
    expect(after.used_at).not.toBeNull();
  });

  it("is single use under parallel redemptions", async () => {
    const { token } = await desktopSignIn();
    const code = (await issue(token)).body.data.code as string;
    const results = await Promise.all(Array.from({ length: 6 }, () => redeem(code)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422, 422]);
  });

  it("accepts the code without the dash and in any case", async () => {
    const { token } = await desktopSignIn();
    const code = (await issue(token)).body.data.code as string;
    const res = await redeem(` ${code.replace("-", "").toLowerCase()} `);
    expect(res.status).toBe(200);
    expect(res.body.data.token).toBe(token);
    const code2 = (await issue(token)).body.data.code as string;
    expect((await redeem(code2.toLowerCase())).body.data.token).toBe(token);
  });

  it("is only issued to a Desktop sign-in", async () => {
    const email = `web-${kind.name}@example.com`;
    await t.createUser({ email, password: "password-123" });
    const web = await t.login(email, "password-123");
    const res = await issue(web);
    expect(res.status).toBe(403);
    const message = "Codes for the desktop app can only be made from a desktop app sign-in.";
    expect(res.body).toEqual({ status: false, success: false, message, errors: { message, code: "not_desktop" } });
    expect((await issue()).status).toBe(401);
  });

  it("expires after 300 s (real time)", async () => {
    const { token } = await desktopSignIn();
    const code = (await issue(token)).body.data.code as string;
    // Moving the business clock does not expire it.
    t.clock.advanceDays(1);
    await t.db
      .updateTable("desktop_codes")
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where("used_at", "is", null)
      .execute();
    expect((await redeem(code)).body.message).toBe(INVALID);
  });

  it("is refused once its token is revoked (logout), and a newer code retires older ones", async () => {
    const { token } = await desktopSignIn();
    const first = (await issue(token)).body.data.code as string;
    const second = (await issue(token)).body.data.code as string;
    expect((await redeem(first)).status).toBe(422);
    expect((await t.post("/api/user/logout", { token })).status).toBe(200);
    expect((await redeem(second)).status).toBe(422);
  });

  it("refuses unknown, malformed and missing codes with the same message", async () => {
    for (const code of ["ABCD-EFGH", "nope", "", null]) {
      const res = await redeem(code);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(INVALID);
    }
    // Like every field: a number where text is expected.
    expect((await redeem(12345678)).body.message).toBe("The code field must be text.");
    expect((await t.post("/api/auth/desktop-code", { json: {} })).body.message).toBe(INVALID);
  });
});

describe.each(databases())("desktop code redemption limit ($name)", (kind) => {
  const t = useApi(kind, { env: { DESKTOP_CODE_MAX_PER_IP: "3" } });

  it("counts every attempt per client address, right or wrong, then answers 429 with Retry-After", async () => {
    await t.createUser({ email: "limit@example.com", password: "password-123" });
    const login = await t.post("/api/user/login", {
      json: { email: "limit@example.com", password: "password-123", platform: "Desktop" },
    });
    const token = login.body.data.token as string;
    const code = (await t.post("/api/auth/desktop-code/issue", { token })).body.data.code as string;

    expect((await t.post("/api/auth/desktop-code", { json: { code: "ABCD-EFGH" } })).status).toBe(422);
    expect((await t.post("/api/auth/desktop-code", { json: { code: "ABCD-EFGJ" } })).status).toBe(422);
    expect((await t.post("/api/auth/desktop-code", { json: { code } })).status).toBe(200);
    const limited = await t.post("/api/auth/desktop-code", { json: { code: "ABCD-EFGK" } });
    expect(limited.status).toBe(429);
    expect(limited.body.message).toBe("Too many attempts. Please try again in 10 minutes.");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);

    // Another client address (the portal forwards the browser's over loopback) has its own count.
    const other = await t.post("/api/auth/desktop-code", {
      json: { code: "ABCD-EFGH" },
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    expect(other.status).toBe(422);
  });
});
