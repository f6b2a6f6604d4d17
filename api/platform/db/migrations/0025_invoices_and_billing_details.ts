import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Invoices a business can file (issue 35, docs/decisions/060).
 * - document_counters: one row per (series, year): the last number given in that series ('INV' for
 *   invoices, 'CN' for credit notes). A number is taken by `UPDATE … SET value = value + 1 RETURNING`
 *   in the transaction that records its document, so numbers commit gap-free and are never reused.
 * - invoices: what the invoice says, copied when it is made and never changed afterwards: net, VAT
 *   rate (null: no VAT line charged) and VAT amount, the period it covers, the plan's title, the
 *   payment method, and the buyer's billing details as they were. Rows made before 0025 keep their
 *   numbers and have these null (the PDF falls back to the account's email and net = total).
 * - billing_details: the account's billing details (one row per account): country (ISO 3166-1
 *   alpha-2), name, address, VAT number and what its check said (valid, invalid, unchecked).
 * - credit_notes: a refund's credit note: its own number (CN-…), the invoice it corrects, the amount.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("document_counters")
    .addColumn("series", "text", (c) => c.notNull())
    .addColumn("year", "integer", (c) => c.notNull())
    .addColumn("value", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("document_counters_pkey", ["series", "year"])
    .execute();

  const columns: [string, "text" | "integer"][] = [
    ["net_cents", "integer"],
    ["vat_rate", "text"],
    ["vat_cents", "integer"],
    ["period_start", "text"],
    ["period_end", "text"],
    ["plan_title", "text"],
    ["payment_method", "text"],
    ["buyer_email", "text"],
    ["buyer_name", "text"],
    ["buyer_address", "text"],
    ["buyer_country", "text"],
    ["buyer_vat_number", "text"],
  ];
  for (const [name, type] of columns) await db.schema.alterTable("invoices").addColumn(name, type).execute();

  await db.schema
    .createTable("billing_details")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("country", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("address", "text")
    .addColumn("vat_number", "text")
    .addColumn("vat_number_status", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable("credit_notes"))
    .addColumn("number", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("invoice_id", "integer", (c) => c.notNull().unique().references("invoices.id").onDelete("cascade"))
    .addColumn("amount_cents", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("credit_notes").ifExists().execute();
  await db.schema.dropTable("billing_details").ifExists().execute();
  for (const name of [
    "buyer_vat_number",
    "buyer_country",
    "buyer_address",
    "buyer_name",
    "buyer_email",
    "payment_method",
    "plan_title",
    "period_end",
    "period_start",
    "vat_cents",
    "vat_rate",
    "net_cents",
  ]) {
    await db.schema.alterTable("invoices").dropColumn(name).execute();
  }
  await db.schema.dropTable("document_counters").ifExists().execute();
}
