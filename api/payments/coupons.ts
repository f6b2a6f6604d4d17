import { z } from "zod";
import type { Database } from "../db";
import type { Coupon, Plan } from "../db/schema";
import { dollars } from "./plans";

/*
 * Coupons: percent or amount off a plan's discounted price, limited to some plans, an expiry and a
 * number of redemptions. A coupon lowers the first payment; renewals are charged at the plan's
 * price. With live Stripe a coupon maps to a Stripe promotion code (stripe_promotion_code_id).
 */

export const COUPON_MESSAGES = {
  unknown: "This coupon code is not valid.",
  expired: "This coupon has expired.",
  usedUp: "This coupon can no longer be used.",
  notForPlan: (title: string) => `This coupon does not apply to the ${title} plan.`,
  applied: "Coupon applied.",
} as const;

/** The sandbox's coupon (DESIGN §2): 10 % off any plan, no limit. */
export const WELCOME_COUPON = { code: "WELCOME10", percent_off: 10 } as const;

/** How much a coupon takes off `cents` (never more than the price), rounded to the cent. */
export function couponDiscountCents(coupon: Pick<Coupon, "percent_off" | "amount_off_cents">, cents: number): number {
  const off = coupon.percent_off !== null ? Math.round((cents * coupon.percent_off) / 100) : (coupon.amount_off_cents ?? 0);
  return Math.min(cents, Math.max(0, off));
}

export function normaliseCouponCode(code: string): string {
  return code.trim().toUpperCase();
}

export type CouponCheck =
  | { ok: true; coupon: Coupon; priceCents: number; discountCents: number; totalCents: number }
  | { ok: false; message: string };

/** Whether `code` can be used for `plan` at `now`, and the total it gives. */
export async function checkCoupon(db: Database, code: string, plan: Plan, now: Date): Promise<CouponCheck> {
  const coupon = await db
    .selectFrom("coupons")
    .selectAll()
    .where("code", "=", normaliseCouponCode(code))
    .executeTakeFirst();
  if (!coupon) return { ok: false, message: COUPON_MESSAGES.unknown };
  if (coupon.expires_at && coupon.expires_at <= now.toISOString()) return { ok: false, message: COUPON_MESSAGES.expired };
  if (coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions) {
    return { ok: false, message: COUPON_MESSAGES.usedUp };
  }
  if (coupon.plan_ids !== null && !coupon.plan_ids.split(",").map(Number).includes(Number(plan.id))) {
    return { ok: false, message: COUPON_MESSAGES.notForPlan(plan.title) };
  }
  const priceCents = plan.discounted_price_cents;
  const discountCents = couponDiscountCents(coupon, priceCents);
  return { ok: true, coupon, priceCents, discountCents, totalCents: priceCents - discountCents };
}

/**
 * Counts one redemption, only while the limit allows it (one conditional update, so parallel
 * payments cannot exceed it). False when the coupon was used up meanwhile.
 */
export async function redeemCoupon(db: Database, couponId: number): Promise<boolean> {
  const result = await db
    .updateTable("coupons")
    .set((eb) => ({ times_redeemed: eb("times_redeemed", "+", 1) }))
    .where("id", "=", couponId)
    .where((eb) => eb.or([eb("max_redemptions", "is", null), eb("times_redeemed", "<", eb.ref("max_redemptions"))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Seeds WELCOME10 when it is missing (sandbox cards). */
export async function seedWelcomeCoupon(db: Database, now: Date): Promise<void> {
  await db
    .insertInto("coupons")
    .values({
      code: WELCOME_COUPON.code,
      percent_off: WELCOME_COUPON.percent_off,
      amount_off_cents: null,
      plan_ids: null,
      expires_at: null,
      max_redemptions: null,
      stripe_promotion_code_id: null,
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.column("code").doNothing())
    .execute();
}

export const CouponQuoteSchema = z
  .strictObject({
    code: z.string(),
    plan_id: z.int(),
    price: z.number().meta({ description: "The plan's discounted price, USD." }),
    discount_amount: z.number().meta({ description: "What the coupon takes off, USD." }),
    total: z.number().meta({ description: "What the first payment costs with the coupon, USD." }),
  })
  .meta({ id: "CouponQuote" });

export function couponQuote(check: Extract<CouponCheck, { ok: true }>, planId: number): z.infer<typeof CouponQuoteSchema> {
  return {
    code: check.coupon.code,
    plan_id: planId,
    price: dollars(check.priceCents),
    discount_amount: dollars(check.discountCents),
    total: dollars(check.totalCents),
  };
}
