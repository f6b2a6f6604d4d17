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

/**
 * The largest stem a file name may have. wg-quick takes the interface's name from the file's (`wg-quick up
 * ./de-fra-home-rou.conf` makes the interface de-fra-home-rou), and Linux allows an interface name of at most
 * 15 characters of [a-zA-Z0-9_=+.-] (IFNAMSIZ 16 with its NUL): wg-quick refuses any other ("The config file
 * must be a valid interface name"), and the phone apps take the file's name as the tunnel's. So a long name
 * is cut ('Home router' on Frankfurt is de-fra-home-rou.conf, not home-router-de-fra.conf).
 */
export const FILE_STEM_MAX = 15;
const FILE_NAME = /^[a-zA-Z0-9_=+.-]{1,15}\.conf$/;

/**
 * The download's file name: the API's `file_name` (its server's place and the configuration's name, cut to an
 * interface name), checked here because it goes into the page's `download` attribute and then into wg-quick;
 * an answer that is not such a name gives "wg0.conf".
 */
export function downloadFileName(fileName: string | undefined): string {
  return fileName && FILE_NAME.test(fileName) ? fileName : "wg0.conf";
}

/** A `data:` URL of the file, for a link with `download`: the page needs no second request to save it. */
export function configDataUrl(text: string): string {
  return `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;
}

/** A `data:` URL of an SVG image (the QR code), for an <img> that needs no request. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}
