import { z } from "zod";
import { type Database, dialectOf, isUniqueViolation } from "../platform/db";
import type { VpnConfigurationsTable } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { isWireGuardKey } from "../platform/vpn-servers-file";
import type { Selectable } from "kysely";
import { ADDRESS_CAPACITY, type AddressPair, addressesAt, interfaceAddress } from "./addresses";
import { bumpCounter, lockAccount, nextRevision } from "./ledger";
import { VpnServerPlaceSchema, type VpnServer } from "./servers";

/*
 * WireGuard configurations (issue 34, docs/decisions/058). The API registers the device's public key
 * and hands out its addresses; the private key never reaches it (the browser makes the pair, or the
 * portal's server for a browser without JavaScript, and neither sends it here).
 */

/** Live configurations per account with a plan. */
export const CONFIGURATION_LIMIT = 10;
export const CONFIGURATION_NAME_MAX = 40;

export const CONFIGURATION_MESSAGES = {
  listed: "Manual setup",
  created: "Configuration created.",
  revoked: "Configuration revoked.",
  notFound: "Configuration not found.",
  notAvailable: "Manual setup is not available.",
  planRequired: "A plan is needed for manual setup.",
  limit: `You have ${CONFIGURATION_LIMIT} configurations. Revoke one to create another.`,
  keyFormat: "The public key must be 32 bytes of base64.",
  keyTaken: "This public key is already registered.",
} as const;

/** Everything a wg-quick file needs but the private key. */
export const ALLOWED_IPS = "0.0.0.0/0, ::/0";

export const ConfigurationSchema = z
  .strictObject({
    id: z.int(),
    name: z.string(),
    server: VpnServerPlaceSchema,
    ipv4: z.string().meta({ description: "One address in 10.64.0.0/10.", examples: ["10.64.0.2"] }),
    ipv6: z.string().meta({ description: "One address in fd7a:651:6f26::/48.", examples: ["fd7a:651:6f26::2"] }),
    created_at: z.string().meta({ format: "date-time" }),
    last_handshake_at: z.string().nullable().meta({ format: "date-time", description: "The latest handshake a VPN server reported; null: none yet." }),
    status: z.enum(["active", "paused"]).meta({ description: "paused: the account has no plan now, and the servers do not accept it ('Paused: your plan has ended')." }),
  })
  .meta({ id: "VpnConfiguration" });

export const WireGuardSettingsSchema = z
  .strictObject({
    address: z.string().meta({ description: "[Interface] Address.", examples: ["10.64.0.2/32, fd7a:651:6f26::2/128"] }),
    dns: z.string().meta({ description: "[Interface] DNS.", examples: ["10.64.0.1, fd7a:651:6f26::1"] }),
    peer_public_key: z.string().meta({ description: "[Peer] PublicKey: the server's." }),
    endpoint: z.string().meta({ description: "[Peer] Endpoint.", examples: ["de-fra-wg-001.vpn.example:51820"] }),
    allowed_ips: z.literal(ALLOWED_IPS).meta({ description: "[Peer] AllowedIPs: everything through the tunnel." }),
    file_name: z.string().meta({
      description:
        "The download's file name, from the server's place and the configuration's name. wg-quick takes the interface's name from it, so it is one: at most 15 characters of a-z, 0-9 and '-' before '.conf' (wg-quick up and strip refuse others).",
      examples: ["de-fra-router.conf"],
    }),
  })
  .meta({ id: "WireGuardSettings", description: "Everything the wg-quick file needs except the private key, which the API never sees." });

export type Configuration = z.infer<typeof ConfigurationSchema>;
type ConfigurationRow = Selectable<VpnConfigurationsTable>;

export function configurationView(row: ConfigurationRow, hasPlan: boolean): Configuration {
  return {
    id: Number(row.id),
    name: row.name,
    server: { hostname: row.server_hostname, country_code: row.server_country_code, country: row.server_country, city: row.server_city },
    ipv4: row.ipv4,
    ipv6: row.ipv6,
    created_at: row.created_at,
    last_handshake_at: row.last_handshake_at,
    status: hasPlan ? "active" : "paused",
  };
}

/** The account's live configurations, newest first. */
export async function listConfigurations(db: Database, userId: number, hasPlan: boolean): Promise<Configuration[]> {
  const rows = await db
    .selectFrom("vpn_configurations")
    .selectAll()
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .orderBy("id", "desc")
    .execute();
  return rows.map((row) => configurationView(row, hasPlan));
}

/** A public key as a request sends it: trimmed; 32 bytes of standard base64, else 422. */
export function publicKeyField() {
  return z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? "The public key field is required." : CONFIGURATION_MESSAGES.keyFormat) })
    .trim()
    .min(1, { error: "The public key field is required.", abort: true })
    .refine(isWireGuardKey, { error: CONFIGURATION_MESSAGES.keyFormat })
    .meta({
      description: "The device's WireGuard public key: 32 bytes in standard base64, 44 characters ending in '=' (what `wg pubkey` prints).",
      override: { type: "string", pattern: "^\\s*[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=\\s*$" },
      examples: ["xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="],
    });
}

export interface NewConfiguration {
  userId: number;
  name: string;
  server: VpnServer;
  publicKey: string;
  /** Business time. */
  now: Date;
}

export interface CreatedConfiguration {
  configuration: Configuration;
  wireguard: z.infer<typeof WireGuardSettingsSchema>;
}

/**
 * Registers a configuration. The caller has checked that the account has a plan. In one transaction,
 * in the ledger's lock order (ledger.ts): the account's users row (shared, so a deletion in flight
 * finishes first and is seen), its vpn_accounts row (made on first use), the limit checked on it under
 * its lock (a parallel burst of 20 makes exactly 10), the next peers revision, the next free address,
 * then the row. The UNIQUE public key decides a race for the same key: 409.
 */
export async function createConfiguration(db: Database, input: NewConfiguration): Promise<CreatedConfiguration> {
  const nowIso = input.now.toISOString();
  await refuseTakenKey(db, input.publicKey);
  let row: ConfigurationRow;
  try {
    row = await db.transaction().execute(async (trx) => {
      let userQuery = trx.selectFrom("users").select("deleted_at").where("id", "=", input.userId);
      if (dialectOf(trx) === "postgres") userQuery = userQuery.forShare();
      const user = await userQuery.executeTakeFirst();
      if (!user || user.deleted_at) throw new DomainError("unauthenticated", "Unauthenticated.");
      await trx.insertInto("vpn_accounts").values({ user_id: input.userId }).onConflict((oc) => oc.column("user_id").doNothing()).execute();
      const account = (await lockAccount(trx, input.userId))!;
      if (account.live >= CONFIGURATION_LIMIT) throw new DomainError("configuration_limit", CONFIGURATION_MESSAGES.limit);
      const revision = await nextRevision(trx);
      await trx
        .updateTable("vpn_accounts")
        .set((eb) => ({ live_configurations: eb("live_configurations", "+", 1), paused: 0 }))
        .where("user_id", "=", input.userId)
        .execute();
      // The plan came back since the peers list last looked: the account's other configurations return with this one.
      if (account.paused) {
        await trx.updateTable("vpn_configurations").set({ revision }).where("user_id", "=", input.userId).where("revoked_at", "is", null).execute();
      }
      const addresses = await allocateAddresses(trx);
      return trx
        .insertInto("vpn_configurations")
        .values({
          user_id: input.userId,
          name: input.name,
          server_hostname: input.server.hostname,
          server_country_code: input.server.country_code,
          server_country: input.server.country,
          server_city: input.server.city,
          public_key: input.publicKey,
          ipv4: addresses.ipv4,
          ipv6: addresses.ipv6,
          created_at: nowIso,
          revision,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (error) {
    // Only the key can collide: addresses are chosen under the revision lock (allocateAddresses).
    if (isUniqueViolation(error)) await refuseTakenKey(db, input.publicKey);
    throw error;
  }
  return {
    configuration: configurationView(row, true),
    wireguard: {
      address: interfaceAddress(row),
      dns: input.server.dns,
      peer_public_key: input.server.wireguard_public_key,
      endpoint: input.server.endpoint,
      allowed_ips: ALLOWED_IPS,
      file_name: configurationFileName(input.name, input.server.hostname),
    },
  };
}

/** wg-quick's interface names: what its file name must be before '.conf'. */
const INTERFACE_NAME_MAX = 15;

/**
 * 'Home router' on de-fra-wg-001.vpn.example → de-fra-home-rou.conf: the server's place (the first two
 * parts of its first label), then the name in lower-case letters and digits, cut to an interface name.
 */
export function configurationFileName(name: string, hostname: string): string {
  const slug = (text: string) =>
    text
      .normalize("NFKD")
      .replace(/\p{M}/gu, "") // ü → u, not u-
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
  const place = slug(hostname.split(".")[0]!.split("-").slice(0, 2).join("-")) || "wg";
  const named = slug(name);
  const base = (named ? `${place}-${named}` : place).slice(0, INTERFACE_NAME_MAX).replace(/-+$/, "");
  return `${base}.conf`;
}

/** 409 when the key is registered, on any account, revoked or not. */
async function refuseTakenKey(db: Database, publicKey: string): Promise<void> {
  const taken = await db.selectFrom("vpn_configurations").select("id").where("public_key", "=", publicKey).executeTakeFirst();
  if (taken) throw new DomainError("public_key_taken", CONFIGURATION_MESSAGES.keyTaken, { field: "public_key" });
}

/** How far past a taken address the allocation looks before it gives up (only after the plan wrapped, and nearly full). */
const MAX_ADDRESS_PROBES = 1000;

/**
 * The next address pair of the plan that no live configuration holds. Called under the revision
 * counter's lock (ledger.ts), so no other creation runs between the check and the insert; the partial
 * UNIQUE indexes are the backstop. The counter only grows; the index wraps after ADDRESS_CAPACITY, and
 * addresses of revoked configurations are then taken again.
 */
async function allocateAddresses(trx: Database): Promise<AddressPair> {
  for (let probe = 0; probe < MAX_ADDRESS_PROBES; probe++) {
    const index = ((await bumpCounter(trx, "next_address")) - 1) % ADDRESS_CAPACITY;
    const pair = addressesAt(index);
    const taken = await trx
      .selectFrom("vpn_configurations")
      .select("id")
      .where("revoked_at", "is", null)
      .where((eb) => eb.or([eb("ipv4", "=", pair.ipv4), eb("ipv6", "=", pair.ipv6)]))
      .executeTakeFirst();
    if (!taken) return pair;
  }
  throw new Error("No VPN address is free: the address plan is full.");
}

/**
 * Revokes one of the account's configurations: its key leaves the peers list with the next revision.
 * Answers its name, or null when it was already revoked (a double submit: nothing more happens).
 * 404 for an id that is not the account's.
 */
export async function revokeConfiguration(db: Database, userId: number, id: number, now: Date): Promise<{ name: string } | null> {
  return db.transaction().execute(async (trx) => {
    const account = await lockAccount(trx, userId);
    const row = account
      ? await trx.selectFrom("vpn_configurations").select(["name", "revoked_at"]).where("id", "=", id).where("user_id", "=", userId).executeTakeFirst()
      : undefined;
    if (!row) throw new DomainError("not_found", CONFIGURATION_MESSAGES.notFound);
    if (row.revoked_at) return null;
    const revision = await nextRevision(trx);
    await trx.updateTable("vpn_configurations").set({ revoked_at: now.toISOString(), revision }).where("id", "=", id).execute();
    await trx
      .updateTable("vpn_accounts")
      .set((eb) => ({ live_configurations: eb("live_configurations", "-", 1) }))
      .where("user_id", "=", userId)
      .execute();
    return { name: row.name };
  });
}

/** How far ahead of our real time a reported handshake may be (clock skew); later ones are ignored. */
export const HANDSHAKE_MAX_SKEW_MS = 5 * 60_000;

/**
 * What a VPN server reports: the latest handshake per public key (the server's time, so compared with
 * real time, not the business clock). Only live configurations are touched, and only forward; a time
 * in the future (a server's clock gone wrong) is ignored, or it would hide every later handshake.
 * Answers how many moved.
 */
export async function recordHandshakes(db: Database, handshakes: ReadonlyArray<{ public_key: string; at: Date }>, nowMs = Date.now()): Promise<number> {
  const latest = new Map<string, string>();
  for (const { public_key, at } of handshakes) {
    if (at.getTime() > nowMs + HANDSHAKE_MAX_SKEW_MS) continue;
    const iso = at.toISOString();
    const known = latest.get(public_key);
    if (!known || known < iso) latest.set(public_key, iso);
  }
  if (latest.size === 0) return 0;
  return db.transaction().execute(async (trx) => {
    let recorded = 0;
    for (const [publicKey, at] of latest) {
      const result = await trx
        .updateTable("vpn_configurations")
        .set({ last_handshake_at: at })
        .where("public_key", "=", publicKey)
        .where("revoked_at", "is", null)
        .where((eb) => eb.or([eb("last_handshake_at", "is", null), eb("last_handshake_at", "<", at)]))
        .executeTakeFirst();
      recorded += Number(result.numUpdatedRows);
    }
    return recorded;
  });
}

/**
 * The VPN half of deleting an account, in the erasure's transaction (after its lock on the users row):
 * every configuration revoked with the next revision (so the servers drop the keys), their names
 * blanked, and the service credentials deleted. The revoked rows keep their keys: a key once
 * registered stays refused, and `?since=` can say it was removed.
 */
export async function eraseVpnAccount(trx: Database, userId: number, now: Date): Promise<void> {
  const account = await lockAccount(trx, userId);
  if (account) {
    const live = await trx.selectFrom("vpn_configurations").select("id").where("user_id", "=", userId).where("revoked_at", "is", null).executeTakeFirst();
    if (live) {
      const revision = await nextRevision(trx);
      await trx
        .updateTable("vpn_configurations")
        .set({ revoked_at: now.toISOString(), revision })
        .where("user_id", "=", userId)
        .where("revoked_at", "is", null)
        .execute();
    }
    await trx.updateTable("vpn_configurations").set({ name: "" }).where("user_id", "=", userId).execute();
    await trx.updateTable("vpn_accounts").set({ live_configurations: 0 }).where("user_id", "=", userId).execute();
  }
  await trx.deleteFrom("vpn_credentials").where("user_id", "=", userId).execute();
}
