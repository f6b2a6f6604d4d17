import { z } from "zod";
import { route } from "../contract/route";
import { ApiError } from "../lib/http";
import { body, emailField, idField, requiredText } from "../lib/validation";
import { COUPON_MESSAGES, CouponQuoteSchema, checkCoupon, couponQuote } from "../payments/coupons";
import { PlanSchema, activeSubscription, findPlan, listPlans, publicPlan } from "../payments/plans";

export const PLAN_MESSAGES = {
  notFound: "This plan does not exist.",
} as const;

const planListRequest = body({
  email: emailField().optional().meta({
    description: "The spec's payload: the signed-in user's email. The bearer token decides whose plans these are.",
  }),
}).meta({ id: "PlanListRequest" });

const planDetailRequest = body({ planId: idField("plan id").meta({ description: "plans.id" }) }).meta({
  id: "PlanDetailRequest",
});

const couponRequest = body({
  code: requiredText("coupon code", { max: 64, required: "Please enter a coupon code." }).meta({
    description: "Any case; spaces around it are ignored.",
  }),
  planId: idField("plan id").meta({ description: "plans.id" }),
}).meta({ id: "CouponRequest" });

async function planOrNotFound(db: Parameters<typeof findPlan>[0], id: number) {
  const plan = await findPlan(db, id);
  if (!plan) throw new ApiError(404, PLAN_MESSAGES.notFound, { fields: { planId: [PLAN_MESSAGES.notFound] } });
  return plan;
}

export const planRoutes = [
  route({
    method: "get",
    path: "/api/plans",
    operationId: "productList",
    tags: ["Subscriptions"],
    summary: "The plans, for anonymous visitors (the spec's product list)",
    description: "Every plan, by order_priority. The same answer for everyone, so it may be cached.",
    auth: false,
    success: { description: "The plans", data: z.array(PlanSchema) },
    handler: async ({ ctx }) => ({ data: (await listPlans(ctx.db)).map((plan) => publicPlan(plan)) }),
  }),

  route({
    method: "post",
    path: "/api/subscription/plans",
    operationId: "subscriptionPlans",
    tags: ["Subscriptions"],
    summary: "The plans for the signed-in user (price_plan_data), the current one marked",
    description:
      "Every plan, by order_priority; the plan of the user's active subscription carries `stripe_subscription` (the spec shows the button 'Current Plan' for it).",
    auth: true,
    body: planListRequest,
    success: { description: "The plans (price_plan_data)", data: z.array(PlanSchema) },
    async handler({ ctx, auth }) {
      const [plans, current] = await Promise.all([
        listPlans(ctx.db),
        activeSubscription(ctx.db, auth.user.id, ctx.clock.now()),
      ]);
      return { data: plans.map((plan) => publicPlan(plan, current && Number(current.plan_id) === plan.id ? current : undefined)) };
    },
  }),

  route({
    method: "post",
    path: "/api/plans/detail",
    operationId: "planDetail",
    tags: ["Subscriptions"],
    summary: "One plan (plan_data)",
    auth: false,
    body: planDetailRequest,
    success: { description: "The plan", data: z.strictObject({ plan_data: PlanSchema }) },
    errors: { 404: `'${PLAN_MESSAGES.notFound}'` },
    handler: async ({ ctx, body: input }) => ({ data: { plan_data: publicPlan(await planOrNotFound(ctx.db, input.planId)) } }),
  }),

  route({
    method: "post",
    path: "/api/coupons/apply",
    operationId: "applyCoupon",
    tags: ["Subscriptions"],
    summary: "What a plan's first payment costs with a coupon",
    description:
      "Checks the coupon for the plan (known, not expired, not used up, valid for the plan) and answers the new total. Nothing is redeemed: the payment redeems it.",
    auth: false,
    body: couponRequest,
    success: { description: `'${COUPON_MESSAGES.applied}'`, data: CouponQuoteSchema },
    errors: {
      404: `'${PLAN_MESSAGES.notFound}'`,
      422: `Validation, or the coupon cannot be used (also under errors.fields.code): '${COUPON_MESSAGES.unknown}', '${COUPON_MESSAGES.expired}', '${COUPON_MESSAGES.usedUp}', 'This coupon does not apply to the {plan} plan.'`,
    },
    async handler({ ctx, body: input }) {
      const plan = await planOrNotFound(ctx.db, input.planId);
      const check = await checkCoupon(ctx.db, input.code, plan, ctx.clock.now());
      if (!check.ok) throw new ApiError(422, check.message, { fields: { code: [check.message] } });
      return { data: couponQuote(check, plan.id), message: COUPON_MESSAGES.applied };
    },
  }),
];
