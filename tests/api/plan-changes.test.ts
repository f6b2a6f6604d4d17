import { afterEach, describe, expect, it } from "vitest";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, TWO_YEARS_BY_CRYPTO, buyByCrypto, customer, newKey, paymentMethod } from "./payment-support";

// Changing plan instead of buying twice (issue 20, docs/decisions/028), over HTTP against the Stripe sandbox.

const DAY = 86_400_000;

async function buy(t: TestApi, who: { token: string; email: string }, planId: number) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId, email: who.email },
  });
  return res;
}

async function row(t: TestApi, userId: number) {
  return t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).orderBy("id").execute();
}

describe.each(databases())("plan changes ($name)", (kind) => {
  const t = useApi(kind);
  afterEach(() => t.clock.reset());

  it("a move to a longer plan: the preview's amount is what is charged, the period restarts, the row follows", async () => {
    const who = await customer(t, "upgrade@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    t.clock.advanceDays(10);

    const preview = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
    expect(preview.status, preview.text).toBe(200);
    const p = preview.body.data;
    expect(p).toMatchObject({ kind: "now", current_plan: { id: 1, title: "1 Month" }, plan: { id: 5, title: "1 Year" }, pending: null });
    // 71.88 less the unused ~2/3 of the month's 9.99.
    expect(p.amount_due).toBeGreaterThan(71.88 - 9.99);
    expect(p.amount_due).toBeLessThan(71.88 - 5);

    const changed = await t.post("/api/subscription/change", {
      token: who.token,
      json: { plan_id: 5, proration_date: p.proration_date, idempotency_key: newKey() },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.message).toBe("Your plan was changed to 1 Year.");
    expect(changed.body.data).toMatchObject({ kind: "now", amount_paid: p.amount_due });
    expect(changed.body.data.subscription).toMatchObject({ plan_id: 5, title: "1 Year" });

    const [sub] = await row(t, who.userId);
    expect(sub).toMatchObject({ plan_id: 5, title: "1 Year", amount_cents: 7188, pending_plan_id: null });
    // The 1 Year card: 12 months and its 2 free ones (docs/decisions/051).
    const days = (Date.parse(sub!.sub_exp_date) - t.clock.now().getTime()) / DAY;
    expect(days).toBeGreaterThan(420);
    expect(days).toBeLessThan(432);
    const paid = await t.db.selectFrom("transactions").select(["amount_cents", "plan_id"]).where("user_id", "=", who.userId).orderBy("id").execute();
    expect(paid).toEqual([
      { amount_cents: 999, plan_id: 1 },
      { amount_cents: Math.round(p.amount_due * 100), plan_id: 5 },
    ]);
    expect((await t.mailbox(who.email)).map((m) => m.subject)).toContain("Your VPN plan change");
  });

  it("3 Months -> 1 Year buys the 1 Year card: 12 months plus its 2 free, and the preview, the result and the email give the same three figures", async () => {
    const who = await customer(t, "buys-the-card@example.com");
    expect((await buy(t, who, 2)).status).toBe(200);
    t.clock.advanceDays(20);
    const now = t.clock.now();
    const day = (iso: string) => iso.slice(0, 10);
    const fourteenMonths = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth() + 2, now.getUTCDate())).toISOString();

    const preview = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
    expect(preview.status, preview.text).toBe(200);
    const summary = preview.body.data.summary;
    expect(summary.charged_now).toBe(preview.body.data.amount_due);
    expect(day(summary.new_end_date)).toBe(day(fourteenMonths));
    expect(summary.next_renewal).toEqual({ amount: 71.88, amount_cents: 7188, net_cents: 7188, tax_cents: 0, tax: null, date: summary.new_end_date });

    const changed = await t.post("/api/subscription/change", {
      token: who.token,
      json: { plan_id: 5, proration_date: preview.body.data.proration_date, idempotency_key: newKey() },
    });
    expect(changed.status, changed.text).toBe(200);
    // The same figures as the customer reads them (a change a second after its preview ends a second later: the same day).
    expect(changed.body.data.summary).toMatchObject({ charged_now_cents: summary.charged_now_cents, next_renewal: { amount_cents: summary.next_renewal.amount_cents } });
    expect(day(changed.body.data.summary.new_end_date)).toBe(day(summary.new_end_date));
    expect(day(changed.body.data.summary.next_renewal.date)).toBe(day(summary.next_renewal.date));
    expect(changed.body.data.amount_paid).toBe(summary.charged_now);

    // What the database and Stripe hold: paid through the 14 months, the next charge at their end.
    const [sub] = await row(t, who.userId);
    expect(sub).toMatchObject({ plan_id: 5, title: "1 Year" });
    expect(day(sub!.sub_exp_date)).toBe(day(fourteenMonths));
    const atStripe = await t.api.payments.gateway.stripe.subscriptions.retrieve(sub!.stripe_sub_id!);
    expect(day(new Date(atStripe.items.data[0]!.current_period_end * 1000).toISOString())).toBe(day(fourteenMonths));

    // The confirmation says the three figures; the receipt's period is the 14 months.
    const long = (iso: string) => {
      const d = new Date(iso);
      return `${String(d.getUTCDate()).padStart(2, "0")} ${d.toLocaleString("en-US", { month: "long", timeZone: "UTC" })}, ${d.getUTCFullYear()}`;
    };
    const mails = await t.mailbox(who.email);
    const confirmation = mails.find((m) => m.subject === "Your VPN plan change");
    expect(confirmation?.text).toContain(`Charged now: $${summary.charged_now.toFixed(2)}`);
    expect(confirmation?.text).toContain(`New end date: ${long(summary.new_end_date)}`);
    expect(confirmation?.text).toContain(`Next renewal: $71.88 on ${long(summary.new_end_date)}`);
    const receipt = mails.find((m) => m.subject === "Your VPN receipt" && m.text.includes("1 Year"));
    expect(receipt?.text).toContain(`to ${long(new Date(fourteenMonths).toISOString())}.`);
  });

  it("a change at renewal states the same three figures: nothing now, the end date kept, the new plan's price at it", async () => {
    const who = await customer(t, "figures-at-renewal@example.com");
    expect((await buy(t, who, 3)).status).toBe(200);
    const [before] = await row(t, who.userId);
    const preview = await t.get("/api/subscription/change-preview?plan_id=1", { token: who.token });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data.summary).toEqual({
      charged_now: 0,
      charged_now_cents: 0,
      charged_now_net_cents: 0,
      charged_now_tax: null,
      new_end_date: before!.sub_exp_date,
      next_renewal: { amount: 9.99, amount_cents: 999, net_cents: 999, tax_cents: 0, tax: null, date: before!.sub_exp_date },
    });
    const changed = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 1, idempotency_key: newKey() } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data.summary).toEqual(preview.body.data.summary);
  });

  it("a move to a shorter plan waits for the renewal, can be cancelled, and applies at the renewal", async () => {
    const who = await customer(t, "downgrade@example.com");
    expect((await buy(t, who, 5)).status).toBe(200);
    const [before] = await row(t, who.userId);

    const preview = await t.get("/api/subscription/change-preview?plan_id=1", { token: who.token });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data).toMatchObject({ kind: "at_renewal", amount_due: 0, proration_date: null, effective_at: before!.sub_exp_date });

    const post = () => t.post("/api/subscription/change", { token: who.token, json: { plan_id: 1, idempotency_key: newKey() } });
    const scheduled = await post();
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.body.data).toMatchObject({ kind: "at_renewal", amount_paid: 0, pending: { plan: { id: 1, title: "1 Month" } } });
    expect((await row(t, who.userId))[0]).toMatchObject({ plan_id: 5, pending_plan_id: 1 });
    // The billing page's answer says it too.
    const active = await t.post("/api/subscription/active", { token: who.token });
    expect(active.body.data.pending_change).toMatchObject({ plan: { id: 1, title: "1 Month" }, effective_at: before!.sub_exp_date });

    const kept = await t.post("/api/subscription/change/cancel", { token: who.token });
    expect(kept.status, kept.text).toBe(200);
    expect((await row(t, who.userId))[0]).toMatchObject({ plan_id: 5, pending_plan_id: null, stripe_schedule_id: null });
    expect((await t.post("/api/subscription/active", { token: who.token })).body.data.pending_change).toBeNull();
    expect((await t.post("/api/subscription/change/cancel", { token: who.token })).body.errors.code).toBe("plan_change_invalid");

    expect((await post()).status).toBe(200);
    // Past the year and its two free months: the renewal bills the 1-month plan.
    expect((await t.post("/dev/clock", { form: { days: String(14 * 31) } })).status).toBe(200);
    const [after] = await row(t, who.userId);
    expect(after).toMatchObject({ plan_id: 1, title: "1 Month", amount_cents: 999, pending_plan_id: null });
    const transactions = await t.db.selectFrom("transactions").select(["amount_cents", "plan_id"]).where("user_id", "=", who.userId).orderBy("id").execute();
    expect(transactions.at(-1)).toEqual({ amount_cents: 999, plan_id: 1 });
  });

  it("a card that fails on a move to a longer plan changes nothing", async () => {
    const who = await customer(t, "upgrade-declined@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    const [before] = await row(t, who.userId);
    const { stripe } = t.api.payments.gateway;
    const declined = await paymentMethod(t, DECLINED);
    const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow();
    await stripe.paymentMethods.attach(declined, { customer: user.stripe_customer_id! });
    await stripe.subscriptions.update(before!.stripe_sub_id!, { default_payment_method: declined });
    const res = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 6, idempotency_key: newKey() } });
    expect(res.status, res.text).toBe(402);
    expect(res.body.message).toBe("Your card was declined.");
    expect((await row(t, who.userId))[0]).toMatchObject({ plan_id: 1, title: "1 Month", sub_exp_date: before!.sub_exp_date });
    const stripeSub = await stripe.subscriptions.retrieve(before!.stripe_sub_id!);
    expect(stripeSub.items.data[0]!.price.recurring).toMatchObject({ interval: "month", interval_count: 1 });
    expect(stripeSub.metadata.plan_id).toBe("1");
  });

  it("a second recurring subscription is refused by every path", async () => {
    const who = await customer(t, "twice@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    const card = await buy(t, who, 6);
    expect(card.status, card.text).toBe(409);
    expect(card.body.errors.code).toBe("subscription_exists");
    expect(card.body.message).toBe("You already have a subscription. Change your plan instead.");
    const hosted = await t.post("/api/payments/checkout-session", {
      token: who.token,
      json: { planId: 6, return_path: "/subscription/payment/6", idempotency_key: newKey() },
    });
    expect(hosted.status, hosted.text).toBe(409);
    expect(hosted.body.errors.code).toBe("subscription_exists");
    const wallet = await t.post("/api/payments/wallet", {
      token: who.token,
      json: { paymentTokenId: await paymentMethod(t, GOOD), planId: 6, paymentSource: "googlepay", idempotency_key: newKey() },
    });
    expect(wallet.status, wallet.text).toBe(409);
    expect(wallet.body.errors.code).toBe("subscription_exists");
    const crypto = await t.post("/api/payments/crypto/invoice", {
      token: who.token,
      json: { ...TWO_YEARS_BY_CRYPTO, currency: "USD", email: who.email },
    });
    expect(crypto.status, crypto.text).toBe(409);
    expect(crypto.body.errors.code).toBe("subscription_exists");
    expect(await row(t, who.userId)).toHaveLength(1);
  });

  it("a parallel burst of two purchases makes one subscription", async () => {
    const who = await customer(t, "burst@example.com");
    const [a, b] = await Promise.all([paymentMethod(t, GOOD), paymentMethod(t, GOOD)]);
    const answers = await Promise.all(
      [
        [a, 1],
        [b, 2],
      ].map(([pm, planId]) =>
        t.post("/api/payments/card", {
          token: who.token,
          json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: pm, planId, email: who.email },
        }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await row(t, who.userId)).toHaveLength(1);
  });

  it("the 5-year plan bought while a recurring one runs turns off its auto-renewal", async () => {
    const who = await customer(t, "five-years@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    const res = await buy(t, who, 7);
    expect(res.status, res.text).toBe(200);
    const rows = await row(t, who.userId);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ plan_id: 1, cancel_at_period_end: 1, subs_status: "subscription_cancelled" });
    const stripeSub = await t.api.payments.gateway.stripe.subscriptions.retrieve(rows[0]!.stripe_sub_id!);
    expect(stripeSub.cancel_at_period_end).toBe(true);
    const active = await t.post("/api/subscription/active", { token: who.token });
    expect(active.body.data.subscription.plan_id).toBe(7);
  });

  it("the 5-year plan paid by crypto while a card plan runs turns off its auto-renewal too", async () => {
    const who = await customer(t, "five-years-crypto@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    await buyByCrypto(t, who, { productId: "vpn_5_years", planId: 7, amount: "199.00" });
    const rows = await row(t, who.userId);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ plan_id: 1, cancel_at_period_end: 1, subs_status: "subscription_cancelled" });
    expect(rows[1]).toMatchObject({ plan_id: 7, subscription_by: "bitpay" });
    const stripeSub = await t.api.payments.gateway.stripe.subscriptions.retrieve(rows[0]!.stripe_sub_id!);
    expect(stripeSub.cancel_at_period_end).toBe(true);
  });

  it("changes nothing for someone without a recurring plan", async () => {
    const who = await customer(t, "nobody@example.com");
    const res = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
    expect(res.status).toBe(409);
    expect(res.body.errors.code).toBe("plan_change_invalid");
  });

  it("two hosted pages opened one after the other: the earlier one expires, so only one can make a subscription", async () => {
    const who = await customer(t, "two-tabs@example.com");
    const open = (planId: number) =>
      t.post("/api/payments/checkout-session", {
        token: who.token,
        json: { planId, return_path: `/subscription/payment/${planId}`, idempotency_key: newKey() },
      });
    const first = await open(1);
    expect(first.status, first.text).toBe(200);
    const second = await open(5);
    expect(second.status, second.text).toBe(200);
    const sessions = t.api.payments!.gateway.stripe.checkout.sessions;
    const idOf = (url: string) => new URL(url).pathname.split("/").pop()!;
    expect((await sessions.retrieve(idOf(first.body.data.url))).status).toBe("expired");
    expect((await sessions.retrieve(idOf(second.body.data.url))).status).toBe("open");
    // A card payment is a newer attempt still: the open page expires too.
    expect((await buy(t, who, 5)).status).toBe(200);
    expect((await sessions.retrieve(idOf(second.body.data.url))).status).toBe("expired");
  });
});

// Review issue 30: parallel changes with different keys each decided against the stale current plan (four
// changes made four charges; a downgrade raced against an upgrade left the row and Stripe apart). One change
// per account at a time: the others are refused 409 plan_change_in_progress.
describe.each(databases({ postgres: "change claims racing, a crashed instance's claim" }))("plan changes in parallel ($name)", (kind) => {
  const t = useApi(kind);
  afterEach(() => t.clock.reset());

  async function stripeState(who: { userId: number }) {
    const { stripe } = t.api.payments!.gateway;
    const [sub] = await row(t, who.userId);
    const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow();
    const invoices = await stripe.invoices.list({ customer: user.stripe_customer_id!, limit: 100 });
    const atStripe = await stripe.subscriptions.retrieve(sub!.stripe_sub_id!);
    return { sub: sub!, atStripe, invoices: invoices.data };
  }

  it("four changes at once with different keys: one applies and charges once, three are refused 409", async () => {
    const who = await customer(t, "four-changes@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    t.clock.advanceDays(5);
    const answers = await Promise.all(
      [2, 3, 5, 5].map((planId) => t.post("/api/subscription/change", { token: who.token, json: { plan_id: planId, idempotency_key: newKey() } })),
    );
    expect(answers.map((r) => r.status).sort(), answers.map((r) => r.text).join("\n")).toEqual([200, 409, 409, 409]);
    for (const refused of answers.filter((r) => r.status === 409)) {
      expect(refused.body.errors.code).toBe("plan_change_in_progress");
      expect(refused.body.message).toBe("Another change to your plan is still being processed. Please wait a moment and reload the page.");
    }
    const applied = answers.find((r) => r.status === 200)!.body.data.subscription.plan_id as number;
    const { sub, atStripe, invoices } = await stripeState(who);
    // One proration charge beside the first purchase, at Stripe and in our records.
    expect(invoices.filter((i) => i.billing_reason === "subscription_update" && i.amount_paid > 0)).toHaveLength(1);
    const paid = await t.db.selectFrom("transactions").select("plan_id").where("user_id", "=", who.userId).where("status", "=", "paid").execute();
    expect(paid.map((p) => p.plan_id)).toEqual([1, applied]);
    expect(sub.plan_id).toBe(applied);
    expect(atStripe.metadata.plan_id).toBe(String(applied));
    // The claim was given back: the next change goes through.
    const next = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 6, idempotency_key: newKey() } });
    expect(next.status, next.text).toBe(200);
  });

  it("a change's claim left by a crashed instance blocks only until it expires", async () => {
    const who = await customer(t, "crashed-change@example.com");
    expect((await buy(t, who, 1)).status).toBe(200);
    const expires = new Date(t.clock.now().getTime() + 2 * 60_000).toISOString();
    await t.db.insertInto("subscription_claims").values({ user_id: who.userId, claim_key: "plan-change:crashed", expires_at: expires }).execute();
    const key = newKey();
    const change = () => t.post("/api/subscription/change", { token: who.token, json: { plan_id: 5, idempotency_key: key } });
    const held = await change();
    expect(held.status, held.text).toBe(409);
    expect(held.body.errors.code).toBe("plan_change_in_progress");
    t.clock.advanceSeconds(121);
    // The same key again: the refusal was not stored as its answer.
    const after = await change();
    expect(after.status, after.text).toBe(200);
    expect(await t.db.selectFrom("subscription_claims").selectAll().where("user_id", "=", who.userId).execute()).toEqual([]);
  });

  it("an upgrade raced against a downgrade: one applies, the other is refused 409, the row and Stripe agree", async () => {
    const who = await customer(t, "up-and-down@example.com");
    expect((await buy(t, who, 3)).status).toBe(200);
    const [up, down] = await Promise.all(
      [5, 1].map((planId) => t.post("/api/subscription/change", { token: who.token, json: { plan_id: planId, idempotency_key: newKey() } })),
    );
    expect([up!.status, down!.status].sort(), `${up!.text}\n${down!.text}`).toEqual([200, 409]);
    const { sub, atStripe, invoices } = await stripeState(who);
    const schedules = await t.api.payments!.gateway.stripe.subscriptionSchedules.list({ customer: atStripe.customer as string });
    const activeSchedules = schedules.data.filter((s) => s.status === "active" || s.status === "not_started");
    if (up!.status === 200) {
      expect(sub).toMatchObject({ plan_id: 5, pending_plan_id: null, stripe_schedule_id: null });
      expect(atStripe.metadata.plan_id).toBe("5");
      expect(activeSchedules).toHaveLength(0);
      expect(invoices.filter((i) => i.billing_reason === "subscription_update" && i.amount_paid > 0)).toHaveLength(1);
    } else {
      expect(sub).toMatchObject({ plan_id: 3, pending_plan_id: 1 });
      expect(atStripe.metadata.plan_id).toBe("3");
      expect(activeSchedules.map((s) => s.id)).toEqual([sub.stripe_schedule_id]);
      expect(invoices.filter((i) => i.billing_reason === "subscription_update")).toHaveLength(0);
    }
  });
});
