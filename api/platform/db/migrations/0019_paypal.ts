import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * PayPal (issue 23, docs/decisions/039).
 * - subscriptions.paypal_sub_id: the PayPal subscription (I-...) a subscription_by 'paypal' row renews
 *   through; unique like stripe_sub_id, null for every other gateway.
 * - paypal_plans: the PayPal billing plan of each of our plans (PayPal bills a subscription by a plan
 *   made beforehand), with the price it was made at, so a changed catalog price is put in step
 *   (update-pricing-schemes) before the next checkout.
 * - paypal_checkouts: our side of each PayPal checkout (an order, or a subscription waiting for approval):
 *   who, which plan, what it asks, the coupon and its hold, the page's idempotency key, and the status.
 *   Its id is the PayPal-Request-Id of the capture: a second return or a double submit captures once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("subscriptions").addColumn("paypal_sub_id", "text").execute();
  await db.schema.createIndex("subscriptions_paypal_sub_id_key").unique().on("subscriptions").column("paypal_sub_id").execute();

  await db.schema
    .createTable("paypal_plans")
    .addColumn("plan_id", "integer", (c) => c.primaryKey().references("plans.id"))
    .addColumn("paypal_product_id", "text", (c) => c.notNull())
    .addColumn("paypal_plan_id", "text", (c) => c.notNull().unique())
    .addColumn("price_cents", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable("paypal_checkouts"))
    .addColumn("checkout_id", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("plan_id", "integer", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text", (c) => c.notNull().unique())
    .addColumn("paypal_id", "text", (c) => c.unique())
    .addColumn("approve_url", "text")
    .addColumn("amount_cents", "integer", (c) => c.notNull())
    .addColumn("coupon_id", "integer")
    .addColumn("coupon_code", "text")
    .addColumn("coupon_hold_key", "text")
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("subscription_id", "integer")
    .addColumn("gateway_ref", "text")
    .addColumn("failure_message", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("paypal_checkouts_user_idx").on("paypal_checkouts").columns(["user_id", "status"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("paypal_checkouts").ifExists().execute();
  await db.schema.dropTable("paypal_plans").ifExists().execute();
  await db.schema.dropIndex("subscriptions_paypal_sub_id_key").ifExists().execute();
  await db.schema.alterTable("subscriptions").dropColumn("paypal_sub_id").execute();
}
