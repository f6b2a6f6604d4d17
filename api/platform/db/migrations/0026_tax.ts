import type { Kysely } from "kysely";

/*
 * Tax (issue 35, docs/decisions/061). The invoice already records net_cents, vat_rate and vat_cents
 * (0025); it gains what the tax was for and the evidence behind it, copied when the payment is recorded:
 * - tax_country: the country whose VAT was charged (or reverse charged); null where none applied;
 * - reverse_charge: 1 when an EU business with a valid VAT number accounts for the VAT itself (the
 *   invoice then prints the reverse-charge note);
 * - card_country: the country of the card that paid, as the gateway told it (card payments), and
 *   country_mismatch: 1 when it differs from the billing country taxed. Kept as evidence of where the
 *   customer is (OSS asks for two pieces of it); a mismatch never blocks a payment.
 * - crypto_invoices: the tax of the amount asked, computed when the invoice is made (the crypto quote),
 *   so the payment records the tax it was asked with: net_cents, vat_cents, vat_rate, tax_country,
 *   reverse_charge (rows from before 0026: net = amount, no VAT). paypal_checkouts the same: the
 *   first payment's tax, whose rate PayPal's renewals of that subscription are billed at.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("invoices").addColumn("tax_country", "text").execute();
  await db.schema.alterTable("invoices").addColumn("reverse_charge", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("invoices").addColumn("card_country", "text").execute();
  await db.schema.alterTable("invoices").addColumn("country_mismatch", "integer", (c) => c.notNull().defaultTo(0)).execute();
  for (const table of ["crypto_invoices", "paypal_checkouts"]) await addTaxColumns(db, table);
}

async function addTaxColumns(db: Kysely<any>, table: string): Promise<void> {
  await db.schema.alterTable(table).addColumn("net_cents", "integer").execute();
  await db.schema.alterTable(table).addColumn("vat_cents", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable(table).addColumn("vat_rate", "text").execute();
  await db.schema.alterTable(table).addColumn("tax_country", "text").execute();
  await db.schema.alterTable(table).addColumn("reverse_charge", "integer", (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ["reverse_charge", "tax_country", "vat_rate", "vat_cents", "net_cents"]) {
    for (const table of ["crypto_invoices", "paypal_checkouts"]) await db.schema.alterTable(table).dropColumn(name).execute();
  }
  for (const name of ["country_mismatch", "card_country", "reverse_charge", "tax_country"]) {
    await db.schema.alterTable("invoices").dropColumn(name).execute();
  }
}
