import { isIPv6 } from "node:net";
import { describe, expect, it } from "vitest";
import { ADDRESS_CAPACITY, addressesAt, interfaceAddress, peerAllowedIps } from "../../api/vpn/addresses";
import { configurationFileName } from "../../api/vpn/configurations";
import { NodeTokens } from "../../api/vpn/node-tokens";
import { isEndpoint, isWireGuardKey } from "../../api/platform/vpn-servers-file";

// The address plan of manual setup (docs/decisions/058): 10.64.0.0/10 and fd7a:651:6f26::/48, never .0,
// .1 (the gateway and DNS) or .255, the IPv6 address carrying its IPv4 twin's offset.

/** The canonical text of an IPv6 address (RFC 5952), as the WHATWG URL parser writes it. */
const canonical = (ipv6: string) => new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);

describe("the VPN address plan", () => {
  it("starts after the gateway and skips .0, .1 and .255 of every /24", () => {
    expect(addressesAt(0)).toEqual({ ipv4: "10.64.0.2", ipv6: "fd7a:651:6f26::2" });
    expect(addressesAt(252)).toEqual({ ipv4: "10.64.0.254", ipv6: "fd7a:651:6f26::fe" });
    expect(addressesAt(253)).toEqual({ ipv4: "10.64.1.2", ipv6: "fd7a:651:6f26::102" });
    expect(addressesAt(253 * 256)).toEqual({ ipv4: "10.65.0.2", ipv6: "fd7a:651:6f26::1:2" });
    expect(addressesAt(ADDRESS_CAPACITY - 1)).toEqual({ ipv4: "10.127.255.254", ipv6: "fd7a:651:6f26::3f:fffe" });
    expect(ADDRESS_CAPACITY).toBe(4_145_152);
    expect(() => addressesAt(ADDRESS_CAPACITY)).toThrow(RangeError);
    expect(() => addressesAt(-1)).toThrow(RangeError);
  });

  it("gives distinct, valid, canonical pairs", () => {
    const seen4 = new Set<string>();
    const seen6 = new Set<string>();
    const indexes = [...Array.from({ length: 3000 }, (_, i) => i), ...Array.from({ length: 3000 }, (_, i) => ADDRESS_CAPACITY - 1 - i * 977)];
    for (const index of indexes) {
      const { ipv4, ipv6 } = addressesAt(index);
      const last = Number(ipv4.split(".")[3]);
      expect(last >= 2 && last <= 254, ipv4).toBe(true);
      expect(isIPv6(ipv6) && canonical(ipv6) === ipv6, ipv6).toBe(true);
      seen4.add(ipv4);
      seen6.add(ipv6);
    }
    expect(seen4.size).toBe(new Set(indexes).size);
    expect(seen6.size).toBe(new Set(indexes).size);
  });

  it("writes the lines of a configuration and of a server's peer", () => {
    const pair = addressesAt(0);
    expect(interfaceAddress(pair)).toBe("10.64.0.2/32, fd7a:651:6f26::2/128");
    expect(peerAllowedIps(pair)).toEqual(["10.64.0.2/32", "fd7a:651:6f26::2/128"]);
  });
});

describe("WireGuard keys, endpoints and node tokens", () => {
  it("takes a key as wg prints it: 32 bytes of canonical base64", () => {
    expect(isWireGuardKey("xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=")).toBe(true);
    expect(isWireGuardKey("xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dh=")).toBe(false);
    expect(isWireGuardKey("xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg")).toBe(false);
    expect(isWireGuardKey("xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8D_=")).toBe(false);
    expect(isWireGuardKey(Buffer.alloc(31).toString("base64"))).toBe(false);
  });

  it("takes host:port endpoints, IPv6 in brackets", () => {
    for (const good of ["de-fra-wg-001.vpn.example:51820", "203.0.113.7:51820", "[2001:db8::1]:443"]) expect(isEndpoint(good), good).toBe(true);
    for (const bad of ["de-fra-wg-001.vpn.example", "host:0", "host:70000", "2001:db8::1:443", "[203.0.113.7]:1", "a b:1"]) expect(isEndpoint(bad), bad).toBe(false);
  });

  it("accepts any configured node token, only as a bearer token", () => {
    const tokens = new NodeTokens(["first-token-0123456789abcdefghijkl", "second-token-0123456789abcdefghijk"]);
    expect(tokens.accepts("Bearer first-token-0123456789abcdefghijkl")).toBe(true);
    expect(tokens.accepts("bearer second-token-0123456789abcdefghijk ")).toBe(true);
    for (const bad of [undefined, "", "Bearer", "Bearer first-token", "first-token-0123456789abcdefghijkl", "Bearer a b"]) expect(tokens.accepts(bad), String(bad)).toBe(false);
    expect(new NodeTokens([]).accepts("Bearer anything")).toBe(false);
  });
});

describe("the configuration's file name", () => {
  it("is a wg-quick interface name: the server's place and the name, at most 15 characters", () => {
    const cases: Array<[string, string, string]> = [
      ["Router", "de-fra-wg-001.vpn.example", "de-fra-router.conf"],
      ["Home router", "de-fra-wg-001.vpn.example", "de-fra-home-rou.conf"],
      ["Zürich Büro", "ch-zrh-wg-001.vpn.example", "ch-zrh-zurich-b.conf"],
      ["Router 2", "us-nyc-wg-001.vpn.example", "us-nyc-router-2.conf"],
      ["A -- B", "se-sto-wg-001.vpn.example", "se-sto-a-b.conf"],
      ["我的路由器", "jp-tyo-wg-001.vpn.example", "jp-tyo.conf"],
      ["Laptop", "vpn1.example.net", "vpn1-laptop.conf"],
      ["Laptop", "203.0.113.7", "203-laptop.conf"],
      ["x", "abcdefghijklmnopq-r.example", "abcdefghijklmno.conf"],
    ];
    for (const [name, host, expected] of cases) {
      const file = configurationFileName(name, host);
      expect(file, `${name} @ ${host}`).toBe(expected);
      expect(file).toMatch(/^[a-z0-9][a-z0-9-]{0,14}\.conf$/);
    }
  });
});
