import { z } from "zod";
import { route } from "../contract/route";
import type { Plan, Subscription } from "../../platform/db/schema";
import { activeSubscription, dollars } from "../../payments/plans";
import { nextChargeOf } from "../../billing/notices";
import { EndedPlanSchema, endedPlanOf } from "../../billing/ended-plan";
import { TaxLineSchema } from "../../payments/tax";

export const SubscriptionSchema = z
  .strictObject({
    id: z.int(),
    title: z.string(),
    plan_id: z.int().meta({ description: "plans.id" }),
    subscription_by: z.enum(["stripe", "paypal", "bitpay"]),
    subs_status: z.string(),
    billing_type: z.enum(["recurring", "single"]),
    stripe_sub_id: z.string().nullable(),
    sub_start_date: z.string().meta({ format: "date-time" }),
    sub_exp_date: z.string().meta({ format: "date-time" }),
    auto_renewable: z.boolean().meta({
      description:
        "Whether auto-renewal can be turned off and on: a card or PayPal subscription. False for one-time and crypto plans, and for the 2-year plan paid once with PayPal (PayPal bills at most yearly).",
    }),
  })
  .meta({ id: "Subscription" });

/** 'Next charge' of the billing page and the home (docs/decisions/029). */
export const NextChargeFields = {
  next_charge: z
    .strictObject({
      amount: z.string().meta({ description: "What the renewal charges, VAT included, as shown: '$71.88'.", examples: ["$71.88"] }),
      amount_cents: z.int().meta({ description: "The same in cents: net_cents + tax_cents." }),
      net_cents: z.int().meta({ description: "The renewal before tax (the plan's price, or the plan a pending change renews as), in cents." }),
      tax_cents: z.int().meta({ description: "Its VAT at the subscription's treatment (its latest paid invoice's rate), in cents." }),
      tax: TaxLineSchema.nullable().meta({ description: "Its VAT line ('VAT 19 % (Germany)', 'VAT reverse charged'); null where no VAT applies." }),
      date: z.string().meta({ format: "date-time", description: "When the renewal charges (the plan's sub_exp_date)." }),
      card: z
        .strictObject({ brand: z.string(), last4: z.string() })
        .nullable()
        .meta({ description: "The card that pays: the subscription's card at Stripe, else the default card; null when none is saved." }),
    })
    .nullable()
    .meta({ id: "NextCharge", description: "The next automatic charge; null without an active subscription that renews by itself." }),
  ends_on: z.string().nullable().meta({
    format: "date-time",
    description: "When the plan ends, for an active subscription that does not renew by itself (auto-renewal off, one-time or crypto); else null.",
  }),
};

export const PlanBriefSchema = z.strictObject({ id: z.int(), title: z.string(), discounted_price: z.number(), discounted_price_cents: z.int() }).meta({ id: "PlanBrief" });

export const PendingChangeSchema = z
  .strictObject({
    plan: PlanBriefSchema,
    effective_at: z.string().meta({ format: "date-time", description: "The renewal at which the new plan starts." }),
  })
  .nullable()
  .meta({ id: "PendingPlanChange", description: "A change to a shorter plan waiting for the next renewal, or null." });

export function brief(plan: Plan) {
  return { id: Number(plan.id), title: plan.title, discounted_price: dollars(plan.discounted_price_cents), discounted_price_cents: plan.discounted_price_cents };
}

/** The change waiting for the renewal (decision 028), with its plan's title; null when none. */
export async function pendingOf(findTitle: (id: number) => Promise<Plan | undefined>, row: Subscription) {
  if (row.pending_plan_id === null || !row.pending_change_at) return null;
  const plan = await findTitle(Number(row.pending_plan_id));
  return plan ? { plan: brief(plan), effective_at: row.pending_change_at } : null;
}

export type PublicSubscription = z.infer<typeof SubscriptionSchema>;

export function publicSubscription(s: Subscription): PublicSubscription {
  return {
    id: Number(s.id),
    title: s.title,
    plan_id: Number(s.plan_id),
    subscription_by: s.subscription_by,
    subs_status: s.subs_status,
    billing_type: s.billing_type,
    stripe_sub_id: s.stripe_sub_id,
    sub_start_date: s.sub_start_date,
    sub_exp_date: s.sub_exp_date,
    auto_renewable: s.billing_type === "recurring" && (s.subscription_by === "stripe" || (s.subscription_by === "paypal" && s.paypal_sub_id !== null)),
  };
}

export const subscriptionRoutes = [
  // The user's subscription with the latest expiry still after the product's clock, else null.
  route({
    method: "post",
    path: "/api/subscription/active",
    operationId: "activeSubscription",
    tags: ["Subscriptions"],
    summary: "The active subscription",
    description:
      "The user's subscription with the latest sub_exp_date that is still after the product's current time, or null, with the change of plan waiting for its renewal (pending_change), and, without one, the plan that ended last (ended_plan). No request body.",
    auth: true,
    success: {
      description: "The active subscription or null",
      data: z.strictObject({
        subscription: SubscriptionSchema.nullable(),
        now: z.string().meta({
          format: "date-time",
          description: "The product's current time (ISO 8601); count days left from it, not from the caller's clock.",
        }),
        ...NextChargeFields,
        pending_change: PendingChangeSchema,
        ended_plan: EndedPlanSchema,
      }),
    },
    async handler({ ctx, auth }) {
      const now = ctx.clock.now();
      const row = await activeSubscription(ctx.db, auth.user.id, now);
      // `now` is the product's time (the sandbox test clock can move it), so clients count days from it.
      const next = await nextChargeOf(ctx.notices, row);
      const find = (id: number) => ctx.db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
      const pending_change = row ? await pendingOf(find, row) : null;
      const ended_plan = await endedPlanOf(ctx.db, auth.user.id, row !== undefined);
      return { data: { subscription: row ? publicSubscription(row) : null, now: now.toISOString(), ...next, pending_change, ended_plan } };
    },
  }),
];
