import { networkInterfaces } from "node:os";
import { describe, expect, it } from "vitest";
import { LoginThrottle, RateLimiter } from "../../api/platform/rate-limit";
import { databases, listen, request, useApi } from "./harness";

const PER_EMAIL_PER_IP = 3;
const PER_IP = 5;
const PER_EMAIL = 8;
const WINDOW = 900;
const LOCKED = "Too many failed sign-in attempts. Please try again in 15 minutes.";

/** A machine's own non-loopback IPv4 address, where it has one. */
function externalIpv4(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) if (info.family === "IPv4" && !info.internal) return info.address;
  }
  return undefined;
}

/** The documentation address (RFC 5737) a connection appears to come from when no real outside address exists. */
const OUTSIDE_PEER = "203.0.113.7";

describe.each(databases({ postgres: "the limiter's window upsert" }))("failed sign-in limits ($name)", (kind) => {
  const t = useApi(kind, {
    env: {
      LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP: String(PER_EMAIL_PER_IP),
      LOGIN_MAX_FAILURES_PER_IP: String(PER_IP),
      LOGIN_MAX_FAILURES_PER_EMAIL: String(PER_EMAIL),
      LOGIN_FAILURE_WINDOW_SECONDS: String(WINDOW),
      CODE_MAX_PER_IP_PER_HOUR: "1000",
      CODE_MAX_PER_EMAIL_PER_HOUR: "1000",
    },
  });

  // X-Forwarded-For sent over loopback is trusted by the API, as from the portal: each ip is a source.
  const attempt = (email: string, password: string, ip: string) =>
    t.post("/api/user/login", { json: { email, password }, headers: { "x-forwarded-for": ip } });
  const keys = async () =>
    (await t.db.selectFrom("rate_limits").select(["key", "count"]).execute())
      .map((row) => ({ key: row.key, count: Number(row.count) }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));

  function expectLocked(res: Awaited<ReturnType<typeof attempt>>) {
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ status: false, success: false, message: LOCKED, errors: { message: LOCKED, code: "rate_limited" } });
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(WINDOW - 60);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW);
  }

  it("an attacker's source locks itself out; the owner signs in with the password from another source", async () => {
    const email = "alice@example.com";
    await t.createUser({ email, password: "alice-password" });
    const attacker = "203.0.113.66";
    const owner = "198.51.100.7";

    for (let i = 0; i < PER_EMAIL_PER_IP; i++) expect((await attempt(email, `guess-${i}`, attacker)).status).toBe(401);
    // Locked for that email at that source, even with the right password (checked before the password).
    expectLocked(await attempt(email, "alice-password", attacker));
    expectLocked(await attempt(email, "another-guess", attacker));
    // The lockout did not count further failures.
    expect(await keys()).toEqual([
      { key: LoginThrottle.emailIpKey(email, attacker), count: PER_EMAIL_PER_IP },
      { key: LoginThrottle.emailKey(email), count: PER_EMAIL_PER_IP },
      { key: LoginThrottle.ipKey(attacker), count: PER_EMAIL_PER_IP },
    ]);

    // The owner, from their own device: a typo, then the right password.
    expect((await attempt(email, "alice-pasword", owner)).status).toBe(401);
    const ok = await attempt(email, "alice-password", owner);
    expect(ok.status).toBe(200);
    expect(ok.body.data.user.email).toBe(email);
    // Success clears the owner's own count for the email, not the attacker's nor the per-email one.
    const after = await keys();
    expect(after.map((row) => row.key)).not.toContain(LoginThrottle.emailIpKey(email, owner));
    expect(after).toContainEqual({ key: LoginThrottle.emailIpKey(email, attacker), count: PER_EMAIL_PER_IP });
    expect(after).toContainEqual({ key: LoginThrottle.emailKey(email), count: PER_EMAIL_PER_IP + 1 });
    expectLocked(await attempt(email, "alice-password", attacker));

    // The attacker's source may still try other accounts until its own per-source limit.
    await t.createUser({ email: "bob@example.com", password: "bob-password" });
    expect((await attempt("bob@example.com", "bob-password", attacker)).status).toBe(200);
  });

  it("limits failures per source across emails", async () => {
    const ip = "203.0.113.7";
    await t.createUser({ email: "carol@example.com", password: "carol-password" });
    for (let i = 0; i < PER_IP; i++) {
      // Different emails each time, so that only the source counts.
      expect((await attempt(`nobody${i}@example.com`, "wrong", ip)).status).toBe(401);
    }
    expectLocked(await attempt("carol@example.com", "carol-password", ip));

    // Another source is fine; the stored key is the forwarded address.
    expect((await attempt("carol@example.com", "carol-password", "203.0.113.8")).status).toBe(200);
    const row = await t.db
      .selectFrom("rate_limits")
      .selectAll()
      .where("key", "=", LoginThrottle.ipKey(ip))
      .executeTakeFirstOrThrow();
    expect(row.count).toBe(PER_IP);
  });

  it("caps distributed guessing per email; code sign-in and the reset stay open, and the reset reopens the password", async () => {
    const email = "frank@example.com";
    await t.createUser({ email, password: "frank-password" });
    // Guesses from many sources, each under its own limits, until the per-email backstop.
    for (let i = 0; i < PER_EMAIL; i++) expect((await attempt(email, `guess-${i}`, `192.0.2.${i + 1}`)).status).toBe(401);
    const owner = "198.51.100.99";
    expectLocked(await attempt(email, "frank-password", owner));

    // Sign-in by emailed code still works for the owner.
    const codeSource = { "x-forwarded-for": owner };
    expect((await t.post("/api/auth/get-login-code", { json: { email }, headers: codeSource })).status).toBe(200);
    const loginCode = await t.latestCode(email);
    const byCode = await t.post("/api/auth/code-login", { json: { email, code: loginCode }, headers: codeSource });
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.user.email).toBe(email);
    // Signing in by code proves the mailbox but not that the guessing stopped: the password stays locked.
    expectLocked(await attempt(email, "frank-password", owner));

    // So does the reset; afterwards the new password works at once from the owner's source.
    t.clock.advanceSeconds(31);
    expect((await t.post("/api/auth/forgot-password", { json: { email }, headers: codeSource })).status).toBe(200);
    const resetCode = await t.latestCode(email);
    const verified = await t.post("/api/auth/reset-password-by-code", { json: { email, code: resetCode }, headers: codeSource });
    expect(verified.status).toBe(200);
    const reset = await t.post("/api/auth/reset-password", {
      json: { token: verified.body.data.reset_token, email, password: "new-frank-password", password_confirmation: "new-frank-password" },
      headers: codeSource,
    });
    expect(reset.status).toBe(200);
    expect((await attempt(email, "new-frank-password", owner)).status).toBe(200);
    expect((await t.db.selectFrom("rate_limits").select("key").where("key", "=", LoginThrottle.emailKey(email)).execute())).toEqual([]);
  });

  it("a reset leaves an attacker's source locked", async () => {
    const email = "grace@example.com";
    await t.createUser({ email, password: "grace-password" });
    const attacker = "203.0.113.77";
    for (let i = 0; i < PER_EMAIL_PER_IP; i++) await attempt(email, `guess-${i}`, attacker);
    expectLocked(await attempt(email, "grace-password", attacker));

    const owner = { "x-forwarded-for": "198.51.100.40" };
    await t.post("/api/auth/forgot-password", { json: { email }, headers: owner });
    const verified = await t.post("/api/auth/reset-password-by-code", { json: { email, code: await t.latestCode(email) }, headers: owner });
    const reset = await t.post("/api/auth/reset-password", {
      json: { token: verified.body.data.reset_token, email, password: "grace-new-pass", password_confirmation: "grace-new-pass" },
      headers: owner,
    });
    expect(reset.status).toBe(200);
    expectLocked(await attempt(email, "grace-new-pass", attacker));
    expect((await attempt(email, "grace-new-pass", "198.51.100.40")).status).toBe(200);
  });

  it("does not count correct sign-ins", async () => {
    const ip = "203.0.113.20";
    await t.createUser({ email: "dave@example.com", password: "dave-password" });
    // One more than the largest limit: any counting would have locked it.
    for (let i = 0; i < Math.max(PER_EMAIL_PER_IP, PER_IP, PER_EMAIL) + 1; i++) {
      expect((await attempt("dave@example.com", "dave-password", ip)).status).toBe(200);
    }
    const rows = await t.db
      .selectFrom("rate_limits")
      .selectAll()
      .where("key", "in", [
        LoginThrottle.ipKey(ip),
        LoginThrottle.emailKey("dave@example.com"),
        LoginThrottle.emailIpKey("dave@example.com", ip),
      ])
      .execute();
    expect(rows).toEqual([]);
  });

  it("a correct sign-in before the limit is not slowed and clears that source's count", async () => {
    const email = "heidi@example.com";
    const ip = "198.51.100.1";
    await t.createUser({ email, password: "heidi-password" });
    for (let i = 0; i < PER_EMAIL_PER_IP - 1; i++) expect((await attempt(email, "wrong", ip)).status).toBe(401);
    expect((await attempt(email, "heidi-password", ip)).status).toBe(200);
    // A fresh allowance: limit - 1 more failures still leave the password open.
    for (let i = 0; i < PER_EMAIL_PER_IP - 1; i++) expect((await attempt(email, "wrong", ip)).status).toBe(401);
    expect((await attempt(email, "heidi-password", ip)).status).toBe(200);
  });

  it("opens again when the window has passed", async () => {
    const ip = "203.0.113.30";
    await t.createUser({ email: "erin@example.com", password: "erin-password" });
    for (let i = 0; i < PER_EMAIL_PER_IP; i++) await attempt("erin@example.com", "wrong", ip);
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

  // Through a real non-loopback interface where the machine has one; everywhere, through a connection
  // whose peer address reads as an outside one (the app sees what a direct outside caller shows it).
  const external = externalIpv4();
  const peers: Array<[string, { host: string; peer: string }]> = [["a peer that is not on loopback", { host: "127.0.0.1", peer: OUTSIDE_PEER }]];
  if (external) peers.push(["a caller on the machine's own outside address", { host: external, peer: external }]);
  it.each(peers)("ignores X-Forwarded-For from %s", async (_label, { host, peer }) => {
    const server = await listen(t.api.app, host);
    if (peer !== host) server.server.on("connection", (socket) => Object.defineProperty(socket, "remoteAddress", { value: peer }));
    try {
      const base = `http://${host}:${server.port}`;
      const res = await request(base, "POST", "/api/user/login", {
        json: { email: "spoof@example.com", password: "wrong" },
        headers: { "x-forwarded-for": "192.0.2.99" },
      });
      expect(res.status).toBe(401);
      const keys = (await t.db.selectFrom("rate_limits").select("key").execute()).map((r) => r.key);
      expect(keys).toContain(LoginThrottle.ipKey(peer));
      expect(keys).not.toContain(LoginThrottle.ipKey("192.0.2.99"));
    } finally {
      await server.close();
    }
  });
});
