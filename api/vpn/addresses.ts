/*
 * The address plan of the VPN (docs/decisions/058). Every configuration gets one IPv4 address from
 * 10.64.0.0/10 and one IPv6 address from the unique local /48 fd7a:651:6f26::/48 (RFC 4193), the same
 * on every server, so a configuration works on any of them. The servers' tunnel interfaces hold the
 * gateway, 10.64.0.1 and fd7a:651:6f26::1, and answer DNS there.
 *
 * Addresses are handed out by index: index n is host (n mod 253) + 2 of /24 block n div 253, so no
 * address ends in .0, .1 or .255 (the gateway, and the network and broadcast addresses some clients
 * still refuse in any /24); the IPv6 address carries the same 22-bit offset as its IPv4 twin
 * (10.64.1.2 and fd7a:651:6f26::102), which makes the pair easy to read in a server's logs.
 */

export const IPV4_NETWORK = "10.64.0.0/10";
export const IPV6_NETWORK = "fd7a:651:6f26::/48";
export const GATEWAY_IPV4 = "10.64.0.1";
export const GATEWAY_IPV6 = "fd7a:651:6f26::1";
/** What a configuration's DNS line names unless the server list says otherwise. */
export const DEFAULT_DNS = `${GATEWAY_IPV4}, ${GATEWAY_IPV6}`;

const IPV4_BASE = (10 << 24) | (64 << 16);
const IPV6_PREFIX = "fd7a:651:6f26::";
const HOSTS_PER_BLOCK = 253;
const BLOCKS = 1 << 14; // /24 blocks in a /10

/** How many configurations can hold an address at once: 4,145,152. */
export const ADDRESS_CAPACITY = HOSTS_PER_BLOCK * BLOCKS;

export interface AddressPair {
  ipv4: string;
  ipv6: string;
}

/** The addresses of plan index `index` (0 ≤ index < ADDRESS_CAPACITY). */
export function addressesAt(index: number): AddressPair {
  if (!Number.isInteger(index) || index < 0 || index >= ADDRESS_CAPACITY) throw new RangeError(`No address at index ${index}`);
  const offset = Math.floor(index / HOSTS_PER_BLOCK) * 256 + (index % HOSTS_PER_BLOCK) + 2;
  const v4 = IPV4_BASE + offset;
  const ipv4 = [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join(".");
  const high = offset >>> 16;
  const low = offset & 0xffff;
  const ipv6 = `${IPV6_PREFIX}${high ? `${high.toString(16)}:` : ""}${low.toString(16)}`;
  return { ipv4, ipv6 };
}

/** `10.64.0.2/32, fd7a:651:6f26::2/128`: a configuration's [Interface] Address line. */
export function interfaceAddress(pair: AddressPair): string {
  return `${pair.ipv4}/32, ${pair.ipv6}/128`;
}

/** The peer's AllowedIPs on a server: its two addresses, each alone. */
export function peerAllowedIps(pair: AddressPair): [string, string] {
  return [`${pair.ipv4}/32`, `${pair.ipv6}/128`];
}
