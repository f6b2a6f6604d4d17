import type { Express } from "express";
import type { ApiContext } from "../context";
import type { Subscription } from "../db/schema";
import { asyncHandler, sendOk } from "../lib/http";
import { defineRoute } from "../lib/routing";
import { getAuth, requireAuth } from "../lib/sessions";

export interface PublicSubscription {
  id: number;
  title: string;
  plan_id: number;
  subscription_by: Subscription["subscription_by"];
  subs_status: string;
  billing_type: Subscription["billing_type"];
  stripe_sub_id: string | null;
  sub_start_date: string;
  sub_exp_date: string;
}

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

export function registerSubscriptionRoutes(app: Express, ctx: ApiContext): void {
  const { db, clock } = ctx;

  // The user's subscription with the latest expiry still after the product's clock, else null.
  defineRoute(app, "/api/subscription/active", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (_req, res) => {
        const { user } = getAuth(res);
        const now = clock.now();
        const row = await db
          .selectFrom("subscriptions")
          .selectAll()
          .where("user_id", "=", user.id)
          .where("sub_exp_date", ">", now.toISOString())
          .orderBy("sub_exp_date", "desc")
          .orderBy("id", "desc")
          .limit(1)
          .executeTakeFirst();
        // `now` is the product's time (the sandbox test clock can move it), so clients count days from it.
        sendOk(res, { subscription: row ? publicSubscription(row) : null, now: now.toISOString() });
      }),
    ],
  });
}
