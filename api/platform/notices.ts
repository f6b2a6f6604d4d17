import { type Database, isUniqueViolation } from "./db";

/**
 * Claims a notice (an email owed once: a reminder, a receipt, a warning) by its key. True for the one
 * caller that inserted the row and must send it; false when it was claimed already, by this instance
 * or another. Claim before sending: a notice is at most once (a lost email is better than a repeated one).
 */
export async function claimNotice(
  db: Database,
  notice: { key: string; kind: string; userId: number | null; now: Date },
): Promise<boolean> {
  try {
    await db
      .insertInto("notices")
      .values({ notice_key: notice.key, kind: notice.kind, user_id: notice.userId, created_at: notice.now.toISOString() })
      .execute();
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
