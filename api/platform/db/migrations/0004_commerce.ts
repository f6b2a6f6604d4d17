import { type Kysely, sql } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Commerce: coupons, saved cards, transactions and invoices, payment idempotency, webhook
 * deduplication, the card gateway's customer per user, and the Stripe sandbox's own state. Same
 * portable conventions as 0001: ISO-8601 UTC text timestamps, integer 0/1 booleans, integer cents.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("users").addColumn("stripe_customer_id", "text").execute();
  await db.schema.createIndex("users_stripe_customer_id_key").unique().on("users").column("stripe_customer_id").execute();

  await withIdColumn(db, db.schema.createTable("coupons"))
    // Stored upper-case; codes are matched without regard to case.
    .addColumn("code", "text", (c) => c.notNull().unique())
    .addColumn("percent_off", "integer", (c) => c.check(sql`percent_off between 1 and 100`))
    .addColumn("amount_off_cents", "integer", (c) => c.check(sql`amount_off_cents > 0`))
    // Comma-separated plans.id values; null = every plan.
    .addColumn("plan_ids", "text")
    .addColumn("expires_at", "text")
    .addColumn("max_redemptions", "integer")
    .addColumn("times_redeemed", "integer", (c) => c.notNull().defaultTo(0))
    // Live Stripe: the promotion code this coupon maps to.
    .addColumn("stripe_promotion_code_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addCheckConstraint("coupons_one_discount", sql`(percent_off is null) <> (amount_off_cents is null)`)
    .execute();

  await withIdColumn(db, db.schema.createTable("payment_methods"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    // The gateway's id (Stripe pm_...).
    .addColumn("payment_method_id", "text", (c) => c.notNull().unique())
    .addColumn("payment_gateway", "text", (c) => c.notNull())
    .addColumn("card_brand", "text", (c) => c.notNull())
    .addColumn("card_last4", "text", (c) => c.notNull())
    .addColumn("card_exp_month", "integer", (c) => c.notNull())
    .addColumn("card_exp_year", "integer", (c) => c.notNull())
    .addColumn("billing_name", "text")
    .addColumn("billing_postal", "text")
    // card | applepay | googlepay
    .addColumn("wallet_payment_type", "text", (c) => c.notNull().defaultTo("card"))
    .addColumn("is_default", "integer", (c) => c.notNull().defaultTo(0).check(sql`is_default in (0, 1)`))
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("payment_methods_user_id_idx").on("payment_methods").column("user_id").execute();

  await db.schema
    .alterTable("subscriptions")
    .addColumn("amount_cents", "integer")
    .execute();
  await db.schema
    .alterTable("subscriptions")
    .addColumn("cancel_at_period_end", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("subscriptions").addColumn("coupon_code", "text").execute();
  await db.schema.createIndex("subscriptions_stripe_sub_id_key").unique().on("subscriptions").column("stripe_sub_id").execute();

  await withIdColumn(db, db.schema.createTable("transactions"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("plan_id", "integer", (c) => c.notNull().references("plans.id"))
    .addColumn("subscription_id", "integer", (c) => c.references("subscriptions.id").onDelete("set null"))
    .addColumn("amount_cents", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull().defaultTo("usd"))
    // 'paid' | 'Payment failed' (the spec's word) | 'refunded'
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("payment_gateway", "text", (c) => c.notNull())
    .addColumn("wallet_payment_type", "text")
    // What the gateway calls this payment (Stripe in_... for a subscription invoice, pi_... for a
    // one-time payment): one row per payment however often the webhook and the page report it.
    .addColumn("gateway_ref", "text", (c) => c.unique())
    .addColumn("coupon_code", "text")
    .addColumn("failure_message", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("transactions_user_id_idx").on("transactions").columns(["user_id", "created_at"]).execute();

  await withIdColumn(db, db.schema.createTable("invoices"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("transaction_id", "integer", (c) => c.notNull().unique().references("transactions.id").onDelete("cascade"))
    .addColumn("number", "text", (c) => c.notNull().unique())
    .addColumn("amount_cents", "integer", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull().defaultTo("usd"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("gateway_invoice_id", "text")
    .addColumn("hosted_invoice_url", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();

  // One payment per idempotency key: a double submit or a retry gets the first answer.
  await withIdColumn(db, db.schema.createTable("payment_requests"))
    .addColumn("idempotency_key", "text", (c) => c.notNull().unique())
    .addColumn("request_hash", "text", (c) => c.notNull())
    // 'pending' | 'done'
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  // Webhooks and notifications already handled (Stripe event ids, BitPay invoice events).
  await db.schema
    .createTable("webhook_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .execute();

  // The Stripe sandbox's objects (customers, payment methods, subscriptions, ...), as JSON.
  await db.schema
    .createTable("stripe_sandbox_objects")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("customer", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("stripe_sandbox_objects_type_idx")
    .on("stripe_sandbox_objects")
    .columns(["type", "customer"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "stripe_sandbox_objects",
    "webhook_events",
    "payment_requests",
    "invoices",
    "transactions",
    "payment_methods",
    "coupons",
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
