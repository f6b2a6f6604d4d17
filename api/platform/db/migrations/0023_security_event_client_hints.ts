import type { Kysely } from "kysely";

/*
 * Device names (issue 33): a security event keeps the browser's User-Agent client hints beside its
 * User-Agent (a short JSON text, null when none were sent), because only they tell Windows 11 from
 * Windows 10, and the real macOS and Android versions, when the activity log names the browser later.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("security_events").addColumn("client_hints", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("security_events").dropColumn("client_hints").execute();
}
