import { generateKeyPairSync } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";
import { describe, expect, it } from "vitest";
import { VPN_SANDBOX_SERVERS } from "../../api/sandboxes/vpn";
import { insertSubscription } from "../support/accounts";
import { type TestApi, databases, useApi } from "./harness";

/*
 * Manual setup over the API (issue 34, docs/decisions/058): WireGuard configurations, the peers list
 * the VPN servers read and its revisions, plans that end and come back, handshakes, and the erasure
 * of an account. On PostgreSQL too: the limit and the addresses must hold under parallel bursts on
 * real concurrent transactions. The servers' side (tokens, modes, service credentials) is in
 * vpn-servers.test.ts.
 */

const PASSWORD = "correct-horse-vpn";
const NODE = { authorization: "Bearer sandbox-node-token" };
const FRANKFURT = VPN_SANDBOX_SERVERS[0]!;
const SINGAPORE_OFFLINE = VPN_SANDBOX_SERVERS.find((s) => s.online === false)!;

/** A fresh X25519 public key, as `wg pubkey` prints one. */
function publicKey(): string {
  const { publicKey: key } = generateKeyPairSync("x25519");
  return Buffer.from(key.export({ format: "jwk" }).x!, "base64url").toString("base64");
}

let accounts = 0;

/** A new account with a session; with a plan (a year by default) unless `plan: false`. */
async function account(t: TestApi, opts: { plan?: boolean; days?: number } = {}) {
  const email = `vpn-${t.kind}-${++accounts}@example.com`;
  const userId = await t.createUser({ email, password: PASSWORD });
  if (opts.plan !== false) await insertSubscription(t.db, userId, { now: t.clock.now(), days: opts.days ?? 365 });
  return { email, userId, token: await t.login(email, PASSWORD) };
}

function create(t: TestApi, token: string, json: Record<string, unknown> = {}) {
  return t.post("/api/vpn/configurations", { token, json: { name: "Router", server: "fastest", public_key: publicKey(), ...json } });
}

async function peerKeys(t: TestApi): Promise<string[]> {
  const res = await t.get("/api/vpn/peers", { headers: NODE });
  expect(res.status, res.text).toBe(200);
  return res.body.data.peers.map((p: { public_key: string }) => p.public_key);
}

async function events(t: TestApi, userId: number) {
  return t.db.selectFrom("security_events").select(["kind", "detail"]).where("user_id", "=", userId).where("kind", "!=", "signed_in").orderBy("id").execute();
}

describe.each(databases({ postgres: "bursts of creations: the limit and the addresses under real concurrent transactions, row locks" }))(
  "manual setup: WireGuard configurations ($name)",
  (kind) => {
    const t = useApi(kind);

    it("the page's data: available, the plan, the limit, the servers, nothing made yet", async () => {
      const { token } = await account(t);
      const res = await t.get("/api/vpn/manual-setup", { token });
      expect(res.status, res.text).toBe(200);
      const data = res.body.data;
      expect(data).toMatchObject({ available: true, has_plan: true, limit: 10, configurations: [], credentials: null });
      expect(data.servers).toHaveLength(VPN_SANDBOX_SERVERS.length);
      expect(data.servers[0]).toEqual({ hostname: FRANKFURT.hostname, country_code: "DE", country: "Germany", city: "Frankfurt", online: true });
      expect(new Set(data.servers.map((s: { country_code: string }) => s.country_code)).size).toBeGreaterThanOrEqual(8);
      expect(data.servers.filter((s: { online: boolean }) => !s.online).map((s: { hostname: string }) => s.hostname)).toEqual([SINGAPORE_OFFLINE.hostname]);

      const free = await account(t, { plan: false });
      expect((await t.get("/api/vpn/manual-setup", { token: free.token })).body.data).toMatchObject({ available: true, has_plan: false });
      expect((await t.get("/api/vpn/manual-setup")).status).toBe(401);
    });

    it("creates a configuration: its addresses, the wg-quick settings, listed newest first, recorded", async () => {
      const { token, userId } = await account(t);
      const key = publicKey();
      const res = await create(t, token, { name: "  Home router  ", server: FRANKFURT.hostname, public_key: key });
      expect(res.status, res.text).toBe(200);
      expect(res.body.message).toBe("Configuration created.");
      const { configuration, wireguard } = res.body.data;
      expect(configuration).toMatchObject({
        name: "Home router",
        server: { hostname: FRANKFURT.hostname, country_code: "DE", country: "Germany", city: "Frankfurt" },
        last_handshake_at: null,
        status: "active",
      });
      expect(isIPv4(configuration.ipv4) && isIPv6(configuration.ipv6)).toBe(true);
      const [a, b, , d] = configuration.ipv4.split(".").map(Number);
      expect(a).toBe(10);
      expect(b >= 64 && b <= 127).toBe(true);
      expect([0, 1, 255]).not.toContain(d);
      expect(configuration.ipv6.startsWith("fd7a:651:6f26:")).toBe(true);
      expect(wireguard).toEqual({
        address: `${configuration.ipv4}/32, ${configuration.ipv6}/128`,
        dns: "10.64.0.1, fd7a:651:6f26::1",
        peer_public_key: FRANKFURT.wireguard_public_key,
        endpoint: `${FRANKFURT.hostname}:51820`,
        allowed_ips: "0.0.0.0/0, ::/0",
        file_name: "de-fra-home-rou.conf",
      });

      const second = await create(t, token, { name: "Laptop" });
      expect(second.status, second.text).toBe(200);
      const online = VPN_SANDBOX_SERVERS.filter((s) => s.online).map((s) => s.hostname);
      expect(online).toContain(second.body.data.configuration.server.hostname);
      const listed = (await t.get("/api/vpn/manual-setup", { token })).body.data.configurations;
      expect(listed.map((c: { name: string }) => c.name)).toEqual(["Laptop", "Home router"]);
      expect(listed[1]).toEqual(configuration);
      expect(await peerKeys(t)).toContain(key);

      expect(await events(t, userId)).toEqual([
        { kind: "wireguard_configuration_created", detail: `Home router (${FRANKFURT.hostname})` },
        { kind: "wireguard_configuration_created", detail: `Laptop (${second.body.data.configuration.server.hostname})` },
      ]);
      const activity = await t.get("/api/account/security-events", { token });
      expect(activity.status, activity.text).toBe(200);
      expect(JSON.stringify(activity.body.data)).toContain("WireGuard configuration created");
    });

    it("'fastest' picks the online server with the fewest configurations", async () => {
      const { token } = await account(t);
      const picked = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const res = await create(t, token, { name: `Fast ${i}` });
        expect(res.status, res.text).toBe(200);
        picked.add(res.body.data.configuration.server.hostname);
      }
      // Each creation loads the least loaded server, so three in a row land on three servers.
      expect(picked.size).toBe(3);
      expect(picked.has(SINGAPORE_OFFLINE.hostname)).toBe(false);
    });

    it("refuses bad fields with 422 and a message per field", async () => {
      const { token } = await account(t);
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ name: "" }, "name", "The name field is required."],
        [{ name: "x".repeat(41) }, "name", "The name field must not be longer than 40 characters."],
        [{ name: "Router\u202Eexe" }, "name", "Remove the control characters from the name."],
        [{ name: "Line\nbreak" }, "name", "Remove the control characters from the name."],
        [{ public_key: "not a key" }, "public_key", "The public key must be 32 bytes of base64."],
        [{ public_key: Buffer.alloc(31, 7).toString("base64") }, "public_key", "The public key must be 32 bytes of base64."],
        [{ public_key: Buffer.alloc(33, 7).toString("base64") }, "public_key", "The public key must be 32 bytes of base64."],
        [{ public_key: publicKey().replace(/=$/, "") }, "public_key", "The public key must be 32 bytes of base64."],
        [{ public_key: `${Buffer.alloc(32, 250).toString("base64url")}=` }, "public_key", "The public key must be 32 bytes of base64."],
        [{ public_key: undefined }, "public_key", "The public key field is required."],
        [{ server: "xx-nowhere-wg-001.vpn.example" }, "server", "Choose a server from the list."],
        [{ server: SINGAPORE_OFFLINE.hostname }, "server", "This server is offline. Choose another one."],
      ];
      for (const [fields, field, message] of cases) {
        const res = await create(t, token, fields);
        expect(res.status, `${JSON.stringify(fields)}: ${res.text}`).toBe(422);
        expect(res.body.errors.fields[field], JSON.stringify(fields)).toEqual([message]);
      }
      const many = await t.post("/api/vpn/configurations", { token, json: { name: "", public_key: "x" } });
      expect(Object.keys(many.body.errors.fields).sort()).toEqual(["name", "public_key", "server"]);
      expect((await t.get("/api/vpn/manual-setup", { token })).body.data.configurations).toEqual([]);
    });

    it("a Free account cannot create one", async () => {
      const free = await account(t, { plan: false });
      const res = await create(t, free.token);
      expect(res.status).toBe(403);
      expect(res.body.errors).toEqual({ message: "A plan is needed for manual setup.", code: "plan_required" });
    });

    it("a key registered anywhere is refused with 409: the same account, another one, a revoked one", async () => {
      const first = await account(t);
      const other = await account(t);
      const key = publicKey();
      expect((await create(t, first.token, { public_key: key })).status).toBe(200);
      for (const who of [first, other]) {
        const again = await create(t, who.token, { public_key: key });
        expect(again.status).toBe(409);
        expect(again.body.errors).toEqual({ message: "This public key is already registered.", code: "public_key_taken", fields: { public_key: ["This public key is already registered."] } });
      }
      const revocable = publicKey();
      const made = await create(t, first.token, { public_key: revocable });
      expect((await t.post(`/api/vpn/configurations/${made.body.data.configuration.id}/revoke`, { token: first.token })).status).toBe(200);
      expect((await create(t, other.token, { public_key: revocable })).status).toBe(409);
      // A race for one key: exactly one wins.
      const raced = publicKey();
      const answers = await Promise.all([first, other, first, other].map((who) => create(t, who.token, { public_key: raced })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    });

    it("a burst of 20 parallel creations makes exactly 10; a revocation frees a place", async () => {
      const { token, userId } = await account(t);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => create(t, token, { name: `Burst ${i}` })));
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      const refused = answers.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(10);
      for (const r of refused) {
        expect(r.status).toBe(422);
        expect(r.body.errors).toEqual({ message: "You have 10 configurations. Revoke one to create another.", code: "configuration_limit" });
      }
      const live = await t.db.selectFrom("vpn_configurations").select("id").where("user_id", "=", userId).where("revoked_at", "is", null).execute();
      expect(live).toHaveLength(10);
      expect((await create(t, token)).status).toBe(422);
      const one = answers.find((r) => r.status === 200)!.body.data.configuration.id;
      expect((await t.post(`/api/vpn/configurations/${one}/revoke`, { token })).status).toBe(200);
      expect((await create(t, token)).status).toBe(200);
      expect((await create(t, token)).status).toBe(422);
    });

    it("a burst across accounts never gives two configurations the same address", async () => {
      const owners = await Promise.all(Array.from({ length: 5 }, () => account(t)));
      const answers = await Promise.all(owners.flatMap((o) => Array.from({ length: 8 }, (_, i) => create(t, o.token, { name: `Many ${i}` }))));
      expect(answers.map((r) => r.status)).toEqual(Array(40).fill(200));
      const configurations = answers.map((r) => r.body.data.configuration);
      expect(new Set(configurations.map((c) => c.ipv4)).size).toBe(40);
      expect(new Set(configurations.map((c) => c.ipv6)).size).toBe(40);
      const all = await t.db.selectFrom("vpn_configurations").select(["ipv4", "ipv6"]).where("revoked_at", "is", null).execute();
      expect(new Set(all.map((c) => c.ipv4)).size).toBe(all.length);
      expect(new Set(all.map((c) => c.ipv6)).size).toBe(all.length);
    });

    it("revoking takes the key off the peers list at once; 404 for another account's id", async () => {
      const owner = await account(t);
      const stranger = await account(t);
      const key = publicKey();
      const made = await create(t, owner.token, { name: "Phone", public_key: key });
      const id = made.body.data.configuration.id;
      expect(await peerKeys(t)).toContain(key);

      for (const [token, path] of [
        [stranger.token, `/api/vpn/configurations/${id}/revoke`],
        [owner.token, "/api/vpn/configurations/999999/revoke"],
      ] as const) {
        const res = await t.post(path, { token });
        expect(res.status).toBe(404);
        expect(res.body.message).toBe("Configuration not found.");
      }
      expect((await t.post("/api/vpn/configurations/abc/revoke", { token: owner.token })).status).toBe(422);

      const revoked = await t.post(`/api/vpn/configurations/${id}/revoke`, { token: owner.token });
      expect(revoked.status, revoked.text).toBe(200);
      expect(revoked.body.data).toEqual({ revoked: true });
      expect(await peerKeys(t)).not.toContain(key);
      expect((await t.get("/api/vpn/manual-setup", { token: owner.token })).body.data.configurations).toEqual([]);
      // A double submit: the same answer, nothing more recorded.
      expect((await t.post(`/api/vpn/configurations/${id}/revoke`, { token: owner.token })).status).toBe(200);
      expect((await events(t, owner.userId)).filter((e) => e.kind === "wireguard_configuration_revoked")).toEqual([
        { kind: "wireguard_configuration_revoked", detail: "Phone" },
      ]);
    });

    it("the peers list: addresses, an ETag that gives 304 while nothing changes, and ?since= for the changes", async () => {
      const { token } = await account(t);
      const first = await t.get("/api/vpn/peers", { headers: NODE });
      expect(first.status).toBe(200);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^W\/"peers-\d+"$/);
      expect(first.headers.get("cache-control")).toBe("private, no-cache");
      const revision: number = first.body.data.revision;
      expect(etag).toBe(`W/"peers-${revision}"`);

      const unchanged = await t.get("/api/vpn/peers", { headers: { ...NODE, "if-none-match": etag } });
      expect(unchanged.status).toBe(304);
      expect(unchanged.text).toBe("");
      expect(unchanged.headers.get("etag")).toBe(etag);
      expect((await t.get("/api/vpn/peers", { headers: { ...NODE, "if-none-match": `"other", ${etag.replace("W/", "")}` } })).status).toBe(304);

      const key = publicKey();
      const made = (await create(t, token, { public_key: key })).body.data.configuration;
      const after = await t.get("/api/vpn/peers", { headers: { ...NODE, "if-none-match": etag } });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).not.toBe(etag);
      expect(after.body.data.peers).toContainEqual({ public_key: key, allowed_ips: [`${made.ipv4}/32`, `${made.ipv6}/128`] });
      expect(after.body.data.peers).toHaveLength(first.body.data.peers.length + 1);

      const changes = await t.get(`/api/vpn/peers?since=${revision}`, { headers: NODE });
      expect(changes.status, changes.text).toBe(200);
      expect(changes.body.data).toMatchObject({ added: [{ public_key: key, allowed_ips: [`${made.ipv4}/32`, `${made.ipv6}/128`] }], removed: [] });
      const later: number = changes.body.data.revision;
      expect(later).toBeGreaterThan(revision);
      expect((await t.get(`/api/vpn/peers?since=${later}`, { headers: { ...NODE, "if-none-match": changes.headers.get("etag")! } })).status).toBe(304);

      await t.post(`/api/vpn/configurations/${made.id}/revoke`, { token });
      const gone = await t.get(`/api/vpn/peers?since=${later}`, { headers: NODE });
      expect(gone.body.data).toMatchObject({ added: [], removed: [key] });

      const ahead = await t.get(`/api/vpn/peers?since=${gone.body.data.revision + 100}`, { headers: NODE });
      expect(ahead.status).toBe(422);
      expect(ahead.body.errors.fields.since).toEqual(["This revision is newer than the list: fetch the whole list."]);
      expect((await t.get("/api/vpn/peers?since=yesterday", { headers: NODE })).status).toBe(422);
    });

    it("a plan that ends pauses the configurations and takes them off the peers list; a renewal brings them back", async () => {
      const { token, userId } = await account(t, { days: 30 });
      const key = publicKey();
      expect((await create(t, token, { public_key: key })).status).toBe(200);
      const before = await t.get("/api/vpn/peers", { headers: NODE });
      expect(before.body.data.peers.map((p: { public_key: string }) => p.public_key)).toContain(key);
      const revision: number = before.body.data.revision;

      t.clock.advanceDays(31);
      try {
        const setup = (await t.get("/api/vpn/manual-setup", { token })).body.data;
        expect(setup.has_plan).toBe(false);
        expect(setup.configurations.map((c: { status: string }) => c.status)).toEqual(["paused"]);
        expect(await peerKeys(t)).not.toContain(key);
        const since = await t.get(`/api/vpn/peers?since=${revision}`, { headers: NODE });
        expect(since.body.data.removed).toContain(key);
        // A paused account keeps its list but makes nothing new.
        expect((await create(t, token)).status).toBe(403);

        await insertSubscription(t.db, userId, { now: t.clock.now(), days: 30 });
        expect((await t.get("/api/vpn/manual-setup", { token })).body.data.configurations.map((c: { status: string }) => c.status)).toEqual(["active"]);
        const renewed = await t.get(`/api/vpn/peers?since=${since.body.data.revision}`, { headers: NODE });
        expect(renewed.body.data.added.map((p: { public_key: string }) => p.public_key)).toContain(key);
        expect(await peerKeys(t)).toContain(key);
      } finally {
        t.clock.reset();
      }
    });

    it("a plan that ends between two polls changes the ETag: no 304 for a stale list", async () => {
      const { token } = await account(t, { days: 10 });
      const key = publicKey();
      await create(t, token, { public_key: key });
      const polled = await t.get("/api/vpn/peers", { headers: NODE });
      t.clock.advanceDays(11);
      try {
        const next = await t.get("/api/vpn/peers", { headers: { ...NODE, "if-none-match": polled.headers.get("etag")! } });
        expect(next.status).toBe(200);
        expect(next.body.data.peers.map((p: { public_key: string }) => p.public_key)).not.toContain(key);
      } finally {
        t.clock.reset();
      }
    });

    it("handshakes reported by a server show as 'Last handshake', only forward and only for live keys", async () => {
      const { token } = await account(t);
      const key = publicKey();
      const made = (await create(t, token, { public_key: key })).body.data.configuration;
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      const at = minutesAgo(10).toISOString();
      const report = (handshakes: unknown) => t.post("/api/vpn/handshakes", { headers: NODE, json: { handshakes } });
      const lastHandshake = async () => (await t.get("/api/vpn/manual-setup", { token })).body.data.configurations[0].last_handshake_at;

      const first = await report([{ public_key: key, at }, { public_key: publicKey(), at }]);
      expect(first.status, first.text).toBe(200);
      expect(first.body.data).toEqual({ recorded: 1 });
      expect(await lastHandshake()).toBe(at);

      expect((await report([{ public_key: key, at: minutesAgo(20).toISOString() }])).body.data).toEqual({ recorded: 0 });
      // Another offset, the same instant: not newer.
      const sameInstant = new Date(at).toISOString().replace("Z", "+00:00");
      expect((await report([{ public_key: key, at: sameInstant }])).body.data).toEqual({ recorded: 0 });
      // A server's clock far ahead is not believed (it would hide every later handshake).
      expect((await report([{ public_key: key, at: new Date(Date.now() + 3_600_000).toISOString() }])).body.data).toEqual({ recorded: 0 });
      // The latest of several for one key; an offset is read as the instant it names.
      const later = minutesAgo(2);
      const withOffset = new Date(later.getTime() + 3_600_000).toISOString().replace("Z", "+01:00");
      expect((await report([{ public_key: key, at: minutesAgo(5).toISOString() }, { public_key: key, at: withOffset }])).body.data).toEqual({ recorded: 1 });
      expect(await lastHandshake()).toBe(later.toISOString());

      const bad = await report([{ public_key: key, at: "yesterday" }]);
      expect(bad.status).toBe(422);
      expect(bad.body.errors.fields["handshakes.0.at"]).toEqual(["The handshake time must be an ISO 8601 date and time."]);
      expect((await report([{ public_key: "short", at }])).status).toBe(422);
      expect((await report(Array.from({ length: 501 }, () => ({ public_key: key, at })))).status).toBe(422);

      await t.post(`/api/vpn/configurations/${made.id}/revoke`, { token });
      expect((await report([{ public_key: key, at: minutesAgo(1).toISOString() }])).body.data).toEqual({ recorded: 0 });
    });

    it("deleting the account revokes its configurations and deletes its credentials", async () => {
      const { token, userId } = await account(t);
      const key = publicKey();
      await create(t, token, { public_key: key });
      expect((await t.post("/api/vpn/credentials", { token })).status).toBe(200);
      const revision = (await t.get("/api/vpn/peers", { headers: NODE })).body.data.revision;

      const deleted = await t.post("/api/account/delete", { token, json: { password: PASSWORD } });
      expect(deleted.status, deleted.text).toBe(200);
      expect(await peerKeys(t)).not.toContain(key);
      expect((await t.get(`/api/vpn/peers?since=${revision}`, { headers: NODE })).body.data.removed).toContain(key);
      expect(await t.db.selectFrom("vpn_credentials").select("username").where("user_id", "=", userId).execute()).toEqual([]);
      const rows = await t.db.selectFrom("vpn_configurations").select(["name", "revoked_at"]).where("user_id", "=", userId).execute();
      expect(rows).toEqual([{ name: "", revoked_at: expect.any(String) }]);
    });
  },
);
