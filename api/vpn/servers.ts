import { z } from "zod";
import type { Database } from "../platform/db";
import { DomainError } from "../platform/errors";
import type { VpnServerFileEntry } from "../platform/vpn-servers-file";
import { DEFAULT_DNS } from "./addresses";

/*
 * The VPN servers a configuration can name: from VPN_SERVERS_FILE (checked at boot), or in sandbox
 * mode without it the sandbox's seeded list. `online` is the operator's word in the file (a server
 * taken out of rotation), not a probe.
 */

export interface VpnServer {
  hostname: string;
  country_code: string;
  country: string;
  city: string;
  wireguard_public_key: string;
  /** host:port, the [Peer] Endpoint. */
  endpoint: string;
  online: boolean;
  /** The [Interface] DNS line of its configurations. */
  dns: string;
}

export function serversFrom(entries: readonly VpnServerFileEntry[]): VpnServer[] {
  return entries.map((entry) => ({
    hostname: entry.hostname,
    country_code: entry.country_code,
    country: entry.country,
    city: entry.city,
    wireguard_public_key: entry.wireguard_public_key,
    endpoint: entry.endpoint ?? `${entry.hostname}:51820`,
    online: entry.online ?? true,
    dns: entry.dns
      ? entry.dns
          .split(",")
          .map((part) => part.trim())
          .join(", ")
      : DEFAULT_DNS,
  }));
}

const hostname = () => z.string().meta({ examples: ["de-fra-wg-001.vpn.example"] });
const countryCode = () => z.string().meta({ description: "ISO 3166-1 alpha-2.", examples: ["DE"] });

/** A server as the public list gives it to VPN apps and servers. */
export const VpnServerSchema = z
  .strictObject({
    hostname: hostname(),
    country_code: countryCode(),
    country: z.string().meta({ examples: ["Germany"] }),
    city: z.string().meta({ examples: ["Frankfurt"] }),
    wireguard_public_key: z.string().meta({ description: "The server's WireGuard public key (32 bytes, base64)." }),
    endpoint: z.string().meta({ description: "host:port of its WireGuard listener.", examples: ["de-fra-wg-001.vpn.example:51820"] }),
    online: z.boolean().meta({ description: "false: out of rotation; configurations cannot be made for it." }),
  })
  .meta({ id: "VpnServer" });

/** A server as the 'Server' select offers it. */
export const VpnServerChoiceSchema = z
  .strictObject({
    hostname: hostname(),
    country_code: countryCode(),
    country: z.string(),
    city: z.string(),
    online: z.boolean(),
  })
  .meta({ id: "VpnServerChoice" });

/** Where a configuration's server is, as the configuration list shows it. */
export const VpnServerPlaceSchema = z
  .strictObject({ hostname: hostname(), country_code: countryCode(), country: z.string(), city: z.string() })
  .meta({ id: "VpnServerPlace" });

export function publicServer(server: VpnServer): z.infer<typeof VpnServerSchema> {
  const { dns: _dns, ...shown } = server;
  return shown;
}

export function serverChoice(server: VpnServer): z.infer<typeof VpnServerChoiceSchema> {
  return { hostname: server.hostname, country_code: server.country_code, country: server.country, city: server.city, online: server.online };
}

/** The 'Server' field's value that lets the API choose. */
export const FASTEST = "fastest";

export const SERVER_MESSAGES = {
  unknown: "Choose a server from the list.",
  offline: "This server is offline. Choose another one.",
  noneOnline: "No server is online right now. Please try again later.",
} as const;

/**
 * The server a new configuration is for: the named one (online), or for 'fastest' the online server
 * with the fewest live configurations (the first in the list among equals). The API knows nothing of
 * the customer's location, so "fastest" means least loaded.
 */
export async function chooseServer(db: Database, servers: readonly VpnServer[], wanted: string): Promise<VpnServer> {
  if (wanted !== FASTEST) {
    const server = servers.find((s) => s.hostname === wanted);
    if (!server) throw new DomainError("validation_failed", SERVER_MESSAGES.unknown, { field: "server" });
    if (!server.online) throw new DomainError("validation_failed", SERVER_MESSAGES.offline, { field: "server" });
    return server;
  }
  const online = servers.filter((s) => s.online);
  if (online.length === 0) throw new DomainError("validation_failed", SERVER_MESSAGES.noneOnline, { field: "server" });
  const rows = await db
    .selectFrom("vpn_configurations")
    .select(["server_hostname", (eb) => eb.fn.countAll<number | string>().as("live")])
    .where("revoked_at", "is", null)
    .groupBy("server_hostname")
    .execute();
  const load = new Map(rows.map((row) => [row.server_hostname, Number(row.live)]));
  let best = online[0]!;
  for (const server of online) if ((load.get(server.hostname) ?? 0) < (load.get(best.hostname) ?? 0)) best = server;
  return best;
}
