import type { Kysely } from "kysely";

/*
 * The account's language (issue 36, docs/decisions/064): en (the default, every existing account), de, fr
 * or es. The API writes its emails, invoices and answers for the account in it. The set of languages is
 * checked in code (zod, api/platform/i18n.ts), not by the database, so that adding one needs no migration.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("language", "text", (c) => c.notNull().defaultTo("en")).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").dropColumn("language").execute();
}
