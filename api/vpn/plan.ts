import { activeSubscription } from "../payments/plans";
import type { Database } from "../platform/db";

/** Whether the account has a plan at `now` (business time): payments' one rule (isActiveAt, grace period included). */
export async function hasPlan(db: Database, userId: number, now: Date): Promise<boolean> {
  return (await activeSubscription(db, userId, now)) !== undefined;
}
