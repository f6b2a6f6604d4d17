import type { Kysely } from "kysely";

/*
 * The account's language (issue 36, docs/decisions/064): en, de, fr or es, or null while the customer has
 * chosen none (every existing account): its emails and invoices are then English, and the portal gives it the
 * language the customer signs in with (docs/decisions/065). The set of languages is checked in code (zod,
 * api/platform/i18n.ts), not by the database, so that adding one needs no migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("language", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").dropColumn("language").execute();
}
