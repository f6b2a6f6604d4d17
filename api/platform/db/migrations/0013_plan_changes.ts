import type { Kysely } from "kysely";

/*
 * Plan changes (issue 20, docs/decisions/028): one claim row per account while a purchase of a
 * recurring plan runs, so that two purchases at once cannot both make a subscription (the primary
 * key is the lock); and the pending change of a subscription (a shorter plan from its next renewal,
 * a Stripe subscription schedule), which the portal shows until it applies or is cancelled.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("subscription_claims")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("claim_key", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.alterTable("subscriptions").addColumn("pending_plan_id", "integer").execute();
  await db.schema.alterTable("subscriptions").addColumn("pending_change_at", "text").execute();
  await db.schema.alterTable("subscriptions").addColumn("stripe_schedule_id", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("subscriptions").dropColumn("stripe_schedule_id").execute();
  await db.schema.alterTable("subscriptions").dropColumn("pending_change_at").execute();
  await db.schema.alterTable("subscriptions").dropColumn("pending_plan_id").execute();
  await db.schema.dropTable("subscription_claims").ifExists().execute();
}
