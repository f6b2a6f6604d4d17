import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Crypto payments: our record of every BitPay invoice (a first purchase or a renewal), and the
 * crypto sandbox's own state. Same portable conventions as 0001.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("crypto_invoices"))
    // Our public id: the due-invoice page's /subscription/bitpay-pay-due-invoice/{uuid}.
    .addColumn("uuid", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("plan_id", "integer", (c) => c.notNull().references("plans.id"))
    // 'purchase' | 'renewal'
    .addColumn("kind", "text", (c) => c.notNull())
    // The subscription a renewal extends (null for a purchase until it is paid).
    .addColumn("subscription_id", "integer", (c) => c.references("subscriptions.id").onDelete("set null"))
    // One renewal invoice per subscription and period: claimed once, whatever the number of workers.
    .addColumn("renewal_key", "text", (c) => c.unique())
    .addColumn("amount_cents", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull().defaultTo("USD"))
    // BitPay's invoice: its id, page and last known status (new, paid, confirmed, complete, expired, invalid).
    .addColumn("bitpay_invoice_id", "text", (c) => c.unique())
    .addColumn("invoice_url", "text")
    .addColumn("status", "text", (c) => c.notNull())
    // BitPay's exceptionStatus when a payment came late, short or over (paidLate, paidPartial, paidOver).
    .addColumn("exception_status", "text")
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("activated_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("crypto_invoices_user_id_idx").on("crypto_invoices").column("user_id").execute();

  // The crypto sandbox's invoices (as BitPay answers them), JSON.
  await db.schema
    .createTable("bitpay_sandbox_invoices")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created", "integer", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("bitpay_sandbox_invoices").ifExists().execute();
  await db.schema.dropTable("crypto_invoices").ifExists().execute();
}
