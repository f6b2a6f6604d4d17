import { describe, expect, it } from "vitest";
import { insertSubscription } from "../support/accounts";
import { databases, useApi } from "./harness";

// GET /api/account/home: the portal's account home in one call. It must answer exactly what the four
// calls it replaces answer, so the portal can use either.
describe.each(databases())("account home in one call ($name)", (kind) => {
  const t = useApi(kind);

  it("needs a bearer token", async () => {
    expect((await t.get("/api/account/home")).status).toBe(401);
    expect((await t.get("/api/account/home", { token: "not-a-real-token" })).status).toBe(401);
  });

  it("answers what /api/me, /api/subscription/active, /api/account/link-list and /api/download-links answer", async () => {
    const userId = await t.createUser({ email: "home@example.com", password: "home-password" });
    const token = await t.login("home@example.com", "home-password");
    const now = t.clock.now();
    await insertSubscription(t.db, userId, { now, stripe_sub_id: "sub_test_home", days: 365 });
    await t.db
      .insertInto("account_links")
      .values({ user_id: userId, link_type: "GOOGLE", subject: "google-sub-home", email: "home@gmail.com", created_at: now.toISOString() })
      .execute();

    const home = await t.get("/api/account/home", { token });
    expect(home.status).toBe(200);
    const [me, active, links, downloads] = await Promise.all([
      t.get("/api/me", { token }),
      t.post("/api/subscription/active", { token }),
      t.post("/api/account/link-list", { token }),
      t.get("/api/download-links"),
    ]);
    expect(home.body.data).toEqual({
      user: me.body.data,
      subscription: active.body.data.subscription,
      now: expect.any(String),
      linked: links.body.data.linked,
      downloads: downloads.body.data,
      two_factor: { enabled: false, enabled_at: null, recovery_codes_left: 0 },
      payment_failed: null,
      next_charge: active.body.data.next_charge,
      ends_on: active.body.data.ends_on,
      ended_plan: active.body.data.ended_plan,
    });
    // The product's clock runs: the two answers' "now" are moments apart.
    expect(Math.abs(Date.parse(home.body.data.now) - Date.parse(active.body.data.now))).toBeLessThan(60_000);
    expect(home.body.data.user.email).toBe("home@example.com");
    expect(home.body.data.subscription.title).toBe("1 Year");
    expect(home.body.data.linked).toEqual([{ id: expect.any(Number), link_type: "GOOGLE", email: "home@gmail.com" }]);
  });

  it("has no subscription and no links for a new account", async () => {
    await t.createUser({ email: "fresh-home@example.com", password: "fresh-password" });
    const token = await t.login("fresh-home@example.com", "fresh-password");
    const home = await t.get("/api/account/home", { token });
    expect(home.body.data).toMatchObject({ subscription: null, linked: [], user: { email: "fresh-home@example.com", has_password: true } });
  });
});
