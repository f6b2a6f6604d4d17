import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Two-factor authentication (TOTP, RFC 6238; docs/decisions/017).
 * - two_factor: one row per account that has started or finished setting it up. Secrets are stored
 *   only encrypted (AES-256-GCM under TWO_FACTOR_ENCRYPTION_KEY). last_used_step is the newest
 *   30-second time step accepted, so a code is accepted once.
 * - two_factor_recovery_codes: sha256 of each high-entropy recovery code; used_at once used.
 * - two_factor_challenges: a sign-in that proved the first factor and waits for the second. Only
 *   the sha256 of the opaque challenge id is stored; real-time expiry; wrong attempts counted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("two_factor")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("secret_ciphertext", "text")
    .addColumn("pending_secret_ciphertext", "text")
    .addColumn("pending_created_at", "text")
    .addColumn("enabled_at", "text")
    .addColumn("last_used_step", "integer")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable("two_factor_recovery_codes"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("used_at", "text")
    .addUniqueConstraint("two_factor_recovery_codes_user_id_code_hash_key", ["user_id", "code_hash"])
    .execute();

  await withIdColumn(db, db.schema.createTable("two_factor_challenges"))
    .addColumn("challenge_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    // Which sign-in made it (password, code, google, apple): for the logs and the decision record.
    .addColumn("purpose", "text", (c) => c.notNull())
    // The device row the token will get once the second factor is proved (JSON).
    .addColumn("device", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("two_factor_challenges_user_id_idx").on("two_factor_challenges").column("user_id").execute();
  await db.schema.createIndex("two_factor_challenges_expires_at_idx").on("two_factor_challenges").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["two_factor_challenges", "two_factor_recovery_codes", "two_factor"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
