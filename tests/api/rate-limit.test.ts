import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { LoginThrottle, RateLimiter } from "../../api/lib/rate-limit";
import { databases, listen, request, useApi } from "./harness";

const PER_EMAIL = 3;
const PER_IP = 5;
const WINDOW = 900;

function externalIpv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) if (info.family === "IPv4" && !info.internal) return info.address;
  }
  return undefined;
}

describe.each(databases())("failed sign-in limits ($name)", (kind) => {
  const t = useApi(kind, {
    env: {
      LOGIN_MAX_FAILURES_PER_EMAIL: String(PER_EMAIL),
      LOGIN_MAX_FAILURES_PER_IP: String(PER_IP),
      LOGIN_FAILURE_WINDOW_SECONDS: String(WINDOW),
    },
  });

  const attempt = (email: string, password: string, ip: string) =>
    t.post("/api/user/login", { json: { email, password }, headers: { "x-forwarded-for": ip } });

  it("limits failures per email; a correct sign-in before the limit is not slowed and resets the count", async () => {
    const email = "alice@example.com";
    await t.createUser({ email, password: "alice-password" });

    // Limit - 1 failures, then a correct sign-in: it passes and clears the email's counter.
    for (let i = 0; i < PER_EMAIL - 1; i++) expect((await attempt(email, "wrong", "198.51.100.1")).status).toBe(401);
    const started = Date.now();
    const ok = await attempt(email, "alice-password", "198.51.100.1");
    expect(ok.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    const emailKey = await t.db
      .selectFrom("rate_limits")
      .selectAll()
      .where("key", "=", LoginThrottle.emailKey(email))
      .executeTakeFirst();
    expect(emailKey).toBeUndefined();

    // Now reach the limit (from different addresses, so that only the email counts).
    for (let i = 0; i < PER_EMAIL; i++) expect((await attempt(email, "wrong", `198.51.100.${10 + i}`)).status).toBe(401);
    const blocked = await attempt(email, "alice-password", "198.51.100.50");
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ status: false, success: false });
    expect(blocked.body.message).toBe("Too many failed sign-in attempts. Please try again in 15 minutes.");
    expect(blocked.body.errors.message).toBe(blocked.body.message);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(WINDOW - 60);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);

    // Other accounts are unaffected.
    await t.createUser({ email: "bob@example.com", password: "bob-password" });
    expect((await attempt("bob@example.com", "bob-password", "198.51.100.50")).status).toBe(200);
  });

  it("limits failures per client address (from X-Forwarded-For sent over loopback)", async () => {
    const ip = "203.0.113.7";
    await t.createUser({ email: "carol@example.com", password: "carol-password" });
    for (let i = 0; i < PER_IP; i++) {
      // Different emails each time, so that only the address counts.
      expect((await attempt(`nobody${i}@example.com`, "wrong", ip)).status).toBe(401);
    }
    const blocked = await attempt("carol@example.com", "carol-password", ip);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);

    // Another address is fine; the stored key is the forwarded address.
    expect((await attempt("carol@example.com", "carol-password", "203.0.113.8")).status).toBe(200);
    const row = await t.db
      .selectFrom("rate_limits")
      .selectAll()
      .where("key", "=", LoginThrottle.ipKey(ip))
      .executeTakeFirstOrThrow();
    expect(row.count).toBe(PER_IP);
  });

  it("does not count correct sign-ins", async () => {
    const ip = "203.0.113.20";
    await t.createUser({ email: "dave@example.com", password: "dave-password" });
    for (let i = 0; i < PER_IP + PER_EMAIL + 2; i++) {
      expect((await attempt("dave@example.com", "dave-password", ip)).status).toBe(200);
    }
    const rows = await t.db
      .selectFrom("rate_limits")
      .selectAll()
      .where("key", "in", [LoginThrottle.ipKey(ip), LoginThrottle.emailKey("dave@example.com")])
      .execute();
    expect(rows).toEqual([]);
  });

  it("opens again when the window has passed", async () => {
    const ip = "203.0.113.30";
    await t.createUser({ email: "erin@example.com", password: "erin-password" });
    for (let i = 0; i < PER_EMAIL; i++) await attempt("erin@example.com", "wrong", ip);
    expect((await attempt("erin@example.com", "erin-password", ip)).status).toBe(429);

    // Let the window end (as if 15 minutes had passed).
    const past = new Date(Date.now() - 1000).toISOString();
    await t.db.updateTable("rate_limits").set({ reset_at: past }).where("key", "like", "login-fail:%").execute();
    expect((await attempt("erin@example.com", "erin-password", ip)).status).toBe(200);
  });

  it("starts a fresh window in one upsert when the old one has ended", async () => {
    const limiter = new RateLimiter(t.db);
    const key = `test:${kind.name}:window`;
    expect(await limiter.hit(key, 60)).toMatchObject({ count: 1 });
    const second = await limiter.hit(key, 60);
    expect(second.count).toBe(2);
    await t.db
      .updateTable("rate_limits")
      .set({ reset_at: new Date(Date.now() - 1).toISOString() })
      .where("key", "=", key)
      .execute();
    const fresh = await limiter.hit(key, 60);
    expect(fresh.count).toBe(1);
    expect(fresh.resetAt).toBeGreaterThan(Date.now() + 50_000);
    expect((await limiter.peek([key])).get(key)?.count).toBe(1);
    await limiter.clear(key);
    expect((await limiter.peek([key])).size).toBe(0);
  });

  const external = externalIpv4();
  it.skipIf(!external)("ignores X-Forwarded-For from a caller that is not on loopback", async () => {
    // Serve the same app on a non-loopback interface and call it through that address.
    const server = await listen(t.api.app, external);
    try {
      const base = `http://${external}:${server.port}`;
      const res = await request(base, "POST", "/api/user/login", {
        json: { email: "spoof@example.com", password: "wrong" },
        headers: { "x-forwarded-for": "192.0.2.99" },
      });
      expect(res.status).toBe(401);
      const keys = (await t.db.selectFrom("rate_limits").select("key").execute()).map((r) => r.key);
      expect(keys).toContain(LoginThrottle.ipKey(external!));
      expect(keys).not.toContain(LoginThrottle.ipKey("192.0.2.99"));
    } finally {
      await server.close();
    }
  });
});
