import { type Kysely, sql } from "kysely";
import { dialectOf, withIdColumn } from "../dialect";

/*
 * Adding a passkey asks again who is there; a password reset can remove passkeys (issue 30,
 * docs/decisions/037).
 * - verification_codes.purpose may be 'passkey': the code emailed to an account without a password
 *   to confirm adding a passkey; its own row, so it neither replaces nor unlocks another code (the
 *   table is rebuilt on SQLite, which cannot alter a CHECK constraint, as in 0006, 0009 and 0018).
 * - passkey_confirmations: what a right password (or emailed code), and second factor when two-factor
 *   is on, earns: the session (bearer token) that gave them may ask for registration options and add
 *   one passkey for a few minutes (real time). One row per session; adding the passkey uses it up.
 * - passkey_reviews: what a password reset earns: a random token (only its sha256 is stored) that can
 *   list the account's passkeys and remove them, for half an hour, without signing in.
 */
const PURPOSES_BEFORE = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor', 'email_change', 'email_change_auth', 'cancel')`;
const PURPOSES_AFTER = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor', 'email_change', 'email_change_auth', 'cancel', 'passkey')`;

async function setPurposes(db: Kysely<any>, check: typeof PURPOSES_AFTER): Promise<void> {
  if (dialectOf(db) === "postgres") {
    await sql`alter table verification_codes drop constraint verification_codes_purpose_check`.execute(db);
    await sql`alter table verification_codes add constraint verification_codes_purpose_check check (${check})`.execute(db);
    return;
  }
  await withIdColumn(db, db.schema.createTable("verification_codes_rebuilt"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("purpose", "text", (c) => c.notNull().check(check))
    .addColumn("code_hash", "text")
    .addColumn("code_salt", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sent_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text")
    .addColumn("is_checkout", "integer", (c) => c.check(sql`is_checkout in (0, 1)`))
    .addColumn("plan_id", "text")
    .addUniqueConstraint("verification_codes_email_purpose_key", ["email", "purpose"])
    .execute();
  const columns = sql`id, email, purpose, code_hash, code_salt, attempts, sent_at, expires_at, is_checkout, plan_id`;
  // Going back drops the rows the old check would refuse.
  await sql`insert into verification_codes_rebuilt (${columns}) select ${columns} from verification_codes where ${check}`.execute(db);
  await db.schema.dropTable("verification_codes").execute();
  await db.schema.alterTable("verification_codes_rebuilt").renameTo("verification_codes").execute();
  await db.schema.createIndex("verification_codes_sent_at_idx").on("verification_codes").column("sent_at").execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await setPurposes(db, PURPOSES_AFTER);

  await withIdColumn(db, db.schema.createTable("passkey_confirmations"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("token_id", "integer", (c) => c.notNull().unique().references("tokens.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable("passkey_reviews"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("passkey_reviews_expires_at_idx").on("passkey_reviews").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("passkey_reviews").ifExists().execute();
  await db.schema.dropTable("passkey_confirmations").ifExists().execute();
  if (dialectOf(db) === "postgres") await sql`delete from verification_codes where purpose = 'passkey'`.execute(db);
  await setPurposes(db, PURPOSES_BEFORE);
}
