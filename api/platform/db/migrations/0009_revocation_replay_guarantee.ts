import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { dialectOf, withIdColumn } from "../dialect";

/*
 * Security review, issue 17.
 * - one_time_tokens.token_id: the bearer token (session) that made an SSO token, so that revoking a
 *   session retires what it made (lib/sessions.ts revokeSessions). Null for other purposes.
 * - used_id_tokens: Google/Apple ID tokens already used to sign in, kept until their `exp`, so the
 *   same token cannot sign in twice. The primary key (a sha256 of issuer and jti, or of the whole
 *   token when it has no jti) is the claim: of parallel uses one insert wins.
 * - refund_guarantee_uses: what honours "once per customer" after an account is deleted
 *   (docs/decisions/016): a keyed hash of the email of an account that had a refund, and the card
 *   fingerprints of refunded payments (also as keyed hashes). Nothing else; no user id, so it
 *   survives deletion and ties to no account.
 * - verification_codes.purpose may be 'two_factor': the emailed code that confirms turning
 *   two-factor on for an account without a password (its own row, like 'delete' in 0006; SQLite
 *   cannot alter a CHECK constraint, so the table is rebuilt there the same way).
 */
const PURPOSES_BEFORE = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete')`;
const PURPOSES_AFTER = sql`purpose in ('signup', 'login', 'reset', 'set_password', 'delete', 'two_factor')`;

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
  await db.schema.alterTable("one_time_tokens").addColumn("token_id", "integer").execute();
  await db.schema.createIndex("one_time_tokens_token_id_idx").on("one_time_tokens").column("token_id").execute();

  await db.schema
    .createTable("used_id_tokens")
    .addColumn("key_hash", "text", (c) => c.primaryKey())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("used_id_tokens_expires_at_idx").on("used_id_tokens").column("expires_at").execute();

  await withIdColumn(db, db.schema.createTable("refund_guarantee_uses"))
    // 'email' | 'card'
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("refund_guarantee_uses_kind_key_hash_key", ["kind", "key_hash"])
    .execute();
  // Refunds made before this migration: the emails of accounts that still exist (deleted ones have
  // none left; card fingerprints are only at the gateway). Same hash as billing/refunds.ts guaranteeKey.
  const refunded = await db
    .selectFrom("refunds")
    .innerJoin("users", "users.id", "refunds.user_id")
    .select("users.email")
    .where("users.deleted_at", "is", null)
    .execute();
  const now = new Date().toISOString();
  for (const { email } of refunded as { email: string }[]) {
    const keyHash = createHash("sha256").update(`vpn-portal refund-guarantee email v1:${email.trim().toLowerCase()}`, "utf8").digest("hex");
    await db
      .insertInto("refund_guarantee_uses")
      .values({ kind: "email", key_hash: keyHash, created_at: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === "postgres") await sql`delete from verification_codes where purpose = 'two_factor'`.execute(db);
  await setPurposes(db, PURPOSES_BEFORE);
  await db.schema.dropTable("refund_guarantee_uses").ifExists().execute();
  await db.schema.dropTable("used_id_tokens").ifExists().execute();
  await db.schema.dropIndex("one_time_tokens_token_id_idx").ifExists().execute();
  await db.schema.alterTable("one_time_tokens").dropColumn("token_id").execute();
}
