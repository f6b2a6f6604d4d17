import { describe, expect, it } from "vitest";
import { insertSubscription, type NewTestSubscription } from "../support/accounts";
import { databases, useApi } from "./harness";

const DAY = 86_400_000;
let subscriptions = 0;

describe.each(databases())("subscriptions and account ($name)", (kind) => {
  const t = useApi(kind);

  /** A card subscription at the test clock's time, each with its own Stripe id. */
  function subscribe(userId: number, values: Omit<NewTestSubscription, "now"> & { sub_exp_date: string }) {
    return insertSubscription(t.db, userId, { now: t.clock.now(), stripe_sub_id: `sub_test_${++subscriptions}`, ...values });
  }

  it("needs a bearer token", async () => {
    expect((await t.post("/api/subscription/active")).status).toBe(401);
    expect((await t.post("/api/account/link-list")).status).toBe(401);
  });

  it("has no active subscription for the demo account", async () => {
    const token = await t.login("demo@example.com", "demo-password");
    const res = await t.post("/api/subscription/active", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, success: true, message: expect.any(String), data: { subscription: null, now: expect.any(String), next_charge: null, ends_on: null, pending_change: null, ended_plan: null } });
  });

  it("returns the subscription with the latest expiry still in the future, by the product's clock", async () => {
    const userId = await t.createUser({ email: "sub@example.com", password: "sub-password" });
    const other = await t.createUser({ email: "other@example.com", password: "other-password" });
    const token = await t.login("sub@example.com", "sub-password");
    const now = t.clock.now().getTime();

    // Expired: not returned.
    await subscribe(userId, {
      sub_start_date: new Date(now - 40 * DAY).toISOString(),
      sub_exp_date: new Date(now - 10 * DAY).toISOString(),
      title: "1 Month",
      plan_id: 1,
    });
    // Someone else's: not returned.
    await subscribe(other, { sub_exp_date: new Date(now + 900 * DAY).toISOString() });
    const none = (await t.post("/api/subscription/active", { token })).body.data;
    expect(none.subscription).toBeNull();
    // The plan that ended is named, with its end (docs/decisions/050).
    expect(none.ended_plan).toEqual({ title: "1 Month", ended_on: new Date(now - 10 * DAY).toISOString() });

    const soonExp = new Date(now + 20 * DAY).toISOString();
    const laterExp = new Date(now + 365 * DAY).toISOString();
    await subscribe(userId, { sub_exp_date: soonExp, title: "1 Month", plan_id: 1, stripe_sub_id: null });
    const laterId = await subscribe(userId, {
      sub_exp_date: laterExp,
      title: "1 Year",
      plan_id: 5,
      subscription_by: "bitpay",
      billing_type: "recurring",
      stripe_sub_id: null,
    });

    const res = await t.post("/api/subscription/active", { token });
    expect(res.status).toBe(200);
    // `now` is the product's clock, not the caller's: it moves with the (test) clock.
    expect(Math.abs(Date.parse(res.body.data.now) - t.clock.now().getTime())).toBeLessThan(5_000);
    expect(res.body.data.subscription).toEqual({
      id: laterId,
      title: "1 Year",
      plan_id: 5,
      subscription_by: "bitpay",
      subs_status: "active",
      billing_type: "recurring",
      stripe_sub_id: null,
      sub_start_date: expect.any(String),
      sub_exp_date: laterExp,
      // Crypto plans renew by invoice, not automatically.
      auto_renewable: false,
    });

    // Moving the product's clock past the expiry ends it (and does not sign anyone out).
    t.clock.advanceDays(366);
    try {
      const later = await t.post("/api/subscription/active", { token });
      expect(later.status).toBe(200);
      expect(later.body.data.subscription).toBeNull();
    } finally {
      t.clock.reset();
    }
  });

  it("lists no linked accounts yet", async () => {
    const token = await t.login("demo@example.com", "demo-password");
    const res = await t.post("/api/account/link-list", { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: true, success: true, message: expect.any(String), data: { linked: [] } });
  });
});
