import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { z } from "zod";

/*
 * The operator's list of VPN servers (issue 34, docs/decisions/058): a JSON file named by
 * VPN_SERVERS_FILE, read and checked once at boot with the rest of the configuration, so that a bad
 * file stops the start with the other configuration problems instead of failing a customer's request.
 *
 *   {"servers": [{"hostname": "de-fra-wg-001.vpn.example", "country_code": "DE", "country": "Germany",
 *                 "city": "Frankfurt", "wireguard_public_key": "<44 characters of base64>",
 *                 "endpoint": "de-fra-wg-001.vpn.example:51820", "online": true}]}
 *
 * `endpoint` defaults to `{hostname}:51820`, `online` to true, `dns` (the resolver addresses the
 * configurations name, comma-separated) to the address plan's gateway (api/vpn/addresses.ts).
 */

/** 32 bytes in standard base64 (44 characters, one '=' of padding), as `wg pubkey` prints a key. */
export function isWireGuardKey(value: string): boolean {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(value)) return false;
  // Canonical only: the last character carries 4 bits, its 2 spare bits must be 0 (what wg prints).
  return Buffer.from(value, "base64").toString("base64") === value;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** host:port, or [IPv6]:port; the port 1–65535. */
export function isEndpoint(value: string): boolean {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  if (!match) return false;
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return false;
  if (match[1] !== undefined) return isIP(match[1]) === 6;
  const host = match[2]!;
  return isIP(host) === 4 || HOSTNAME.test(host);
}

const text = (max: number) => z.string().trim().min(1).max(max);

export const VpnServerFileEntrySchema = z.strictObject({
  hostname: z.string().trim().toLowerCase().regex(HOSTNAME, { error: "expected a DNS name such as de-fra-wg-001.vpn.example" }),
  country_code: z.string().trim().toUpperCase().regex(/^[A-Z]{2}$/, { error: "expected an ISO 3166-1 alpha-2 code such as DE" }),
  country: text(100),
  city: text(100),
  wireguard_public_key: z.string().trim().refine(isWireGuardKey, { error: "expected the server's WireGuard public key (32 bytes of base64, as wg pubkey prints it)" }),
  endpoint: z.string().trim().refine(isEndpoint, { error: "expected host:port, such as de-fra-wg-001.vpn.example:51820" }).optional(),
  online: z.boolean().optional(),
  dns: z
    .string()
    .trim()
    .refine((v) => v.split(",").every((part) => isIP(part.trim()) !== 0), { error: "expected comma-separated IP addresses" })
    .optional(),
});

export type VpnServerFileEntry = z.output<typeof VpnServerFileEntrySchema>;

const VpnServersFileSchema = z
  .strictObject({ servers: z.array(VpnServerFileEntrySchema).min(1, { error: "expected at least one server" }) })
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    file.servers.forEach((server, index) => {
      for (const [field, value] of [["hostname", server.hostname], ["wireguard_public_key", server.wireguard_public_key]] as const) {
        const key = `${field}:${value}`;
        if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["servers", index, field], message: `the same as servers[${seen.get(key)}]` });
        else seen.set(key, index);
      }
    });
  });

/** The servers in the file, or what is wrong with it (one line). */
export function readVpnServersFile(path: string): { servers: VpnServerFileEntry[] } | { problem: string } {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (error) {
    return { problem: `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { problem: `${path} is not JSON` };
  }
  const result = VpnServersFileSchema.safeParse(json);
  if (!result.success) {
    const issues = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join(".") || "(file)"}: ${issue.message}`);
    return { problem: `${path}: ${issues.join("; ")}` };
  }
  return { servers: result.data.servers };
}
