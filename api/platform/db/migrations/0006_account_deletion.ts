import { type Kysely, sql } from "kysely";
import { dialectOf, withIdColumn } from "../dialect";

/*
 * Account deletion (docs/decisions/015).
 * - users.deleted_at: a deleted account keeps its row, anonymised, so that the payment records the
 *   law makes us keep (transactions, invoices, subscriptions) still have a user_id to point to; the
 *   row then holds no personal data.
 * - verification_codes.purpose may be 'delete': the code that confirms deleting an account without
 *   a password has its own row, so it neither replaces a sign-in code nor waits on its 30 s gate, and
 *   cannot be used to sign in. SQLite cannot alter a CHECK constraint: the table is rebuilt there.
 */
const PURPOSES_BEFORE = sql`purpose in ('signup', 'login', 'reset', 'set_password')`;
const PURPOSES_AFTER = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete')`;

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
  await db.schema.alterTable("users").addColumn("deleted_at", "text").execute();
  await setPurposes(db, PURPOSES_AFTER);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "postgres") await sql`delete from verification_codes where purpose = 'delete'`.execute(db);
  await setPurposes(db, PURPOSES_BEFORE);
  await db.schema.alterTable("users").dropColumn("deleted_at").execute();
}
