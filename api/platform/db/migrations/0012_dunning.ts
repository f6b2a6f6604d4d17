import type { Kysely } from "kysely";

/*
 * Failed renewals (issue 20, docs/decisions/027): a card subscription whose renewal invoice is unpaid
 * is past due from `past_due_since` and stays Premium until `grace_until`; `past_due_invoice_id` is the
 * open invoice to pay, `payment_failure_message` the bank's last word on it and `past_due_payment_method`
 * the card it was charged to. All null while paid up.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("subscriptions").addColumn("past_due_since", "text").execute();
  await db.schema.alterTable("subscriptions").addColumn("grace_until", "text").execute();
  await db.schema.alterTable("subscriptions").addColumn("past_due_invoice_id", "text").execute();
  await db.schema.alterTable("subscriptions").addColumn("payment_failure_message", "text").execute();
  await db.schema.alterTable("subscriptions").addColumn("past_due_payment_method", "text").execute();
  // The scheduled job looks for grace periods that have passed.
  await db.schema.createIndex("subscriptions_grace_idx").on("subscriptions").columns(["grace_until"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("subscriptions_grace_idx").ifExists().execute();
  for (const column of ["past_due_payment_method", "payment_failure_message", "past_due_invoice_id", "grace_until", "past_due_since"]) {
    await db.schema.alterTable("subscriptions").dropColumn(column).execute();
  }
}
