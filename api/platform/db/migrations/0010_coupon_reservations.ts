import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Coupon limits held before the charge (security review, issue 17; docs/decisions/008).
 * - coupons.reserved: redemptions held by payments in progress. A payment takes a hold with one
 *   conditional UPDATE (times_redeemed + reserved < max_redemptions), so a parallel burst cannot
 *   take more than the limit; the hold becomes a redemption when paid, or is given back.
 * - coupon_reservations: one row per payment (its reservation_key derives from the payment's
 *   idempotency key or the crypto invoice), so a retry of one payment never takes a second hold.
 *   state: held | redeemed | released; a hold past expires_at (business time) is released.
 * - crypto_invoices.coupon_id / coupon_code: the coupon of a crypto purchase, so that paying it
 *   counts the redemption and records the discount like a card payment.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("coupons").addColumn("reserved", "integer", (c) => c.notNull().defaultTo(0)).execute();

  await withIdColumn(db, db.schema.createTable("coupon_reservations"))
    .addColumn("coupon_id", "integer", (c) => c.notNull().references("coupons.id").onDelete("cascade"))
    .addColumn("reservation_key", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("coupon_reservations_coupon_state_idx")
    .on("coupon_reservations")
    .columns(["coupon_id", "state", "expires_at"])
    .execute();

  await db.schema
    .alterTable("crypto_invoices")
    .addColumn("coupon_id", "integer", (c) => c.references("coupons.id").onDelete("set null"))
    .execute();
  await db.schema.alterTable("crypto_invoices").addColumn("coupon_code", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("crypto_invoices").dropColumn("coupon_code").execute();
  await db.schema.alterTable("crypto_invoices").dropColumn("coupon_id").execute();
  await db.schema.dropTable("coupon_reservations").ifExists().execute();
  await db.schema.alterTable("coupons").dropColumn("reserved").execute();
}
