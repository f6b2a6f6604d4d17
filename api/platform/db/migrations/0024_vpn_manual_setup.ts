import { type Kysely, sql } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Manual setup (issue 34, docs/decisions/058).
 * - vpn_configurations: an account's WireGuard configurations: its name, the server it was made for
 *   (a copy of the server's name and place, so that the list reads the same when the server list
 *   changes), the public key (UNIQUE over every row, revoked ones too: a key once registered is never
 *   taken again), the addresses (UNIQUE among live rows), when it was made, revoked and last seen in a
 *   handshake, and `revision`: the peers-list revision of its last change there (created, revoked,
 *   paused or resumed with the account's plan), which makes the servers' ETag and `?since=` exact.
 *   Revoked rows stay, so that `?since=` can say a key was removed.
 * - vpn_accounts: one row per account that has made a configuration: how many are live (the limit is
 *   reserved on this row, under its lock) and whether the peers list has them paused because the
 *   plan ended (the flag follows the subscriptions when the peers list is read).
 * - vpn_credentials: the account's OpenVPN/IKEv2 service credentials: a generated username (UNIQUE)
 *   and the argon2id hash of the password, never the password.
 * - vpn_counters: 'peers_revision' (the peers list's revision, taken under the row's lock by every
 *   change, so revisions commit in order) and 'next_address' (the next index of the address plan).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("vpn_configurations"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("server_hostname", "text", (c) => c.notNull())
    .addColumn("server_country_code", "text", (c) => c.notNull())
    .addColumn("server_country", "text", (c) => c.notNull())
    .addColumn("server_city", "text", (c) => c.notNull())
    .addColumn("public_key", "text", (c) => c.notNull().unique())
    .addColumn("ipv4", "text", (c) => c.notNull())
    .addColumn("ipv6", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .addColumn("last_handshake_at", "text")
    .addColumn("revision", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("vpn_configurations_user_idx").on("vpn_configurations").columns(["user_id", "id"]).execute();
  await db.schema.createIndex("vpn_configurations_revision_idx").on("vpn_configurations").column("revision").execute();
  // Partial: an address is taken while its configuration lives (the plan wraps only after millions).
  for (const column of ["ipv4", "ipv6"]) {
    await db.schema
      .createIndex(`vpn_configurations_live_${column}_key`)
      .on("vpn_configurations")
      .column(column)
      .unique()
      .where(sql.ref("revoked_at"), "is", null)
      .execute();
  }

  await db.schema
    .createTable("vpn_accounts")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("live_configurations", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("paused", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable("vpn_credentials")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("vpn_counters")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "integer", (c) => c.notNull())
    .execute();
  await db
    .insertInto("vpn_counters")
    .values([
      { name: "peers_revision", value: 0 },
      { name: "next_address", value: 0 },
    ])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("vpn_counters").ifExists().execute();
  await db.schema.dropTable("vpn_credentials").ifExists().execute();
  await db.schema.dropTable("vpn_accounts").ifExists().execute();
  await db.schema.dropTable("vpn_configurations").ifExists().execute();
}
