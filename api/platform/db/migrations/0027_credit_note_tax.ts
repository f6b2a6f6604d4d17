import type { Kysely } from "kysely";

/*
 * A credit note records the VAT it takes back (issue 35, docs/decisions/061): net_cents and vat_cents of the
 * amount refunded, the invoice's VAT share (half-up on the cent, once). Rows from before 0027: null, the PDF
 * takes the invoice's amounts in proportion, as it did.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("credit_notes").addColumn("net_cents", "integer").execute();
  await db.schema.alterTable("credit_notes").addColumn("vat_cents", "integer").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("credit_notes").dropColumn("vat_cents").execute();
  await db.schema.alterTable("credit_notes").dropColumn("net_cents").execute();
}
