import { BlockList, isIP } from "node:net";
import type { TrustProxySetting } from "./config";

/**
 * Express "trust proxy" function for the API: loopback addresses are always trusted (the portal
 * calls the API over loopback and forwards the browser's address in X-Forwarded-For), plus
 * whatever TRUST_PROXY adds. A direct outside caller's X-Forwarded-For is therefore ignored.
 *
 * Express calls it for the socket address (i = 0) and then for each X-Forwarded-For entry from
 * right to left (i = 1, 2, ...); req.ip is the first address that is not trusted.
 * - { kind: "hops", hops: n }: the n nearest hops are trusted (i < n), as with Express's number.
 * - { kind: "list" }: addresses/subnets (IPv4, IPv6, CIDR, and the names loopback, linklocal,
 *   uniquelocal as in Express).
 * - { kind: "all" }: everything (req.ip = the left-most X-Forwarded-For entry).
 */
export type TrustFunction = (address: string, hop: number) => boolean;

const NAMED: Record<string, string[]> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/** Strips brackets, zone ids and the IPv4-mapped IPv6 prefix: "::ffff:1.2.3.4" -> "1.2.3.4". */
export function normalizeAddress(address: string): string {
  let a = address.trim();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  const zone = a.indexOf("%");
  if (zone >= 0) a = a.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped?.[1]) return mapped[1];
  return a;
}

function buildBlockList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const raw of entries) {
    const named = NAMED[raw.toLowerCase()];
    for (const entry of named ?? [raw]) {
      const [rawAddress = "", prefix] = entry.split("/");
      const address = prefix === undefined ? normalizeAddress(rawAddress) : rawAddress;
      const family = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    }
  }
  return list;
}

function contains(list: BlockList, address: string): boolean {
  const a = normalizeAddress(address);
  const family = isIP(a);
  if (family === 0) return false;
  return list.check(a, family === 6 ? "ipv6" : "ipv4");
}

const loopback = buildBlockList(["loopback"]);

export function isLoopback(address: string): boolean {
  return contains(loopback, address);
}

export function createTrustFunction(setting: TrustProxySetting): TrustFunction {
  switch (setting.kind) {
    case "all":
      return () => true;
    case "none":
      return (address) => isLoopback(address);
    case "hops":
      return (address, hop) => isLoopback(address) || hop < setting.hops;
    case "list": {
      const list = buildBlockList(setting.entries);
      return (address) => isLoopback(address) || contains(list, address);
    }
  }
}

/**
 * The key used for per-address rate limits: IPv4 addresses as they are, IPv6 addresses by their /64
 * prefix (one subscriber line usually owns a whole /64, so per-address keys would be trivial to evade).
 */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return "unknown";
  const a = normalizeAddress(address);
  if (isIP(a) !== 6) return a;
  const groups = expandIpv6(a);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : a;
}

/**
 * An address as an account's security log keeps it (issue 22): IPv4 by its /24 ('203.0.113.0/24'), IPv6
 * by its /48 ('2001:db8:85a3::/48'). Enough to tell one network from another; the full address is
 * never stored. Null when it is not an address.
 */
export function shortenAddress(address: string | undefined | null): string | null {
  if (!address) return null;
  const a = normalizeAddress(address);
  const family = isIP(a);
  if (family === 4) return `${a.split(".").slice(0, 3).join(".")}.0/24`;
  if (family !== 6) return null;
  const groups = expandIpv6(a);
  if (!groups) return null;
  const head = groups.slice(0, 3).map((g) => Number.parseInt(g, 16).toString(16));
  while (head.length > 0 && head[head.length - 1] === "0") head.pop();
  return `${head.join(":")}::/48`;
}

function expandIpv6(address: string): string[] | null {
  let a = address.toLowerCase();
  // An embedded IPv4 tail (e.g. ::1.2.3.4) becomes two hex groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(a);
  if (v4) {
    const [b1, b2, b3, b4] = v4.slice(1).map(Number) as [number, number, number, number];
    a = `${a.slice(0, v4.index)}${((b1 << 8) | b2).toString(16)}:${((b3 << 8) | b4).toString(16)}`;
  }
  const halves = a.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  return groups.map((g) => (parseInt(g, 16) || 0).toString(16));
}
