import { z } from "zod";
import type { Database } from "../platform/db";
import { type Param, prepare } from "../platform/db/prepared";

/*
 * 'Your plan ended on …' (issue 32, docs/decisions/050): an account without an active plan that had
 * one is told when it ended, and where to buy again; an account that never had a plan sees the
 * spec's texts as before. A plan ends at its sub_exp_date, or at the end of its grace period when a
 * renewal went unpaid (docs/decisions/027).
 */

export const EndedPlanSchema = z
  .strictObject({
    title: z.string().meta({ examples: ["1 Month"] }),
    ended_on: z.string().meta({ format: "date-time", description: "When the plan ended: its sub_exp_date, or the end of its grace period when a renewal went unpaid." }),
  })
  .nullable()
  .meta({
    id: "EndedPlan",
    description: "The account's plan that ended most recently, while it has no active one; null while a plan is active or when it never had one.",
  });

export type EndedPlan = z.infer<typeof EndedPlanSchema>;

// The account home of every account without an active plan asks it (prepared once: api/platform/db/prepared.ts).
const subscriptionEnds = prepare((db, param: Param<{ userId: number }>) =>
  db.selectFrom("subscriptions").select(["id", "title", "sub_exp_date", "grace_until"]).where("user_id", "=", param("userId")),
);

/** The plan that ended last, for an account whose subscriptions have all ended (`hasActive` false). */
export async function endedPlanOf(db: Database, userId: number, hasActive: boolean): Promise<EndedPlan> {
  if (hasActive) return null;
  const rows = await subscriptionEnds.execute(db, { userId });
  let latest: EndedPlan = null;
  for (const row of rows) {
    const endedOn = row.grace_until && row.grace_until > row.sub_exp_date ? row.grace_until : row.sub_exp_date;
    if (!latest || endedOn > latest.ended_on) latest = { title: row.title, ended_on: endedOn };
  }
  return latest;
}
