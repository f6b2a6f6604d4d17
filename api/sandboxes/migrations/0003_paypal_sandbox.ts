import type { Kysely } from "kysely";

/*
 * The PayPal sandbox's state: one row per object (order, capture, product, plan, subscription, sale,
 * refund, a PayPal-Request-Id's stored answer, a pending webhook delivery), as JSON, like
 * stripe_sandbox_objects. `ref` is the object's parent (a capture's order, a sale's subscription, a
 * plan's product, a subscription's approval token), so that listing children is one indexed query.
 * Same portable conventions as the product's migrations (unix seconds, JSON text).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("paypal_sandbox_objects")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("ref", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("paypal_sandbox_objects_type_idx")
    .ifNotExists()
    .on("paypal_sandbox_objects")
    .columns(["type", "ref"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("paypal_sandbox_objects").ifExists().execute();
}
