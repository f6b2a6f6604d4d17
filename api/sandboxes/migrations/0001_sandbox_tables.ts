import type { Kysely } from "kysely";

/*
 * The sandboxes' state: the Stripe sandbox's objects and the crypto sandbox's invoices, as JSON.
 * The product's 0004_commerce and 0005_crypto made these same tables before the sandboxes had a
 * migration set of their own (docs/decisions/024), and every database that ran them keeps them: so
 * each statement here is `if not exists`, a no-op there and the whole schema on a database that
 * never had them. Same portable conventions as the product's migrations (unix seconds, JSON text).
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One row per Stripe object (customer, payment method, subscription, invoice, event, ...).
  await db.schema
    .createTable("stripe_sandbox_objects")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("customer", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("stripe_sandbox_objects_type_idx")
    .ifNotExists()
    .on("stripe_sandbox_objects")
    .columns(["type", "customer"])
    .execute();

  // The crypto sandbox's invoices, as BitPay answers them.
  await db.schema
    .createTable("bitpay_sandbox_invoices")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created", "integer", (c) => c.notNull())
    .execute();
}

// No down(): on a database that 0004/0005 migrated these tables are also the product's history's.
