import type { Coupon, Plan } from "../../platform/db/schema";
import { renewalOf } from "../renewal-rule";
import type { Stripe, StripeSetup } from "./client";

// Our plans and coupons as Stripe prices and discounts.

/** The plan's billing interval at Stripe. */
export function stripeInterval(plan: Plan): Stripe.PriceCreateParams.Recurring {
  return plan.duration_months % 12 === 0
    ? { interval: "year", interval_count: plan.duration_months / 12 }
    : { interval: "month", interval_count: plan.duration_months };
}

/** The Stripe price of a plan at its current amount (looked up by key, created once). */
export async function priceForPlan(gateway: StripeSetup, plan: Plan): Promise<string> {
  const { stripe } = gateway;
  const lookupKey = `${plan.plan_id}_${plan.billing_type}_${plan.discounted_price_cents}`;
  const found = await stripe.prices.list({ lookup_keys: [lookupKey], active: true, limit: 1 });
  if (found.data[0]) return found.data[0].id;
  const price = await stripe.prices.create(
    {
      currency: "usd",
      unit_amount: plan.discounted_price_cents,
      lookup_key: lookupKey,
      product_data: { name: `VPN ${plan.title}` },
      ...(renewalOf(plan, "card").renews ? { recurring: stripeInterval(plan) } : {}),
      metadata: { plan_id: String(plan.id) },
    },
    { idempotencyKey: `price-${lookupKey}` },
  );
  return price.id;
}

/** The Stripe discount of one of our coupons: its promotion code (live), else a coupon made once. */
export async function discountForCoupon(gateway: StripeSetup, coupon: Coupon): Promise<Stripe.SubscriptionCreateParams.Discount> {
  if (coupon.stripe_promotion_code_id) return { promotion_code: coupon.stripe_promotion_code_id };
  const id = `portal_${coupon.code}`;
  try {
    await gateway.stripe.coupons.retrieve(id);
  } catch {
    await gateway.stripe.coupons.create(
      {
        id,
        name: coupon.code,
        duration: "once",
        ...(coupon.percent_off !== null
          ? { percent_off: coupon.percent_off }
          : { amount_off: coupon.amount_off_cents ?? 0, currency: "usd" }),
      },
      { idempotencyKey: `coupon-${id}` },
    );
  }
  return { coupon: id };
}
