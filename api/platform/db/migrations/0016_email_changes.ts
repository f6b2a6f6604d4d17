import { type Kysely, sql } from "kysely";
import { dialectOf, withIdColumn } from "../dialect";

/*
 * Changing the account's email (issue 22, docs/decisions/036).
 * - email_change_requests: one pending change per account, the address asked for; the code that
 *   confirms it is a verification_codes row of the account's current email with purpose
 *   'email_change' (so two accounts asking for the same address never share a code), and for an
 *   account without a password the code that authorises the start is purpose 'email_change_auth'.
 * - email_change_reverts: the 7-day link in 'Your email address was changed' that puts the old
 *   address back; only the sha256 of its token is stored; used_at makes it single-use.
 * SQLite cannot alter a CHECK constraint: verification_codes is rebuilt there, as in 0006 and 0009.
 */
const PURPOSES_BEFORE = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor')`;
const PURPOSES_AFTER = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor', 'email_change', 'email_change_auth')`;

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

  await db.schema
    .createTable("email_change_requests")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("new_email", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable("email_change_reverts"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("old_email", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("email_change_reverts_user_idx").on("email_change_reverts").column("user_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("email_change_reverts").ifExists().execute();
  await db.schema.dropTable("email_change_requests").ifExists().execute();
  if (dialectOf(db) === "postgres") {
    await sql`delete from verification_codes where purpose in ('email_change', 'email_change_auth')`.execute(db);
  }
  await setPurposes(db, PURPOSES_BEFORE);
}
