import { describe, expect, it } from "vitest";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, customer, newKey, paymentMethod } from "./payment-support";

// Billing tells one story (issue 32, docs/decisions/050): a renewal and its automatic retries are ONE
// history row (retries, last_attempt_at), pages count those rows, and a plan that ended says when
// (ended_plan). The grouping is done in TypeScript over the account's rows, the same SQL on both
// databases, so SQLite is enough here.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Row = {
  id: number;
  created_at: string;
  status: string;
  amount: number;
  retries: number;
  last_attempt_at: string;
  invoice_available: boolean;
  product: { title: string };
};

/** A customer on the 1-month plan whose card now declines: the bank's 0002 card pays the renewals. */
async function renewingOnADecliningCard(t: TestApi, email: string) {
  const who = await customer(t, email);
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email },
  });
  expect(res.status, res.text).toBe(200);
  const sub = res.body.data.subscription as { id: number; stripe_sub_id: string; sub_exp_date: string };
  const declining = await paymentMethod(t, DECLINED);
  expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: declining } })).status).toBe(200);
  await t.api.payments.gateway.stripe.subscriptions.update(sub.stripe_sub_id, { default_payment_method: declining });
  return { ...who, sub, declining };
}

async function moveTo(t: TestApi, at: number) {
  const ms = at - t.clock.now().getTime();
  if (ms > 0) t.clock.advanceSeconds(ms / 1000);
  await t.api.runDueJobs();
}

async function history(t: TestApi, token: string, json: Record<string, unknown> = {}) {
  const res = await t.post("/api/billing/transactions", { token, json });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { transactions: Row[]; pagination: { current_page: number; last_page: number; per_page: number; total: number } };
}

describe.each(databases())("billing history tells one story ($name)", (kind) => {
  const t = useApi(kind);

  it("a renewal declined, retried 4 times and never paid is one 'Payment failed' row; the last good payment stays on page 1; the plan ended", async () => {
    const who = await renewingOnADecliningCard(t, "history-retried@example.com");
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + HOUR);
      // One attempt so far: one row, no retry.
      const once = await history(t, who.token);
      expect(once.transactions.map((r) => [r.status, r.retries])).toEqual([["Payment failed", 0], ["paid", 0]]);
      expect(once.transactions[0]!.last_attempt_at).toBe(once.transactions[0]!.created_at);

      // Through every retry day (1, 3, 5, 7) at its own time, then past the grace period (14 days).
      for (const day of [1, 3, 5, 7]) await moveTo(t, renewal + day * DAY + HOUR);
      const attempts = await t.db
        .selectFrom("transactions")
        .select(["created_at"])
        .where("user_id", "=", who.userId)
        .where("status", "=", "Payment failed")
        .orderBy("created_at")
        .execute();
      // The database keeps every attempt.
      expect(attempts).toHaveLength(5);
      await moveTo(t, renewal + 15 * DAY);

      const list = await history(t, who.token);
      expect(list.pagination).toEqual({ current_page: 1, last_page: 1, per_page: 5, total: 2 });
      const [failed, paid] = list.transactions;
      expect(failed).toMatchObject({ status: "Payment failed", amount: 9.99, retries: 4, product: { title: "1 Month" }, invoice_available: false });
      // Dated by the first attempt (when the renewal was charged), with the last retry beside it.
      expect(failed!.created_at).toBe(attempts[0]!.created_at);
      expect(failed!.last_attempt_at).toBe(attempts[4]!.created_at);
      expect(paid).toMatchObject({ status: "paid", retries: 0, invoice_available: true });
      expect(paid!.last_attempt_at).toBe(paid!.created_at);

      // The plan has ended: said with the day it ended (the end of the grace period), on the home and the active subscription.
      const ended = (await t.db.selectFrom("subscriptions").select(["grace_until"]).where("id", "=", who.sub.id).executeTakeFirstOrThrow()).grace_until;
      const home = await t.get("/api/account/home", { token: who.token });
      expect(home.body.data.subscription).toBeNull();
      expect(home.body.data.ended_plan).toEqual({ title: "1 Month", ended_on: ended });
      const active = await t.post("/api/subscription/active", { token: who.token });
      expect(active.body.data.subscription).toBeNull();
      expect(active.body.data.ended_plan).toEqual({ title: "1 Month", ended_on: ended });
    } finally {
      t.clock.reset();
    }
  });

  it("a retry that pays makes the row Paid, with its retries and when it was paid", async () => {
    const who = await renewingOnADecliningCard(t, "history-paid-retry@example.com");
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + HOUR);
      await moveTo(t, renewal + DAY + HOUR);
      // The customer's card works again before the second retry (day 3).
      const good = await paymentMethod(t, GOOD);
      expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: good } })).status).toBe(200);
      await t.api.payments.gateway.stripe.subscriptions.update(who.sub.stripe_sub_id, { default_payment_method: good });
      await moveTo(t, renewal + 3 * DAY + HOUR);

      const list = await history(t, who.token);
      expect(list.pagination.total).toBe(2);
      const [renewed, first] = list.transactions;
      expect(renewed).toMatchObject({ status: "paid", retries: 2, invoice_available: true, amount: 9.99 });
      expect(Date.parse(renewed!.last_attempt_at)).toBeGreaterThanOrEqual(renewal + 3 * DAY);
      expect(Date.parse(renewed!.created_at)).toBeLessThan(renewal + DAY);
      expect(first).toMatchObject({ status: "paid", retries: 0 });
      // Still on its plan: nothing ended.
      const home = await t.get("/api/account/home", { token: who.token });
      expect(home.body.data.subscription).not.toBeNull();
      expect(home.body.data.ended_plan).toBeNull();
    } finally {
      t.clock.reset();
    }
  });

  it("pages count grouped rows: five attempts of one invoice are one of the five a page", async () => {
    const who = await customer(t, "history-pages@example.com");
    const base = Date.parse("2025-01-01T00:00:00.000Z");
    const insert = (i: number, status: "paid" | "Payment failed", ref: string | null) =>
      t.db
        .insertInto("transactions")
        .values({
          user_id: who.userId,
          plan_id: 1,
          subscription_id: null,
          amount_cents: 999,
          status,
          payment_gateway: "stripe",
          wallet_payment_type: "card",
          gateway_ref: ref,
          coupon_code: null,
          failure_message: status === "paid" ? null : "Your card was declined.",
          created_at: new Date(base + i * DAY).toISOString(),
        })
        .execute();
    // Six paid months, then one renewal (in_grouped) declined on its day and on four retries.
    for (let i = 0; i < 6; i++) await insert(i * 30, "paid", `in_paid_${i}`);
    await insert(180, "Payment failed", "failed:in_grouped");
    for (const [n, day] of [[2, 181], [3, 183], [4, 185], [5, 187]] as const) await insert(day, "Payment failed", `failed:in_grouped:${n}`);

    const first = await history(t, who.token);
    expect(first.pagination).toEqual({ current_page: 1, last_page: 2, per_page: 5, total: 7 });
    expect(first.transactions.map((r) => [r.status, r.retries])).toEqual([
      ["Payment failed", 4],
      ["paid", 0],
      ["paid", 0],
      ["paid", 0],
      ["paid", 0],
    ]);
    expect(first.transactions[0]!.created_at).toBe(new Date(base + 180 * DAY).toISOString());
    expect(first.transactions[0]!.last_attempt_at).toBe(new Date(base + 187 * DAY).toISOString());
    const second = await history(t, who.token, { page: 2 });
    expect(second.transactions.map((r) => r.created_at)).toEqual([new Date(base + 30 * DAY).toISOString(), new Date(base).toISOString()]);
    expect(second.transactions.map((r) => r.retries)).toEqual([0, 0]);
  });

  it("an account that never had a plan has no ended plan", async () => {
    const who = await customer(t, "history-never@example.com");
    expect((await t.get("/api/account/home", { token: who.token })).body.data.ended_plan).toBeNull();
    expect((await t.post("/api/subscription/active", { token: who.token })).body.data.ended_plan).toBeNull();
  });
});
