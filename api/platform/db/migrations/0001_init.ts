import { type Kysely, sql } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Portable schema (SQLite and PostgreSQL): timestamps as ISO-8601 UTC text, booleans as integer
 * 0/1, money as integer cents, auto-increment ids via withIdColumn (serial | integer autoincrement).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("users"))
    .addColumn("email", "text", (c) => c.notNull().unique())
    .addColumn("name", "text")
    .addColumn("password_hash", "text")
    .addColumn("email_verified_at", "text")
    .addColumn("agreement_at", "text")
    .addColumn("newsletter", "integer", (c) => c.notNull().defaultTo(0).check(sql`newsletter in (0, 1)`))
    .addColumn("newsletter_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await withIdColumn(db, db.schema.createTable("devices"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("platform", "text", (c) => c.notNull())
    .addColumn("device_os", "text")
    .addColumn("device_os_version", "text")
    .addColumn("device_brand", "text")
    .addColumn("device_model", "text")
    .addColumn("user_agent", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_login_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("devices_user_id_idx").on("devices").column("user_id").execute();

  await withIdColumn(db, db.schema.createTable("tokens"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("device_id", "integer", (c) => c.notNull().references("devices.id").onDelete("cascade"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema.createIndex("tokens_user_id_idx").on("tokens").column("user_id").execute();
  await db.schema.createIndex("tokens_device_id_idx").on("tokens").column("device_id").execute();

  await db.schema
    .createTable("plans")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("plan_id", "text", (c) => c.notNull().unique())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("desktop_label", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("billing_type", "text", (c) => c.notNull().check(sql`billing_type in ('recurring', 'single')`))
    .addColumn("regular_price_cents", "integer", (c) => c.notNull())
    .addColumn("discounted_price_cents", "integer", (c) => c.notNull())
    .addColumn("discount_tag_label", "text", (c) => c.notNull())
    .addColumn("save", "text", (c) => c.notNull())
    .addColumn("order_priority", "integer", (c) => c.notNull())
    .addColumn("duration_months", "integer", (c) => c.notNull())
    .addColumn("extra_months", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("most_popular", "integer", (c) => c.notNull().defaultTo(0).check(sql`most_popular in (0, 1)`))
    .execute();

  await withIdColumn(db, db.schema.createTable("subscriptions"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("plan_id", "integer", (c) => c.notNull().references("plans.id"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("subscription_by", "text", (c) =>
      c.notNull().check(sql`subscription_by in ('stripe', 'paypal', 'bitpay')`),
    )
    .addColumn("subs_status", "text", (c) => c.notNull())
    .addColumn("billing_type", "text", (c) => c.notNull().check(sql`billing_type in ('recurring', 'single')`))
    .addColumn("stripe_sub_id", "text")
    .addColumn("sub_start_date", "text", (c) => c.notNull())
    .addColumn("sub_exp_date", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // The active-subscription lookup: by user, latest expiry first.
  await db.schema
    .createIndex("subscriptions_user_id_exp_idx")
    .on("subscriptions")
    .columns(["user_id", "sub_exp_date"])
    .execute();
  await db.schema.createIndex("subscriptions_plan_id_idx").on("subscriptions").column("plan_id").execute();

  await db.schema
    .createTable("rate_limits")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("count", "integer", (c) => c.notNull())
    .addColumn("reset_at", "text", (c) => c.notNull())
    .execute();
  // For sweeping expired windows.
  await db.schema.createIndex("rate_limits_reset_at_idx").on("rate_limits").column("reset_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["rate_limits", "subscriptions", "plans", "tokens", "devices", "users"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
