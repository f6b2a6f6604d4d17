import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * The security centre (issue 22, docs/decisions/035).
 * - security_events: what happened to an account's security, for its 'Recent activity'. The address is
 *   stored only shortened (IPv4 /24, IPv6 /48) and rows older than 90 days are deleted by the scheduled
 *   jobs. `detail` is a short non-secret text (a passkey's name, a card's brand and last four).
 * - known_sign_in_devices: the browsers (a random device cookie, stored as its sha256) and apps (their
 *   device id, hashed the same way) an account has signed in from, so that a new one gets an alert.
 * - users.sign_in_alerts: 1 (the default) sends the new sign-in alert.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("security_events"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("user_agent", "text")
    .addColumn("network", "text")
    .addColumn("detail", "text")
    .execute();
  await db.schema.createIndex("security_events_user_idx").on("security_events").columns(["user_id", "created_at"]).execute();
  await db.schema.createIndex("security_events_created_idx").on("security_events").columns(["created_at"]).execute();

  await withIdColumn(db, db.schema.createTable("known_sign_in_devices"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("device_key_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_seen_at", "text", (c) => c.notNull())
    .addUniqueConstraint("known_sign_in_devices_user_key", ["user_id", "device_key_hash"])
    .execute();

  await db.schema.alterTable("users").addColumn("sign_in_alerts", "integer", (c) => c.notNull().defaultTo(1)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").dropColumn("sign_in_alerts").execute();
  await db.schema.dropTable("known_sign_in_devices").ifExists().execute();
  await db.schema.dropTable("security_events").ifExists().execute();
}
