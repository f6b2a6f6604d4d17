import { describe, expect, it } from "vitest";
import { createApi } from "../../api/http/app";
import { PLANS } from "../../api/payments/catalog";
import { DEMO_EMAIL } from "../../api/sandboxes/seed";
import { LIVE_ESSENTIALS, databases, MemoryLogger, startApi, useApi } from "./harness";
import { TestClock } from "../support/clock";

describe.each(databases({ postgres: "explicit ids and upserts beside PostgreSQL's sequences" }))("seed ($name)", (kind) => {
  const t = useApi(kind);

  it("seeds the plans with ids 1, 2, 3, 5, 6, 7 (4 unused)", async () => {
    const plans = await t.db.selectFrom("plans").selectAll().orderBy("id").execute();
    expect(plans.map((p) => p.id)).toEqual([1, 2, 3, 5, 6, 7]);
    const bySlug = Object.fromEntries(plans.map((p) => [p.slug, p]));
    expect(Object.keys(bySlug)).toEqual(["1-month", "3-months", "6-months", "1-year", "2-years", "5-years"]);

    expect(bySlug["1-month"]).toMatchObject({
      id: 1,
      title: "1 Month",
      plan_id: "vpn_1_month",
      regular_price_cents: 1199,
      discounted_price_cents: 999,
      discount_tag_label: "Save 17%",
      save: "17%",
      billing_type: "recurring",
      order_priority: 1,
    });
    expect(bySlug["1-year"]).toMatchObject({
      id: 5,
      title: "1 Year",
      desktop_label: "1 Year (+2 Months Free)",
      regular_price_cents: 14388,
      discounted_price_cents: 7188,
      discount_tag_label: "Save 50%",
      extra_months: 2,
      most_popular: 0,
    });
    expect(bySlug["1-year"]?.description).toContain("$5.99/month");
    expect(bySlug["2-years"]).toMatchObject({
      id: 6,
      desktop_label: "2 Years (+3 Months Free)",
      regular_price_cents: 28776,
      discounted_price_cents: 10776,
      discount_tag_label: "Save 63%",
      extra_months: 3,
      most_popular: 1,
    });
    expect(bySlug["5-years"]).toMatchObject({
      id: 7,
      billing_type: "single",
      regular_price_cents: 71940,
      discounted_price_cents: 19900,
      discount_tag_label: "Save 72%",
    });
    expect(plans.filter((p) => p.most_popular === 1).map((p) => p.id)).toEqual([6]);
    expect(plans.filter((p) => p.billing_type === "single").map((p) => p.id)).toEqual([7]);
    expect(plans.map((p) => p.order_priority)).toEqual([1, 2, 3, 4, 5, 6]);
    for (const plan of plans) {
      expect(plan.save).toBe(plan.discount_tag_label.replace("Save ", ""));
      expect(plan.description).toMatch(/\$\d+\.\d\d\/month/);
      // The regular price is $11.99 a month.
      expect(plan.regular_price_cents).toBe(1199 * plan.duration_months);
    }
  });

  it("seeds the demo account in sandbox mode", async () => {
    expect(t.config.sandbox).toBe(true);
    const demo = await t.db.selectFrom("users").selectAll().where("email", "=", DEMO_EMAIL).executeTakeFirstOrThrow();
    expect(demo).toMatchObject({ name: "Demo User", email: "demo@example.com" });
    expect(demo.email_verified_at).not.toBeNull();
    expect(await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", demo.id).execute()).toEqual([]);
  });

  it("seeding again is harmless: plans are upserted, the demo account is never overwritten", async () => {
    const countUsers = async () => (await t.db.selectFrom("users").select("id").execute()).length;
    const usersBefore = await countUsers();

    // Someone changed a plan and the demo account's password.
    await t.db.updateTable("plans").set({ title: "Changed", discounted_price_cents: 1 }).where("id", "=", 5).execute();
    const newHash = await t.passwords.hash("changed-password");
    await t.db.updateTable("users").set({ password_hash: newHash }).where("email", "=", DEMO_EMAIL).execute();

    for (let i = 0; i < 2; i++) {
      const again = await createApi({ config: t.config, db: t.db, clock: new TestClock(), logger: new MemoryLogger(), passwords: t.passwords });
      await again.close(); // does not close a database it did not open
    }

    expect(await countUsers()).toBe(usersBefore);
    const plans = await t.db.selectFrom("plans").selectAll().orderBy("id").execute();
    expect(plans.map((p) => p.id)).toEqual([1, 2, 3, 5, 6, 7]);
    expect(plans.find((p) => p.id === 5)).toMatchObject({ title: "1 Year", discounted_price_cents: 7188 });
    const demo = await t.db.selectFrom("users").selectAll().where("email", "=", DEMO_EMAIL).executeTakeFirstOrThrow();
    expect(demo.password_hash).toBe(newHash);
    expect(PLANS).toHaveLength(6);
  });
});

describe.each(databases())("seed outside sandbox mode ($name)", (kind) => {
  it("does not create the demo account", async () => {
    const t = await startApi(kind, { env: { ...LIVE_ESSENTIALS, SANDBOX: "" } });
    try {
      expect(t.config.sandbox).toBe(false);
      const demo = await t.db.selectFrom("users").select("id").where("email", "=", DEMO_EMAIL).executeTakeFirst();
      expect(demo).toBeUndefined();
      const plans = await t.db.selectFrom("plans").select("id").orderBy("id").execute();
      expect(plans.map((p) => p.id)).toEqual([1, 2, 3, 5, 6, 7]);
      const res = await t.post("/api/user/login", { json: { email: DEMO_EMAIL, password: "demo-password" } });
      expect(res.status).toBe(401);
    } finally {
      await t.close();
    }
  });
});
