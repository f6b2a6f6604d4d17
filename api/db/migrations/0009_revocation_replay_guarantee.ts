import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

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
 */
export async function up(db: Kysely<any>): Promise<void> {
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
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("refund_guarantee_uses").ifExists().execute();
  await db.schema.dropTable("used_id_tokens").ifExists().execute();
  await db.schema.dropIndex("one_time_tokens_token_id_idx").ifExists().execute();
  await db.schema.alterTable("one_time_tokens").dropColumn("token_id").execute();
}
