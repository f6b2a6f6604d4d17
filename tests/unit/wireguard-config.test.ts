import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { browserKeyPair } from "~/features/vpn/browser-key-pair";
import { serverKeyPair } from "~/features/vpn/key-pair.server";
import {
  buildWireGuardConfig,
  configDataUrl,
  downloadFileName,
  FILE_STEM_MAX,
  isWireGuardKey,
  type WireGuardPeerSettings,
} from "~/features/vpn/wireguard-config";

// The one wg-quick file the product makes (issue 34), checked by WireGuard's own tools (Debian's
// wireguard-tools, installed by .ci/run): `wg pubkey` of the private key in a configuration gives the public
// key that was registered, and `wg-quick strip` accepts every configuration the module makes. The tools are
// required: without them this file fails, it does not skip.

function hasTool(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).status === 0;
}

const TOOLS_MISSING =
  "WireGuard's tools are missing: install Debian's wireguard-tools (apt-get install -y wireguard-tools; .ci/run does it). This test runs `wg` and `wg-quick`.";

/** `wg pubkey`: the public key of a private key, by WireGuard's own code. */
function wgPubkey(privateKey: string): string {
  return execFileSync("wg", ["pubkey"], { input: `${privateKey}\n`, encoding: "utf8" }).trim();
}

const dir = mkdtempSync(path.join(tmpdir(), "wg-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `wg-quick strip FILE`: the file as wg(8) reads it, after wg-quick's own parsing of [Interface]. wg-quick
 * takes the interface's name from the file's, so the file is written as `<name>.conf`, a valid interface name.
 */
function wgQuickStrip(text: string, name = "wg0"): { status: number | null; stdout: string; stderr: string } {
  const file = path.join(dir, `${name}.conf`);
  writeFileSync(file, text, { mode: 0o600 });
  const result = spawnSync("wg-quick", ["strip", file], { encoding: "utf8" });
  // wg-quick passes a key it does not know on to wg(8), which would refuse it at `wg-quick up`: what is left
  // must be only wg(8)'s own sections and keys.
  for (const line of result.stdout.split("\n").filter((l) => l.trim())) {
    expect(line, `wg(8) reads ${line}`).toMatch(/^(\[Interface\]|\[Peer\]|(PrivateKey|ListenPort|FwMark|PublicKey|PresharedKey|AllowedIPs|Endpoint|PersistentKeepalive) = \S.*)$/);
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SERVER_KEY = serverKeyPair().publicKey;

const SETTINGS: WireGuardPeerSettings[] = [
  {
    address: "10.64.0.2/32, fd7a:115c:a1e0::2/128",
    dns: "10.64.0.1, fd7a:115c:a1e0::1",
    peer_public_key: SERVER_KEY,
    endpoint: "de-fra-wg-001.vpn.example:51820",
    allowed_ips: "0.0.0.0/0, ::/0",
  },
  {
    address: "10.127.255.254/32, fd7a:115c:a1e0:0:ffff:ffff:ffff:fffe/128",
    dns: "10.64.0.1",
    peer_public_key: SERVER_KEY,
    endpoint: "203.0.113.7:51820",
    allowed_ips: "0.0.0.0/0, ::/0",
  },
];

describe("WireGuard's tools are here", () => {
  it("has wg and wg-quick", () => {
    expect(hasTool("wg") && hasTool("wg-quick"), TOOLS_MISSING).toBe(true);
  });
});

describe("the server's key pair (a page without JavaScript)", () => {
  it("makes keys of 32 bytes of base64 whose public key is wg pubkey's", () => {
    for (let i = 0; i < 5; i++) {
      const pair = serverKeyPair();
      expect(isWireGuardKey(pair.privateKey)).toBe(true);
      expect(isWireGuardKey(pair.publicKey)).toBe(true);
      expect(Buffer.from(pair.privateKey, "base64")).toHaveLength(32);
      expect(wgPubkey(pair.privateKey)).toBe(pair.publicKey);
    }
  });

  it("never makes the same pair twice", () => {
    const keys = new Set(Array.from({ length: 20 }, () => serverKeyPair().privateKey));
    expect(keys.size).toBe(20);
  });

  it("writes a configuration whose private key wg pubkey turns into the public key registered, and wg-quick strip accepts it", () => {
    for (const settings of SETTINGS) {
      const pair = serverKeyPair();
      const text = buildWireGuardConfig(pair.privateKey, settings);
      const privateKey = /^PrivateKey = (.+)$/m.exec(text)?.[1];
      expect(privateKey).toBe(pair.privateKey);
      expect(wgPubkey(privateKey!)).toBe(pair.publicKey);
      const stripped = wgQuickStrip(text);
      expect(stripped.stderr).toBe("");
      expect(stripped.status).toBe(0);
      // wg(8)'s part: the private key and the peer, without wg-quick's Address and DNS.
      expect(stripped.stdout).toContain(`PrivateKey = ${pair.privateKey}`);
      expect(stripped.stdout).toContain(`PublicKey = ${settings.peer_public_key}`);
      expect(stripped.stdout).toContain(`Endpoint = ${settings.endpoint}`);
      expect(stripped.stdout).toContain("AllowedIPs = 0.0.0.0/0, ::/0");
      expect(stripped.stdout).not.toMatch(/^(Address|DNS) =/m);
    }
  });
});

describe("the browser's key pair (with JavaScript)", () => {
  it("through WebCrypto's X25519: wg pubkey agrees, and wg-quick strip accepts the file", async () => {
    const pair = await browserKeyPair(globalThis.crypto.subtle);
    expect(isWireGuardKey(pair.privateKey)).toBe(true);
    expect(isWireGuardKey(pair.publicKey)).toBe(true);
    expect(wgPubkey(pair.privateKey)).toBe(pair.publicKey);
    expect(wgQuickStrip(buildWireGuardConfig(pair.privateKey, SETTINGS[0]!)).status).toBe(0);
  });

  it("through @noble/curves where WebCrypto has no X25519: wg pubkey agrees", async () => {
    const noX25519 = {
      generateKey: () => Promise.reject(new DOMException("Unrecognized algorithm name", "NotSupportedError")),
    } as unknown as SubtleCrypto;
    for (const subtle of [null, noX25519]) {
      const pair = await browserKeyPair(subtle);
      expect(isWireGuardKey(pair.privateKey)).toBe(true);
      expect(wgPubkey(pair.privateKey)).toBe(pair.publicKey);
      expect(wgQuickStrip(buildWireGuardConfig(pair.privateKey, SETTINGS[1]!)).status).toBe(0);
    }
  });
});

describe("the configuration file", () => {
  const pair = serverKeyPair();

  it("is the standard wg-quick file, line by line", () => {
    expect(buildWireGuardConfig(pair.privateKey, SETTINGS[0]!)).toBe(
      [
        "[Interface]",
        `PrivateKey = ${pair.privateKey}`,
        "Address = 10.64.0.2/32, fd7a:115c:a1e0::2/128",
        "DNS = 10.64.0.1, fd7a:115c:a1e0::1",
        "",
        "[Peer]",
        `PublicKey = ${SERVER_KEY}`,
        "Endpoint = de-fra-wg-001.vpn.example:51820",
        "AllowedIPs = 0.0.0.0/0, ::/0",
        "",
      ].join("\n"),
    );
  });

  it("refuses a key that is not WireGuard's, and a value that would add a line", () => {
    expect(() => buildWireGuardConfig("not-a-key", SETTINGS[0]!)).toThrow();
    expect(() => buildWireGuardConfig(pair.privateKey, { ...SETTINGS[0]!, peer_public_key: "short" })).toThrow();
    expect(() => buildWireGuardConfig(pair.privateKey, { ...SETTINGS[0]!, endpoint: "x:51820\nPostUp = rm -rf /" })).toThrow();
    expect(() => buildWireGuardConfig(pair.privateKey, { ...SETTINGS[0]!, dns: " " })).toThrow();
  });

  it("downloads under the API's file name when it is an interface name that wg-quick takes, else wg0.conf", () => {
    for (const fileName of ["de-fra-router.conf", "de-fra-home-rou.conf", "jp-tyo.conf", "abcdefghijklmno.conf"]) {
      expect(downloadFileName(fileName)).toBe(fileName);
      const stem = fileName.replace(/\.conf$/, "");
      expect(stem.length).toBeLessThanOrEqual(FILE_STEM_MAX);
      expect(wgQuickStrip(buildWireGuardConfig(pair.privateKey, SETTINGS[0]!), stem).status).toBe(0);
    }
    for (const fileName of [undefined, "", "home-router-de-fra.conf", "../etc/passwd.conf", "router.txt", "de fra.conf", "router"]) {
      expect(downloadFileName(fileName)).toBe("wg0.conf");
    }
    // What it refuses, wg-quick refuses too: a stem longer than an interface name.
    expect(wgQuickStrip(buildWireGuardConfig(pair.privateKey, SETTINGS[0]!), "home-router-de-fra").status).not.toBe(0);
  });

  it("downloads as a data: link that holds the file exactly", () => {
    const text = buildWireGuardConfig(pair.privateKey, SETTINGS[0]!);
    const href = configDataUrl(text);
    expect(href.startsWith("data:text/plain;charset=utf-8,")).toBe(true);
    expect(decodeURIComponent(href.slice(href.indexOf(",") + 1))).toBe(text);
  });
});
