import { describe, expect, it } from "vitest";
import { insertSubscription } from "../support/accounts";
import { databases, useApi } from "./harness";

// GET /api/account/checkout: the signed-in checkout in one call (issue 31). It must answer exactly what
// the five calls it replaces answer, so the portal can use either.
describe.each(databases())("account checkout in one call ($name)", (kind) => {
  const t = useApi(kind);

  it("needs a bearer token", async () => {
    expect((await t.get("/api/account/checkout?plan_id=6")).status).toBe(401);
    expect((await t.get("/api/account/checkout?plan_id=6", { token: "not-a-real-token" })).status).toBe(401);
  });

  it("answers what /api/plans/detail, /api/payments/config, /api/me, /api/payments/payment-methods and /api/subscription/active answer", async () => {
    const userId = await t.createUser({ email: "checkout@example.com", password: "checkout-password" });
    const token = await t.login("checkout@example.com", "checkout-password");
    const now = t.clock.now().toISOString();
    await insertSubscription(t.db, userId, { now: t.clock.now(), stripe_sub_id: "sub_test_checkout", days: 365 });
    await t.db
      .insertInto("payment_methods")
      .values({
        user_id: userId,
        payment_method_id: "pm_test_checkout",
        payment_gateway: "stripe",
        card_brand: "visa",
        card_last4: "4242",
        card_exp_month: 12,
        card_exp_year: 2030,
        billing_name: null,
        billing_postal: null,
        is_default: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();

    const checkout = await t.get("/api/account/checkout?plan_id=6", { token });
    expect(checkout.status).toBe(200);
    const [detail, config, me, cards, active] = await Promise.all([
      t.post("/api/plans/detail", { json: { planId: 6 } }),
      t.get("/api/payments/config"),
      t.get("/api/me", { token }),
      t.post("/api/payments/payment-methods", { token }),
      t.post("/api/subscription/active", { token }),
    ]);
    expect(checkout.body.data).toEqual({
      plan_data: detail.body.data.plan_data,
      term_ends_on: expect.any(String),
      gateway: config.body.data,
      user: me.body.data,
      saved_cards: cards.body.data,
      subscription: active.body.data.subscription,
      quotes: expect.any(Array),
    });
    // The quotes: the detail's, and with a saved card the saved card's too (issue 32).
    const methods = (quotes: Array<{ method: string }>) => quotes.map((q) => q.method);
    expect(methods(detail.body.data.quotes)).toEqual(["card", "wallet", "paypal", "crypto"]);
    expect(methods(checkout.body.data.quotes)).toEqual(["card", "saved_card", "wallet", "paypal", "crypto"]);
    expect(checkout.body.data.quotes.map((q: { amount_cents: number; renewal: unknown }) => [q.amount_cents, q.renewal === null])).toEqual([
      [10776, false],
      [10776, false],
      [10776, false],
      [10776, true],
      [10776, true],
    ]);
    // A coupon the checkout applied: every quote takes it off; one that cannot be used is left out.
    const withCoupon = await t.get("/api/account/checkout?plan_id=6&coupon=welcome10", { token });
    expect(withCoupon.body.data.quotes.map((q: { coupon_code: string; amount_cents: number }) => [q.coupon_code, q.amount_cents])).toEqual(
      Array(5).fill(["WELCOME10", 9698]),
    );
    const withBadCoupon = await t.get("/api/account/checkout?plan_id=6&coupon=NOPE", { token });
    expect(withBadCoupon.status).toBe(200);
    expect(withBadCoupon.body.data.quotes[0]).toMatchObject({ coupon_code: null, amount_cents: 10776 });
    // The product's clock runs: the two answers' ends of term are moments apart.
    expect(Math.abs(Date.parse(checkout.body.data.term_ends_on) - Date.parse(detail.body.data.term_ends_on))).toBeLessThan(60_000);
    expect(checkout.body.data.saved_cards).toHaveLength(1);
    expect(checkout.body.data.subscription.title).toBe("1 Year");
  });

  it("has no cards and no subscription for a new account", async () => {
    await t.createUser({ email: "fresh-checkout@example.com", password: "fresh-password" });
    const token = await t.login("fresh-checkout@example.com", "fresh-password");
    const checkout = await t.get("/api/account/checkout?plan_id=6", { token });
    expect(checkout.body.data).toMatchObject({ saved_cards: [], subscription: null, user: { email: "fresh-checkout@example.com" } });
  });

  it("refuses an unknown plan as /api/plans/detail does", async () => {
    await t.createUser({ email: "lost-checkout@example.com", password: "lost-password" });
    const token = await t.login("lost-checkout@example.com", "lost-password");
    const unknown = await t.get("/api/account/checkout?plan_id=999", { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors.code).toBe("not_found");
    expect((await t.get("/api/account/checkout?plan_id=abc", { token })).status).toBe(422);
  });
});
