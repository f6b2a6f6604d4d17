import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * The 30-day money-back guarantee (docs/decisions/016). One row per account at most: the unique
 * user_id is the "once per account" rule and the claim that lets only one of many parallel posts
 * refund; the unique transaction_id ties it to the one payment refunded. Same portable conventions
 * as 0001.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("refunds"))
    .addColumn("user_id", "integer", (c) => c.notNull().unique().references("users.id").onDelete("cascade"))
    .addColumn("transaction_id", "integer", (c) => c.notNull().unique().references("transactions.id").onDelete("cascade"))
    // 'card' (refunded through the card gateway) | 'crypto' (a request that staff complete by hand)
    .addColumn("kind", "text", (c) => c.notNull())
    // card: 'pending' (claimed, gateway not yet confirmed) then 'refunded'; crypto: 'requested'
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("amount_cents", "integer", (c) => c.notNull())
    // Crypto only: where the customer asked the money to be sent.
    .addColumn("refund_address", "text")
    // Card only: the gateway's refund (Stripe re_...).
    .addColumn("gateway_refund_id", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("refunds_status_idx").on("refunds").columns(["kind", "status"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("refunds").ifExists().execute();
}
