import type { Kysely } from "kysely";
import { withIdColumn } from "../dialect";

/*
 * Notices owed to customers over a subscription's life (issue 20): renewal reminders, card expiry
 * warnings, receipts, payment-failed and plan-ended emails. One row per notice, claimed by its unique
 * notice_key (say `renewal_reminder:<subscription>:<period end>`) before the email is sent, so several
 * instances running the scheduled jobs at once send each notice once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withIdColumn(db, db.schema.createTable("notices"))
    .addColumn("notice_key", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("user_id", "integer", (c) => c.references("users.id").onDelete("cascade"))
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("notices_user_idx").on("notices").columns(["user_id", "kind"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("notices").ifExists().execute();
}
