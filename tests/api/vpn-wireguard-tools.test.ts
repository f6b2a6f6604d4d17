import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { VPN_SANDBOX_SERVERS } from "../../api/sandboxes/vpn";
import { insertSubscription } from "../support/accounts";
import { databases, useApi } from "./harness";

/*
 * What the API answers for a configuration makes a file the real WireGuard tools take (issue 34): a key
 * pair from `wg genkey` / `wg pubkey`, the public half registered, the wg-quick file written from the
 * answer under its `file_name`, and `wg-quick strip` accepting it for every server and for names that
 * need cleaning. Debian's wireguard-tools are installed by .ci/run; without them this suite fails, as CI
 * should (it is not skipped).
 */

const wg = (args: string[], input?: string) => execFileSync(args[0] === "quick" ? "wg-quick" : "wg", args[0] === "quick" ? args.slice(1) : args, { input, encoding: "utf8" }).trim();

const folder = mkdtempSync(join(tmpdir(), "vpn-wg-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe.each(databases())("WireGuard configurations and the real tools ($name)", (kind) => {
  const t = useApi(kind);

  it("every configuration the API describes is one wg-quick takes, and its key is the one registered", async () => {
    const userId = await t.createUser({ email: `wg-tools-${kind.name}@example.com`, password: "correct-horse-wg" });
    await insertSubscription(t.db, userId, { now: t.clock.now() });
    const token = await t.login(`wg-tools-${kind.name}@example.com`, "correct-horse-wg");
    const online = VPN_SANDBOX_SERVERS.filter((s) => s.online);
    const names = ["Router", "Home router with a long name", "Zürich Büro", "我的路由器", "a -- b", "Router 2", "x", "Laptop (work)", "Phone", "TV"];
    // Every online server once (the limit is 10 live configurations: each is revoked once checked).
    for (const [i, server] of online.entries()) {
      const name = names[i % names.length]!;
      const privateKey = wg(["genkey"]);
      const publicKey = wg(["pubkey"], `${privateKey}\n`);
      const res = await t.post("/api/vpn/configurations", { token, json: { name, server: server.hostname, public_key: publicKey } });
      expect(res.status, res.text).toBe(200);
      const { configuration, wireguard } = res.body.data;
      const text = [
        "[Interface]",
        `PrivateKey = ${privateKey}`,
        `Address = ${wireguard.address}`,
        `DNS = ${wireguard.dns}`,
        "",
        "[Peer]",
        `PublicKey = ${wireguard.peer_public_key}`,
        `Endpoint = ${wireguard.endpoint}`,
        `AllowedIPs = ${wireguard.allowed_ips}`,
        "",
      ].join("\n");
      const file = join(folder, wireguard.file_name);
      writeFileSync(file, text, { mode: 0o600 });
      const stripped = wg(["quick", "strip", file]);
      expect(stripped, name).toContain(`PrivateKey = ${privateKey}`);
      expect(stripped).toContain(`PublicKey = ${server.wireguard_public_key}`);
      expect(stripped).toContain(`Endpoint = ${server.hostname}:51820`);
      // The server's peers list has the key the private half makes, with the configuration's addresses.
      const peers = (await t.get("/api/vpn/peers", { headers: { authorization: "Bearer sandbox-node-token" } })).body.data.peers;
      expect(peers).toContainEqual({ public_key: wg(["pubkey"], `${privateKey}\n`), allowed_ips: [`${configuration.ipv4}/32`, `${configuration.ipv6}/128`] });
      expect((await t.post(`/api/vpn/configurations/${configuration.id}/revoke`, { token })).status).toBe(200);
    }
    // The sandbox's servers' own keys are keys the tools print.
    for (const server of VPN_SANDBOX_SERVERS) expect(server.wireguard_public_key).toMatch(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/);
  });
});
