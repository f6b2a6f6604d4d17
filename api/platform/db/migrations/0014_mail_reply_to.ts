import type { Kysely } from "kysely";

/*
 * The contact form (issue 21): a message to support has its sender as Reply-To. The mail sandbox keeps
 * that header too, so that what a live SMTP server would get can be read at /dev/mailbox.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("mail_outbox").addColumn("reply_to", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("mail_outbox").dropColumn("reply_to").execute();
}
