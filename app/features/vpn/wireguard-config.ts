// The one wg-quick configuration file the product makes (issue 34), built here for the browser (its key pair
// made there, the private key never sent) and for the server (the pair made for a page without JavaScript).
// Everything but the private key comes from the API's answer to POST /api/vpn/configurations.
// No Node or browser API is used, so both bundles take this same module.

import { hasControlCharacters } from "~/schemas/text";

/** What the API answers for a new configuration: everything the file needs except the private key. */
export type WireGuardPeerSettings = {
  /** "10.64.0.2/32, fd7a:…::2/128" */
  address: string;
  /** "10.64.0.1, fd7a:…::1" */
  dns: string;
  peer_public_key: string;
  /** "host:51820" */
  endpoint: string;
  /** "0.0.0.0/0, ::/0" */
  allowed_ips: string;
};

/** A WireGuard key: 32 bytes in standard base64 (44 characters ending in '='), as `wg genkey` and `wg pubkey` write them. */
export const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** Whether `value` is a WireGuard key (32 bytes of base64), as the API checks it. */
export function isWireGuardKey(value: string): boolean {
  return WIREGUARD_KEY.test(value);
}

/**
 * The wg-quick file: [Interface] with the private key, the addresses and the DNS servers; [Peer] with the
 * server's public key, its endpoint, and everything routed through it. A value that could break out of its
 * line (a line break from a broken answer) is refused rather than written: the file is pasted into routers.
 */
export function buildWireGuardConfig(privateKey: string, settings: WireGuardPeerSettings): string {
  if (!isWireGuardKey(privateKey)) throw new Error("The private key is not a WireGuard key.");
  if (!isWireGuardKey(settings.peer_public_key)) throw new Error("The server's public key is not a WireGuard key.");
  const values = [settings.address, settings.dns, settings.endpoint, settings.allowed_ips];
  for (const value of values) {
    if (!value.trim() || value.includes("#") || hasControlCharacters(value)) throw new Error("A WireGuard setting is empty or spans lines.");
  }
  return [
    "[Interface]",
    `PrivateKey = ${privateKey}`,
    `Address = ${settings.address}`,
    `DNS = ${settings.dns}`,
    "",
    "[Peer]",
    `PublicKey = ${settings.peer_public_key}`,
    `Endpoint = ${settings.endpoint}`,
    `AllowedIPs = ${settings.allowed_ips}`,
    "",
  ].join("\n");
}

/** The parts of a server that name a file: its country code and city ("DE", "Frankfurt"). */
export type ServerPlace = { country_code: string; city: string; hostname?: string };

/**
 * The largest stem a file name keeps. wg-quick takes the interface's name from the file's (`wg-quick up
 * ./home-rou-de-fra.conf` makes the interface home-rou-de-fra), and Linux allows an interface name of at most
 * 15 characters of [a-zA-Z0-9_=+.-] (IFNAMSIZ 16 with its NUL): a longer name is refused by wg-quick
 * ("The config file must be a valid interface name"). The phone apps take the file's name as the tunnel's
 * name too. So the stem is cut to 15 rather than keeping the whole of a long name.
 */
export const FILE_STEM_MAX = 15;

function slug(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** "de-fra": the country code and the city's first three letters (Mullvad's and IVPN's way of naming a place). */
export function serverTag(server: ServerPlace): string {
  const country = slug(server.country_code).replace(/-/g, "").slice(0, 2);
  const city = slug(server.city).replace(/-/g, "").slice(0, 3);
  return [country, city].filter(Boolean).join("-") || "vpn";
}

/**
 * The download's file name from the configuration's name and its server: "Home router" on Frankfurt is
 * "home-rou-de-fra.conf" (the name's part cut so that the stem stays a valid interface name, see
 * FILE_STEM_MAX); a name with no letter or digit of ASCII ("Ноутбук") gives "wg-de-fra.conf".
 */
export function configFileName(name: string, server: ServerPlace): string {
  const tag = serverTag(server);
  const room = FILE_STEM_MAX - tag.length - 1;
  const namePart = slug(name).slice(0, Math.max(room, 0)).replace(/-+$/, "") || "wg";
  const stem = `${namePart}-${tag}`.slice(0, FILE_STEM_MAX).replace(/-+$/, "");
  return `${stem}.conf`;
}

/** A `data:` URL of the file, for a link with `download`: the page needs no second request to save it. */
export function configDataUrl(text: string): string {
  return `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
}

/** A `data:` URL of an SVG image (the QR code), for an <img> that needs no request. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
