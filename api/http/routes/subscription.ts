import { z } from "zod";
import { route } from "../contract/route";
import type { Subscription } from "../../platform/db/schema";
import { activeSubscription } from "../../payments/plans";

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
  })
  .meta({ id: "Subscription" });

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
      "The user's subscription with the latest sub_exp_date that is still after the product's current time, or null. No request body.",
    auth: true,
    success: {
      description: "The active subscription or null",
      data: z.strictObject({
        subscription: SubscriptionSchema.nullable(),
        now: z.string().meta({
          format: "date-time",
          description: "The product's current time (ISO 8601); count days left from it, not from the caller's clock.",
        }),
      }),
    },
    async handler({ ctx, auth }) {
      const now = ctx.clock.now();
      const row = await activeSubscription(ctx.db, auth.user.id, now);
      // `now` is the product's time (the sandbox test clock can move it), so clients count days from it.
      return { data: { subscription: row ? publicSubscription(row) : null, now: now.toISOString() } };
    },
  }),
];
