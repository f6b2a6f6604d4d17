import type { ExpressionBuilder } from "kysely";
import { z } from "zod";
import type { Database } from "../platform/db";
import { type Param, prepare } from "../platform/db/prepared";
import type { DB } from "../platform/db/schema";
import type { Plan, Subscription } from "../platform/db/schema";
import { dollars } from "./money";
import { PaymentTermsSchema, paymentTermsOf } from "./renewal-rule";

export { dollars } from "./money";

/** A plan as commerce §3 lists its fields. Prices are USD numbers with two decimals. */
export const PlanSchema = z
  .strictObject({
    id: z.int(),
    plan_id: z.string().meta({ description: "The plan's code (vpn_1_month, ...)." }),
    slug: z.string().meta({ examples: ["1-month", "2-years"] }),
    title: z.string(),
    desktop_label: z.string().meta({ description: "The label with its free months, e.g. '2 Years (+3 Months Free)'." }),
    description: z.string().meta({ description: "Contains the per-month price ('$4.49/month, ...')." }),
    billing_type: z.enum(["recurring", "single"]).meta({ description: "single: one payment, never renews." }),
    regular_price: z.number().meta({ description: "USD, before the discount (from regular_price_cents)." }),
    regular_price_cents: z.int().meta({ description: "Cents, before the discount." }),
    discounted_price: z.number().meta({ description: "USD, what the plan costs (from discounted_price_cents)." }),
    discounted_price_cents: z.int().meta({ description: "Cents, what the plan costs." }),
    savings_cents: z.int().meta({ description: "regular_price_cents - discounted_price_cents." }),
    discount_percent: z.int().meta({ description: "round(100 - discounted × 100 / regular); 0 when the regular price is 0 (commerce §5)." }),
    per_month_price_cents: z.int().meta({ description: "The discounted price over the paid months, rounded to the cent (the description's '$4.49/month')." }),
    duration_months: z.int().meta({ description: "The months one payment pays for." }),
    extra_months: z.int().meta({ description: "The free months the first payment adds." }),
    payment_terms: PaymentTermsSchema,
    discount_tag_label: z.string().meta({ examples: ["Save 63%"] }),
    save: z.string().meta({ examples: ["63%"] }),
    order_priority: z.int(),
    stripe_subscription: z
      .strictObject({
        id: z.int(),
        subscription_by: z.enum(["stripe", "paypal", "bitpay"]),
        subs_status: z.string(),
        sub_exp_date: z.string().meta({ format: "date-time" }),
        pending_plan_id: z.int().nullable().meta({ description: "A change to this plan waits for the next renewal (decision 028)." }),
        pending_change_at: z.string().nullable().meta({ format: "date-time", description: "When the pending change applies." }),
      })
      .optional()
      .meta({ description: "Present only on the signed-in user's current plan (their active subscription)." }),
  })
  .meta({ id: "Plan" });

/** round(100 − discounted × 100 / regular); 0 when the regular price is 0 (commerce §5). */
export function discountPercentOf(regularCents: number, discountedCents: number): number {
  if (!regularCents) return 0;
  // `+ 0` turns Math.round's -0 into 0.
  return Math.round(100 - (discountedCents * 100) / regularCents) + 0;
}

export type PublicPlan = z.infer<typeof PlanSchema>;

export function publicPlan(plan: Plan, current?: Subscription): PublicPlan {
  return {
    id: Number(plan.id),
    plan_id: plan.plan_id,
    slug: plan.slug,
    title: plan.title,
    desktop_label: plan.desktop_label,
    description: plan.description,
    billing_type: plan.billing_type,
    regular_price: dollars(plan.regular_price_cents),
    regular_price_cents: plan.regular_price_cents,
    discounted_price: dollars(plan.discounted_price_cents),
    discounted_price_cents: plan.discounted_price_cents,
    savings_cents: Math.max(0, plan.regular_price_cents - plan.discounted_price_cents),
    discount_percent: discountPercentOf(plan.regular_price_cents, plan.discounted_price_cents),
    per_month_price_cents: Math.round(plan.discounted_price_cents / Math.max(1, plan.duration_months)),
    duration_months: plan.duration_months,
    extra_months: plan.extra_months,
    payment_terms: paymentTermsOf(plan),
    discount_tag_label: plan.discount_tag_label,
    save: plan.save,
    order_priority: plan.order_priority,
    ...(current
      ? {
          stripe_subscription: {
            id: Number(current.id),
            subscription_by: current.subscription_by,
            subs_status: current.subs_status,
            sub_exp_date: current.sub_exp_date,
            pending_plan_id: current.pending_plan_id === null ? null : Number(current.pending_plan_id),
            pending_change_at: current.pending_change_at,
          },
        }
      : {}),
  };
}

export async function listPlans(db: Database): Promise<Plan[]> {
  return db.selectFrom("plans").selectAll().orderBy("order_priority").orderBy("id").execute();
}

const planById = prepare((db, param: Param<{ id: number }>) => db.selectFrom("plans").selectAll().where("id", "=", param("id")));

export async function findPlan(db: Database, id: number): Promise<Plan | undefined> {
  return planById.executeTakeFirst(db, { id });
}

/**
 * Whether a subscription gives the plan at `now`: paid through a later date, or past due (a renewal
 * failed) within its grace period, which keeps the account Premium while the payment is retried
 * (docs/decisions/027). Every check of "has an active plan" uses this.
 */
export function isActiveAt(now: Date) {
  const at = now.toISOString();
  return (eb: ExpressionBuilder<DB, "subscriptions">) =>
    eb.or([eb("subscriptions.sub_exp_date", ">", at), eb("subscriptions.grace_until", ">", at)]);
}

/** The user's subscription with the latest expiry still after `now` (or within its grace period), if any. */
export async function activeSubscription(db: Database, userId: number, now: Date): Promise<Subscription | undefined> {
  const at = now.toISOString();
  return latestActiveSubscription.executeTakeFirst(db, { userId, at });
}

// Every signed-in page asks it (prepared once); the same condition as isActiveAt.
const latestActiveSubscription = prepare((db, param: Param<{ userId: number; at: string }>) =>
  db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", param("userId"))
    .where((eb) => eb.or([eb("subscriptions.sub_exp_date", ">", param("at")), eb("subscriptions.grace_until", ">", param("at"))]))
    .orderBy("sub_exp_date", "desc")
    .orderBy("id", "desc")
    .limit(1),
);
