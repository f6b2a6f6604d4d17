import type { Request, Response } from "express";
import { text } from "../../platform/i18n";
import { minutesOf } from "../../platform/rate-limit";
import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import type { ApiContext } from "../context";
import { DomainError } from "../../platform/errors";
import type { Reservation } from "../../platform/rate-limit";
import { bearerUserId } from "../../identity/sessions";
import { clientAddressKey } from "../../platform/trust-proxy";
import { body, emailField, idField, requiredText } from "../validation";
import { COUPON_MESSAGES, CouponQuoteSchema, checkCoupon, couponQuote, tooManyCouponAttempts } from "../../payments/coupons";
import { PlanSchema, activeSubscription, findPlan, listPlans, publicPlan } from "../../payments/plans";
import { PAYMENT_METHODS, type PaymentMethod, QuoteSchema, firstTermEnd, quotesFor } from "../../payments/terms";
import type { TaxTreatment } from "../../payments/tax";

export const PLAN_MESSAGES = {
  notFound: "This plan does not exist.",
} as const;

const planListRequest = body({
  email: emailField().optional().meta({
    description: "The spec's payload: the signed-in user's email. The bearer token decides whose plans these are.",
  }),
}).meta({ id: "PlanListRequest" });

const planDetailRequest = body({
  planId: idField("plan id").meta({ description: "plans.id" }),
  coupon: requiredText("coupon code", { max: 64, required: "Please enter a coupon code." })
    .optional()
    .meta({ description: "A coupon for the quotes (applied when it can be used; its tries count as at POST /api/coupons/apply)." }),
}).meta({
  id: "PlanDetailRequest",
});

const couponRequest = body({
  code: requiredText("coupon code", { max: 64, required: "Please enter a coupon code." }).meta({
    description: "Any case; spaces around it are ignored.",
  }),
  planId: idField("plan id").meta({ description: "plans.id" }),
}).meta({ id: "CouponRequest" });

const COUPON_TRIES = "couponTries";

/**
 * Every coupon try counts, before the code is looked at (so a parallel burst gets no more tries than
 * a sequence), against the client address and, when a live bearer token comes with it, the account:
 * 429 once either is over its limit. A try that finds a usable coupon is given back in the handler,
 * so the checkout's re-quotes of an applied coupon never run into it.
 */
async function limitCouponTries({ ctx, req, res }: { ctx: ApiContext; req: Request; res: Response }): Promise<void> {
  const { maxPerIp, maxPerAccount, windowSeconds } = ctx.config.coupons;
  const userId = await bearerUserId(ctx.db, req.headers.authorization);
  const limits: Array<[string, number]> = [[`coupon-try:ip:${clientAddressKey(req.ip)}`, maxPerIp]];
  if (userId !== null) limits.push([`coupon-try:user:${userId}`, maxPerAccount]);
  const reserved = await ctx.limiter.reserveAll(limits, windowSeconds);
  if ("retryAfterSeconds" in reserved) {
    const wait = reserved.retryAfterSeconds;
    throw new DomainError("rate_limited", tooManyCouponAttempts(wait), {
      headers: { "Retry-After": String(wait) },
      text: text("messages:coupons.tooManyAttempts", { count: minutesOf(wait) }),
    });
  }
  res.locals[COUPON_TRIES] = reserved.reservations;
}

/** What POST /api/plans/detail answers (also part of GET /api/account/checkout). */
export const PlanDetailFields = {
  plan_data: PlanSchema,
  term_ends_on: z.string().meta({
    format: "date-time",
    description:
      "When a first term bought now would end (the plan's months and its free months, from the product's current time): the checkout's 'Your first term ends on'.",
  }),
  quotes: z.array(QuoteSchema).meta({
    description:
      "The answer of POST /api/checkout/quote for each payment method the checkout offers (saved_card only to a signed-in account with a saved card; paypal and crypto when configured), with the coupon sent when it can be used (coupon_code null otherwise).",
  }),
};

/** Coupon tries count as at POST /api/coupons/apply, only when a coupon is sent (query or body). */
export async function limitCouponQuotes(args: { ctx: ApiContext; req: Request; res: Response }): Promise<void> {
  const sent = args.req.method === "GET" ? args.req.query.coupon : (args.req.body as { coupon?: unknown } | undefined)?.coupon;
  if (sent === undefined || sent === null || sent === "") return;
  await limitCouponTries(args);
}

/** A coupon try that found a usable coupon does not count. */
export async function releaseCouponTry(ctx: Pick<ApiContext, "limiter">, res: Response): Promise<void> {
  await ctx.limiter.release((res.locals[COUPON_TRIES] as Reservation[] | undefined) ?? []);
}

/** The methods the checkout offers: saved card only with a saved card, PayPal and crypto when configured. */
function offeredMethods(ctx: Pick<ApiContext, "paypal" | "crypto">, savedCards: number): PaymentMethod[] {
  return PAYMENT_METHODS.filter(
    (method) =>
      (method !== "saved_card" || savedCards > 0) && (method !== "paypal" || ctx.paypal !== null) && (method !== "crypto" || ctx.crypto !== null),
  );
}

/**
 * One plan, the end of a first term bought now and the quote of each method offered (with `coupon`
 * when it can be used: its try is then given back); 404 not_found for an unknown plan.
 */
export async function planDetailOf(
  ctx: Pick<ApiContext, "db" | "clock" | "paypal" | "crypto" | "limiter">,
  planId: number,
  opts: { savedCards?: number; coupon?: string; res?: Response; tax?: TaxTreatment } = {},
) {
  const plan = await planOrNotFound(ctx.db, planId);
  // The product's clock (the sandbox test clock moves it), counted as a payment records its period.
  const now = ctx.clock.now();
  const methods = offeredMethods(ctx, opts.savedCards ?? 0);
  let quotes = await quotesFor(ctx.db, plan, { methods, now, tax: opts.tax });
  if (opts.coupon) {
    try {
      quotes = await quotesFor(ctx.db, plan, { methods, now, coupon: opts.coupon, tax: opts.tax });
      if (opts.res) await releaseCouponTry(ctx, opts.res);
    } catch (error) {
      // A coupon that cannot be used (expired, used up since it was applied): the quotes without it.
      if (!(error instanceof DomainError) || error.code !== "coupon_invalid") throw error;
    }
  }
  return { plan_data: publicPlan(plan), term_ends_on: firstTermEnd(plan, now).toISOString(), quotes };
}

async function planOrNotFound(db: Parameters<typeof findPlan>[0], id: number) {
  const plan = await findPlan(db, id);
  if (!plan) throw new DomainError("not_found", PLAN_MESSAGES.notFound, { field: "planId" });
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
    before: limitCouponQuotes,
    body: planDetailRequest,
    success: { description: "The plan", data: z.strictObject(PlanDetailFields) },
    errors: { 404: `'${PLAN_MESSAGES.notFound}'`, 429: rateLimited("'Too many coupon attempts. Please try again in N minutes.' (with a coupon only)") },
    handler: async ({ ctx, res, body: input }) => ({ data: await planDetailOf(ctx, input.planId, { coupon: input.coupon, res }) }),
  }),

  route({
    method: "post",
    path: "/api/coupons/apply",
    operationId: "applyCoupon",
    tags: ["Subscriptions"],
    summary: "What a plan's first payment costs with a coupon",
    description:
      "Checks the coupon for the plan (known, not expired, not used up, valid for the plan) and answers the new total. Nothing is redeemed: the payment holds and redeems it. Every try counts against the client address and, with a bearer token, the account (COUPON_MAX_ATTEMPTS_PER_IP, COUPON_MAX_ATTEMPTS_PER_ACCOUNT per COUPON_ATTEMPT_WINDOW_SECONDS; defaults 20 per 10 minutes), before the code is looked at; a try that finds a usable coupon is given back.",
    auth: false,
    before: limitCouponTries,
    body: couponRequest,
    success: { description: `'${COUPON_MESSAGES.applied}'`, data: CouponQuoteSchema },
    errors: {
      404: `'${PLAN_MESSAGES.notFound}'`,
      422: `Validation, or the coupon cannot be used (also under errors.fields.code): '${COUPON_MESSAGES.invalid}', the same for an unknown, expired, used-up or other-plan coupon, so that the answer does not tell which codes exist`,
      429: rateLimited("'Too many coupon attempts. Please try again in N minutes.'"),
    },
    async handler({ ctx, res, body: input }) {
      const plan = await planOrNotFound(ctx.db, input.planId);
      const check = await checkCoupon(ctx.db, input.code, plan, ctx.clock.now());
      if (!check.ok) throw new DomainError("coupon_invalid", check.message, { field: "code" });
      // Not a guess: this try does not count.
      await ctx.limiter.release((res.locals[COUPON_TRIES] as Reservation[] | undefined) ?? []);
      return { data: couponQuote(check, plan.id), message: COUPON_MESSAGES.applied };
    },
  }),
];
