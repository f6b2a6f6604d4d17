import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Passkeys (WebAuthn, issue 22, docs/decisions/037).
 * - passkeys: an account's credentials: the credential id and COSE public key (base64url), the
 *   signature counter, the transports the browser reported (JSON), the customer's name for it, when it
 *   was added and last used, and the WebAuthn user handle the account's passkeys share.
 * - passkey_challenges: the challenges handed out with registration and sign-in options, found by the
 *   sha256 of an opaque id, used once (deleted when verified) and valid for a few minutes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("passkeys"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("credential_id", "text", (c) => c.notNull().unique())
    .addColumn("public_key", "text", (c) => c.notNull())
    .addColumn("counter", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("transports", "text")
    .addColumn("user_handle", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .execute();
  await db.schema.createIndex("passkeys_user_idx").on("passkeys").columns(["user_id"]).execute();

  await withIdColumn(db, db.schema.createTable("passkey_challenges"))
    .addColumn("id_hash", "text", (c) => c.notNull().unique())
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("user_handle", "text")
    .addColumn("challenge", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("passkey_challenges_expires_idx").on("passkey_challenges").columns(["expires_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("passkey_challenges").ifExists().execute();
  await db.schema.dropTable("passkeys").ifExists().execute();
}
