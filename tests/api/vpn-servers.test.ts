import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadApiConfig } from "../../api/platform/config";
import { isWireGuardKey } from "../../api/platform/vpn-servers-file";
import { VPN_SANDBOX_SERVERS } from "../../api/sandboxes/vpn";
import { insertSubscription } from "../support/accounts";
import { LIVE_ESSENTIALS, type TestApi, databases, startApi, useApi } from "./harness";

/*
 * The VPN servers' side of manual setup (issue 34, docs/decisions/058): the public server list, the
 * node tokens (several, compared in constant time; the sandbox's own only in sandbox mode), service
 * credentials and their checks with the per-username limit (in the database: it holds under a
 * parallel burst and across instances), manual setup off outside sandbox mode without VPN_NODE_TOKENS,
 * and a live deployment's server list from VPN_SERVERS_FILE.
 */

const PASSWORD = "correct-horse-vpn";
const SANDBOX_NODE = { authorization: "Bearer sandbox-node-token" };
const TOKEN_A = "node-token-a-0123456789abcdefghijklmnop";
const TOKEN_B = "node-token-b-0123456789abcdefghijklmnop";

function publicKey(): string {
  const { publicKey: key } = generateKeyPairSync("x25519");
  return Buffer.from(key.export({ format: "jwk" }).x!, "base64url").toString("base64");
}

let accounts = 0;
async function account(t: TestApi, opts: { plan?: boolean; days?: number } = {}) {
  const email = `vpn-node-${t.kind}-${++accounts}@example.com`;
  const userId = await t.createUser({ email, password: PASSWORD });
  if (opts.plan !== false) await insertSubscription(t.db, userId, { now: t.clock.now(), days: opts.days ?? 365 });
  return { email, userId, token: await t.login(email, PASSWORD) };
}

const folder = mkdtempSync(join(tmpdir(), "vpn-servers-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A VPN_SERVERS_FILE with `servers`; answers its path. */
function serversFile(name: string, content: unknown): string {
  const path = join(folder, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const OPERATOR_KEY = publicKey();
const OPERATOR_FILE = serversFile("operator.json", {
  servers: [
    { hostname: "NL-AMS-WG-101.vpn.example", country_code: "nl", country: "Netherlands", city: "Amsterdam", wireguard_public_key: OPERATOR_KEY, dns: "10.64.0.1,fd7a:651:6f26::1" },
    { hostname: "is-rey-wg-101.vpn.example", country_code: "IS", country: "Iceland", city: "Reykjavik", wireguard_public_key: publicKey(), endpoint: "[2001:db8::1]:443", online: false },
  ],
});

describe("the configuration of manual setup", () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadApiConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it("is off outside sandbox mode without VPN_NODE_TOKENS, and needs both variables when on", () => {
    expect(loadApiConfig({ ...LIVE_ESSENTIALS }).integrations.vpn).toBe("off");
    expect(loadApiConfig({ SANDBOX: "true" }).integrations.vpn).toBe("sandbox");
    expect(problems({ ...LIVE_ESSENTIALS, VPN_NODE_TOKENS: TOKEN_A })).toEqual(["VPN_SERVERS_FILE: required when VPN_NODE_TOKENS is set"]);
    expect(problems({ ...LIVE_ESSENTIALS, VPN_SERVERS_FILE: OPERATOR_FILE })).toEqual(["VPN_NODE_TOKENS: required when VPN_SERVERS_FILE is set"]);
    const live = loadApiConfig({ ...LIVE_ESSENTIALS, VPN_NODE_TOKENS: ` ${TOKEN_A} , ${TOKEN_B},`, VPN_SERVERS_FILE: OPERATOR_FILE });
    expect(live.integrations.vpn).toBe("live");
    expect(live.vpn.nodeTokens).toEqual([TOKEN_A, TOKEN_B]);
    expect(live.vpn.servers?.map((s) => s.hostname)).toEqual(["nl-ams-wg-101.vpn.example", "is-rey-wg-101.vpn.example"]);
    expect(live.vpn.servers?.[0]?.country_code).toBe("NL");
  });

  it("refuses short tokens and a bad server file at start, naming the problem", () => {
    expect(problems({ SANDBOX: "true", VPN_NODE_TOKENS: "short" })).toEqual([
      "VPN_NODE_TOKENS: expected comma-separated tokens, each at least 32 random printable characters without spaces",
    ]);
    const missing = join(folder, "missing.json");
    expect(problems({ SANDBOX: "true", VPN_SERVERS_FILE: missing })).toEqual([`VPN_SERVERS_FILE: cannot read ${missing} (ENOENT)`]);
    const notJson = serversFile("not-json.json", "{servers:");
    expect(problems({ SANDBOX: "true", VPN_SERVERS_FILE: notJson })).toEqual([`VPN_SERVERS_FILE: ${notJson} is not JSON`]);
    const server = { hostname: "de-fra-wg-101.vpn.example", country_code: "DE", country: "Germany", city: "Frankfurt", wireguard_public_key: publicKey() };
    const cases: Array<[unknown, string]> = [
      [{ servers: [] }, "servers: expected at least one server"],
      [{ servers: [{ ...server, wireguard_public_key: "abc" }] }, "servers.0.wireguard_public_key: expected the server's WireGuard public key"],
      [{ servers: [{ ...server, country_code: "DEU" }] }, "servers.0.country_code: expected an ISO 3166-1 alpha-2 code"],
      [{ servers: [{ ...server, endpoint: "de-fra:0" }] }, "servers.0.endpoint: expected host:port"],
      [{ servers: [{ ...server, hostname: "not a host" }] }, "servers.0.hostname: expected a DNS name"],
      [{ servers: [server, { ...server, wireguard_public_key: publicKey() }] }, "servers.1.hostname: the same as servers[0]"],
      [{ servers: [{ ...server, extra: 1 }] }, "servers.0"],
    ];
    cases.forEach(([content, expected], i) => {
      const path = serversFile(`bad-${i}.json`, content);
      const [problem, ...rest] = problems({ SANDBOX: "true", VPN_SERVERS_FILE: path });
      expect(rest).toEqual([]);
      expect(problem).toContain(`VPN_SERVERS_FILE: ${path}: ${expected}`);
    });
  });

  it("the sandbox's servers have real keys and unique names", () => {
    expect(VPN_SANDBOX_SERVERS.length).toBeGreaterThanOrEqual(12);
    expect(VPN_SANDBOX_SERVERS.every((s) => isWireGuardKey(s.wireguard_public_key))).toBe(true);
    expect(new Set(VPN_SANDBOX_SERVERS.map((s) => s.wireguard_public_key)).size).toBe(VPN_SANDBOX_SERVERS.length);
    expect(new Set(VPN_SANDBOX_SERVERS.map((s) => s.hostname)).size).toBe(VPN_SANDBOX_SERVERS.length);
  });
});

describe.each(databases({ postgres: "the per-username limit of credential checks: a parallel burst and a second instance on one database" }))(
  "the VPN servers' endpoints in sandbox mode ($name)",
  (kind) => {
    const t = useApi(kind, { env: { VPN_NODE_TOKENS: `${TOKEN_A},${TOKEN_B}`, VPN_AUTH_MAX_FAILURES_PER_USERNAME: "5" } });

    it("the server list is public and cacheable", async () => {
      const res = await t.get("/api/vpn/servers");
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=300");
      expect(res.body.data.servers).toHaveLength(VPN_SANDBOX_SERVERS.length);
      expect(res.body.data.servers[0]).toEqual({
        hostname: "de-fra-wg-001.vpn.example",
        country_code: "DE",
        country: "Germany",
        city: "Frankfurt",
        wireguard_public_key: VPN_SANDBOX_SERVERS[0]!.wireguard_public_key,
        endpoint: "de-fra-wg-001.vpn.example:51820",
        online: true,
      });
    });

    it("the servers' endpoints need a node token: any of VPN_NODE_TOKENS, or the sandbox's", async () => {
      const calls = [
        (headers: Record<string, string>) => t.get("/api/vpn/peers", { headers }),
        (headers: Record<string, string>) => t.post("/api/vpn/handshakes", { headers, json: { handshakes: [] } }),
        (headers: Record<string, string>) => t.post("/api/vpn/authenticate", { headers, json: { username: "unot-a-user", password: "x" } }),
      ];
      for (const call of calls) {
        const refused: Array<Record<string, string>> = [
          {},
          { authorization: "Bearer wrong-token" },
          { authorization: TOKEN_A },
          { authorization: `Bearer ${TOKEN_A}x` },
          { authorization: `Basic ${TOKEN_A}` },
        ];
        for (const headers of refused) {
          const res = await call(headers);
          expect(res.status, JSON.stringify(headers)).toBe(401);
          expect(res.body.errors.code).toBe("unauthenticated");
          expect(res.headers.get("www-authenticate")).toBe('Bearer realm="vpn-servers"');
        }
        for (const token of [TOKEN_A, TOKEN_B, "sandbox-node-token"]) {
          const res = await call({ authorization: `Bearer ${token}` });
          expect([200, 401].includes(res.status) && res.body.errors?.code !== "unauthenticated", `${token}: ${res.text}`).toBe(true);
        }
      }
      // A customer's bearer token is not a node token.
      const { token } = await account(t);
      expect((await t.get("/api/vpn/peers", { token })).status).toBe(401);
      // The token is checked before the body: an unauthenticated bad body is 401, not 422.
      expect((await t.post("/api/vpn/handshakes", { json: { handshakes: "nope" } })).status).toBe(401);
    });

    it("service credentials: made once, checked by the servers, reset at once, recorded", async () => {
      const { token, userId } = await account(t);
      const made = await t.post("/api/vpn/credentials", { token });
      expect(made.status, made.text).toBe(200);
      expect(made.body.message).toBe("Service credentials created.");
      const { username, password, created_at } = made.body.data;
      expect(username).toMatch(/^u[a-z0-9]{11}$/);
      expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
      expect((await t.get("/api/vpn/manual-setup", { token })).body.data.credentials).toEqual({ username, created_at });
      const stored = await t.db.selectFrom("vpn_credentials").select("password_hash").where("user_id", "=", userId).executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^\$argon2id\$/);
      expect(stored.password_hash).not.toContain(password);

      const check = (json: Record<string, string>) => t.post("/api/vpn/authenticate", { headers: SANDBOX_NODE, json });
      const ok = await check({ username, password });
      expect(ok.status, ok.text).toBe(200);
      expect(ok.body.data).toEqual({ ok: true });
      expect((await check({ username: username.toUpperCase(), password })).status).toBe(200);

      const reset = await t.post("/api/vpn/credentials", { token });
      expect(reset.status).toBe(200);
      expect(reset.body.message).toBe("Service credentials reset.");
      expect(reset.body.data.username).toBe(username);
      expect(reset.body.data.password).not.toBe(password);
      const old = await check({ username, password });
      expect(old.status).toBe(401);
      expect(old.body.errors).toEqual({ message: "Wrong username or password.", code: "invalid_credentials" });
      expect((await check({ username, password: reset.body.data.password })).status).toBe(200);

      const kinds = await t.db.selectFrom("security_events").select(["kind", "detail"]).where("user_id", "=", userId).where("kind", "like", "service_%").orderBy("id").execute();
      expect(kinds).toEqual([
        { kind: "service_credentials_created", detail: username },
        { kind: "service_credentials_reset", detail: username },
      ]);
    });

    it("a Free account cannot make credentials; credentials of a plan that ended are refused, and can still be reset", async () => {
      const free = await account(t, { plan: false });
      const refused = await t.post("/api/vpn/credentials", { token: free.token });
      expect(refused.status).toBe(403);
      expect(refused.body.errors.code).toBe("plan_required");

      const lapsing = await account(t, { days: 5 });
      const made = (await t.post("/api/vpn/credentials", { token: lapsing.token })).body.data;
      t.clock.advanceDays(6);
      try {
        const res = await t.post("/api/vpn/authenticate", { headers: SANDBOX_NODE, json: { username: made.username, password: made.password } });
        expect(res.status).toBe(401);
        expect(res.body.errors).toEqual({ message: "This account has no plan.", code: "invalid_credentials" });
        expect((await t.post("/api/vpn/credentials", { token: lapsing.token })).status).toBe(200);
      } finally {
        t.clock.reset();
      }
    });

    it("wrong passwords are limited per username: a parallel burst gets exactly the limit, shared with another instance", async () => {
      const { token } = await account(t);
      const { username, password } = (await t.post("/api/vpn/credentials", { token })).body.data;
      const check = (pw: string, base = t) => base.post("/api/vpn/authenticate", { headers: SANDBOX_NODE, json: { username, password: pw } });

      // A right password gives its try back: any number of connections.
      for (let i = 0; i < 7; i++) expect((await check(password)).status).toBe(200);

      const burst = await Promise.all(Array.from({ length: 12 }, (_, i) => check(`wrong-${i}`)));
      const statuses = burst.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 401)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
      const limited = burst.find((r) => r.status === 429)!;
      expect(limited.body.message).toMatch(/^Too many failed attempts for this username\. Please try again in \d+ minutes?\.$/);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);

      // The limit is in the database: a second instance on it refuses too, the right password as well.
      const second = await startApi(kind, { databaseUrl: t.config.databaseUrl, env: { VPN_AUTH_MAX_FAILURES_PER_USERNAME: "5" } });
      try {
        expect((await check(password, second)).status).toBe(429);
      } finally {
        await second.close();
      }
      expect((await check(password)).status).toBe(429);
      // Another username is not affected.
      const other = await account(t);
      const theirs = (await t.post("/api/vpn/credentials", { token: other.token })).body.data;
      expect((await t.post("/api/vpn/authenticate", { headers: SANDBOX_NODE, json: theirs })).status).toBe(200);
    });
  },
);

describe.each(databases())("manual setup off outside sandbox mode without VPN_NODE_TOKENS ($name)", (kind) => {
  const t = useApi(kind, { env: { ...LIVE_ESSENTIALS, SANDBOX: "" } });

  it("the page says it is unavailable, and every endpoint of it answers 404", async () => {
    const { token } = await account(t);
    const setup = await t.get("/api/vpn/manual-setup", { token });
    expect(setup.status).toBe(200);
    expect(setup.body.data).toMatchObject({ available: false, has_plan: true, servers: [], configurations: [], credentials: null });
    const answers = [
      await t.post("/api/vpn/configurations", { token, json: { name: "Router", server: "fastest", public_key: publicKey() } }),
      await t.post("/api/vpn/configurations/1/revoke", { token }),
      await t.post("/api/vpn/credentials", { token }),
      await t.get("/api/vpn/servers"),
      await t.get("/api/vpn/peers", { headers: SANDBOX_NODE }),
      await t.post("/api/vpn/handshakes", { headers: SANDBOX_NODE, json: { handshakes: [] } }),
      await t.post("/api/vpn/authenticate", { headers: SANDBOX_NODE, json: { username: "u", password: "p" } }),
    ];
    for (const res of answers) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.message).toBe("Manual setup is not available.");
    }
  });
});

describe.each(databases())("manual setup live: VPN_NODE_TOKENS and VPN_SERVERS_FILE ($name)", (kind) => {
  const t = useApi(kind, { env: { ...LIVE_ESSENTIALS, SANDBOX: "", VPN_NODE_TOKENS: TOKEN_A, VPN_SERVERS_FILE: OPERATOR_FILE } });

  it("lists the operator's servers, takes only the configured token, and makes configurations for them", async () => {
    const servers = (await t.get("/api/vpn/servers")).body.data.servers;
    expect(servers).toEqual([
      { hostname: "nl-ams-wg-101.vpn.example", country_code: "NL", country: "Netherlands", city: "Amsterdam", wireguard_public_key: OPERATOR_KEY, endpoint: "nl-ams-wg-101.vpn.example:51820", online: true },
      { hostname: "is-rey-wg-101.vpn.example", country_code: "IS", country: "Iceland", city: "Reykjavik", wireguard_public_key: expect.any(String), endpoint: "[2001:db8::1]:443", online: false },
    ]);
    // The sandbox's token is no stand-in outside sandbox mode.
    expect((await t.get("/api/vpn/peers", { headers: SANDBOX_NODE })).status).toBe(401);
    expect((await t.get("/api/vpn/peers", { headers: { authorization: `Bearer ${TOKEN_A}` } })).status).toBe(200);

    const { token } = await account(t);
    const made = await t.post("/api/vpn/configurations", { token, json: { name: "Router", server: "fastest", public_key: publicKey() } });
    expect(made.status, made.text).toBe(200);
    expect(made.body.data.wireguard).toMatchObject({ peer_public_key: OPERATOR_KEY, endpoint: "nl-ams-wg-101.vpn.example:51820", dns: "10.64.0.1, fd7a:651:6f26::1" });
    const offline = await t.post("/api/vpn/configurations", { token, json: { name: "Router", server: "is-rey-wg-101.vpn.example", public_key: publicKey() } });
    expect(offline.status).toBe(422);
  });
});
