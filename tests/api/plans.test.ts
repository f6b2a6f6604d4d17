import { describe, expect, it } from "vitest";
import { couponDiscountCents } from "../../api/payments/coupons";
import { insertSubscription } from "../support/accounts";
import { databases, useApi } from "./harness";

const DAY = 86_400_000;

describe("coupon maths", () => {
  it("takes a percentage of the price rounded to the cent, or a fixed amount, never below zero", () => {
    expect(couponDiscountCents({ percent_off: 10, amount_off_cents: null }, 10776)).toBe(1078); // 107.76 -> 10.776
    expect(couponDiscountCents({ percent_off: 10, amount_off_cents: null }, 999)).toBe(100); // 9.99 -> 0.999
    expect(couponDiscountCents({ percent_off: 10, amount_off_cents: null }, 2697)).toBe(270);
    expect(couponDiscountCents({ percent_off: null, amount_off_cents: 500 }, 999)).toBe(500);
    expect(couponDiscountCents({ percent_off: null, amount_off_cents: 5000 }, 999)).toBe(999);
    expect(couponDiscountCents({ percent_off: 100, amount_off_cents: null }, 19900)).toBe(19900);
  });
});

describe.each(databases())("plans and coupons ($name)", (kind) => {
  const t = useApi(kind);

  it("lists the plans for anyone, with the spec's fields and prices in dollars", async () => {
    const res = await t.get("/api/plans");
    expect(res.status).toBe(200);
    const plans = res.body.data as Array<Record<string, unknown>>;
    expect(plans.map((p) => p.id)).toEqual([1, 2, 3, 5, 6, 7]);
    expect(plans.find((p) => p.id === 6)).toMatchObject({
      slug: "2-years",
      title: "2 Years",
      desktop_label: "2 Years (+3 Months Free)",
      billing_type: "recurring",
      regular_price: 287.76,
      discounted_price: 107.76,
      discount_tag_label: "Save 63%",
    });
    expect(plans.find((p) => p.id === 7)).toMatchObject({ billing_type: "single", discounted_price: 199 });
    expect(plans.every((p) => !("stripe_subscription" in p))).toBe(true);
  });

  it("marks the signed-in user's current plan with stripe_subscription", async () => {
    expect((await t.post("/api/subscription/plans", { json: {} })).status).toBe(401);
    const userId = await t.createUser({ email: "plans@example.com", password: "plans-password" });
    const token = await t.login("plans@example.com", "plans-password");
    let res = await t.post("/api/subscription/plans", { token, json: { email: "plans@example.com" } });
    expect(res.status).toBe(200);
    expect((res.body.data as Array<Record<string, unknown>>).some((p) => "stripe_subscription" in p)).toBe(false);

    const now = t.clock.now();
    await insertSubscription(t.db, userId, {
      now,
      plan_id: 6,
      title: "2 Years",
      subs_status: "subscription_started",
      stripe_sub_id: "sub_plans_test",
      days: 30,
    });
    res = await t.post("/api/subscription/plans", { token, json: {} });
    const marked = (res.body.data as Array<{ id: number; stripe_subscription?: unknown }>).filter((p) => p.stripe_subscription);
    expect(marked.map((p) => p.id)).toEqual([6]);
    expect(marked[0]!.stripe_subscription).toMatchObject({ subscription_by: "stripe", subs_status: "subscription_started" });

    // Once it has expired by the product's clock, no plan is current.
    t.clock.advanceDays(31);
    try {
      res = await t.post("/api/subscription/plans", { token, json: {} });
      expect((res.body.data as Array<Record<string, unknown>>).some((p) => "stripe_subscription" in p)).toBe(false);
    } finally {
      t.clock.reset();
    }
  });

  it("answers one plan as plan_data, 404 for an unknown one, 422 for a malformed id", async () => {
    const res = await t.post("/api/plans/detail", { json: { planId: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.data.plan_data).toMatchObject({ id: 5, title: "1 Year", discounted_price: 71.88 });
    expect((await t.post("/api/plans/detail", { form: { planId: "6" } })).body.data.plan_data.id).toBe(6);
    const missing = await t.post("/api/plans/detail", { json: { planId: 4 } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("This plan does not exist.");
    const bad = await t.post("/api/plans/detail", { json: { planId: "abc" } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.fields.planId).toEqual(["The plan id must be a number."]);
  });

  it("answers when a first term bought now ends, by the API's clock (free months included)", async () => {
    const at = (res: { body: { data: { term_ends_on: string } } }) => Date.parse(res.body.data.term_ends_on);
    const before = await t.post("/api/plans/detail", { json: { planId: 5 } });
    // 1 Year (+2 Months Free): about 14 months from now.
    const days = (at(before) - t.clock.now().getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(14 * 28);
    expect(days).toBeLessThan(14 * 31 + 1);
    t.clock.advanceDays(100);
    try {
      const after = await t.post("/api/plans/detail", { json: { planId: 5 } });
      const moved = (at(after) - at(before)) / 86_400_000;
      expect(moved).toBeGreaterThan(97);
      expect(moved).toBeLessThan(103);
    } finally {
      t.clock.reset();
    }
  });

  it("applies WELCOME10 (any case) to any plan: 10 % off the discounted price, rounded to cents", async () => {
    const res = await t.post("/api/coupons/apply", { json: { code: " welcome10 ", planId: 6 } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Coupon applied.");
    expect(res.body.data).toEqual({
      code: "WELCOME10",
      plan_id: 6,
      price: 107.76,
      price_cents: 10776,
      discount_amount: 10.78,
      discount_amount_cents: 1078,
      total: 96.98,
      total_cents: 9698,
    });
    const monthly = await t.post("/api/coupons/apply", { json: { code: "WELCOME10", planId: 1 } });
    expect(monthly.body.data).toMatchObject({ price: 9.99, discount_amount: 1, total: 8.99 });
  });

  it("answers one message for every coupon that cannot be used (no telling which codes exist)", async () => {
    const now = t.clock.now().toISOString();
    const coupon = (values: Record<string, unknown>) =>
      t.db
        .insertInto("coupons")
        .values({
          code: "X",
          percent_off: 20,
          amount_off_cents: null,
          plan_ids: null,
          expires_at: null,
          max_redemptions: null,
          stripe_promotion_code_id: null,
          created_at: now,
          ...values,
        })
        .execute();
    await coupon({ code: "OLD20", expires_at: new Date(Date.now() - DAY).toISOString() });
    await coupon({ code: "YEARLY20", plan_ids: "5,6" });
    await coupon({ code: "GONE20", max_redemptions: 1, times_redeemed: 1 });
    await coupon({ code: "FIVE", percent_off: null, amount_off_cents: 500 });

    const reason = async (code: string, planId = 1) => {
      const res = await t.post("/api/coupons/apply", { json: { code, planId } });
      expect(res.status, code).toBe(422);
      expect(res.body.errors.fields.code, code).toEqual([res.body.message]);
      return res.body.message as string;
    };
    expect(await reason("NOPE")).toBe("This coupon code is not valid.");
    expect(await reason("OLD20")).toBe("This coupon code is not valid.");
    expect(await reason("YEARLY20", 1)).toBe("This coupon code is not valid.");
    expect(await reason("GONE20")).toBe("This coupon code is not valid.");
    expect(await reason("")).toBe("Please enter a coupon code.");
    expect((await t.post("/api/coupons/apply", { json: { code: "YEARLY20", planId: 6 } })).body.data.total).toBe(86.21);
    expect((await t.post("/api/coupons/apply", { json: { code: "FIVE", planId: 1 } })).body.data.total).toBe(4.99);
  });
});
