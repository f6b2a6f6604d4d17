import { type Kysely, sql } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Google/Apple account links and desktop hand-off codes. Same portable conventions as 0001:
 * ISO-8601 UTC text timestamps, withIdColumn ids.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("account_links"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("link_type", "text", (c) => c.notNull().check(sql`link_type in ('GOOGLE', 'APPLE')`))
    // The provider's `sub`: who the person is at the provider (the email may change there).
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    // A provider account signs into one account only ...
    .addUniqueConstraint("account_links_link_type_subject_key", ["link_type", "subject"])
    // ... and an account has at most one link per provider. Its index also serves lookups by user_id.
    .addUniqueConstraint("account_links_user_id_link_type_key", ["user_id", "link_type"])
    .execute();

  await withIdColumn(db, db.schema.createTable("desktop_codes"))
    // sha256 hex of the normalised code (8 characters, no dash, upper case).
    .addColumn("code_hash", "text", (c) => c.notNull().unique())
    // The bearer token, AES-256-GCM under HKDF-SHA256(code, salt): base64url of iv | ciphertext | tag.
    // Cleared once the code is used.
    .addColumn("token_ciphertext", "text")
    .addColumn("salt", "text", (c) => c.notNull())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("token_id", "integer", (c) => c.notNull().references("tokens.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("desktop_codes_token_id_idx").on("desktop_codes").column("token_id").execute();
  await db.schema.createIndex("desktop_codes_user_id_idx").on("desktop_codes").column("user_id").execute();
  await db.schema.createIndex("desktop_codes_expires_at_idx").on("desktop_codes").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["desktop_codes", "account_links"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
