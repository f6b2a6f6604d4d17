import { type Kysely, sql } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Emailed codes, the mail sandbox's outbox and single-use tokens. Same portable conventions as
 * 0001: ISO-8601 UTC text timestamps, integer 0/1 booleans, withIdColumn ids.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("verification_codes"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("purpose", "text", (c) =>
      c.notNull().check(sql`purpose in ('signup', 'login', 'reset', 'set_password')`),
    )
    .addColumn("code_hash", "text")
    .addColumn("code_salt", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sent_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text")
    .addColumn("is_checkout", "integer", (c) => c.check(sql`is_checkout in (0, 1)`))
    .addColumn("plan_id", "text")
    // One live code per email and purpose; the send is an upsert on this pair.
    .addUniqueConstraint("verification_codes_email_purpose_key", ["email", "purpose"])
    .execute();
  // For sweeping old rows.
  await db.schema.createIndex("verification_codes_sent_at_idx").on("verification_codes").column("sent_at").execute();

  await withIdColumn(db, db.schema.createTable("mail_outbox"))
    .addColumn("to_address", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("html", "text", (c) => c.notNull())
    .addColumn("sent_at", "text", (c) => c.notNull())
    .execute();
  // /dev/mailbox.json?to=EMAIL matches without regard to case.
  await db.schema
    .createIndex("mail_outbox_to_address_idx")
    .on("mail_outbox")
    .expression(sql`lower(to_address)`)
    .execute();

  await withIdColumn(db, db.schema.createTable("one_time_tokens"))
    .addColumn("purpose", "text", (c) => c.notNull().check(sql`purpose in ('reset', 'set_password', 'sso')`))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("one_time_tokens_user_id_idx").on("one_time_tokens").column("user_id").execute();
  await db.schema.createIndex("one_time_tokens_expires_at_idx").on("one_time_tokens").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["one_time_tokens", "mail_outbox", "verification_codes"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
