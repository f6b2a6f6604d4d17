import { type Kysely, sql } from "kysely";
import { dialectOf, withIdColumn } from "../dialect";

/*
 * Cancel without signing in (issue 22, docs/decisions/038).
 * - verification_codes.purpose may be 'cancel': the code emailed by /cancel has its own row, so it
 *   neither replaces a sign-in code nor waits on its 30 s gate, and cannot be used to sign in (the
 *   table is rebuilt on SQLite, which cannot alter a CHECK constraint, as in 0006 and 0009).
 * - cancel_proofs: what a right 'cancel' code earns: a random token (only its sha256 is stored) that
 *   can do nothing but show the account's subscription and turn its auto-renewal off, for 15 minutes
 *   (real time), used up by the turn-off. It is not a session: no device row, no bearer token.
 */
const PURPOSES_BEFORE = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor', 'email_change', 'email_change_auth')`;
const PURPOSES_AFTER = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor', 'email_change', 'email_change_auth', 'cancel')`;

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
  await withIdColumn(db, db.schema.createTable("cancel_proofs"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .execute();
  await db.schema.createIndex("cancel_proofs_expires_at_idx").on("cancel_proofs").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("cancel_proofs").ifExists().execute();
  if (dialectOf(db) === "postgres") await sql`delete from verification_codes where purpose = 'cancel'`.execute(db);
  await setPurposes(db, PURPOSES_BEFORE);
}
