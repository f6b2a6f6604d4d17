import type { Kysely } from "kysely";

/*
 * The business clock of sandbox mode (api/platform/clock.ts, SharedOffsetClock): one row holding how
 * far the test clock has been moved, so that every instance on the database agrees on the time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("sandbox_clock")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    // Milliseconds (bigint: years of offset overflow a 32-bit integer).
    .addColumn("offset_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.insertInto("sandbox_clock").values({ id: "business", offset_ms: 0 }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("sandbox_clock").ifExists().execute();
}
