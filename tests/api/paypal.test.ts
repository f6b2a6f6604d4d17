import { describe, expect, it } from "vitest";
import { getSubscription } from "../../api/payments/paypal/client";
import { REFUSED_WEBHOOKS_PER_HOUR } from "../../api/http/routes/paypal";
import { LIVE_ESSENTIALS, databases, startApi, type TestApi, useApi } from "./harness";
import { GOOD, buyByCrypto, paymentMethod } from "./payment-support";

// PayPal as the third gateway (issue 23, docs/decisions/039), through the PayPal stand-in (its approval
// pages pressed as a browser would, its webhooks delivered in-process and verified through it).

const DAY = 86_400_000;

async function buyer(t: TestApi, email: string) {
  const userId = await t.createUser({ email, password: "paypal-password" });
  const token = await t.login(email, "paypal-password");
  return { userId, token, email };
}

let keys = 0;
const newKey = () => `paypal-test-key-${Date.now()}-${keys++}`;

async function checkout(t: TestApi, token: string, planId: number, extra: Record<string, unknown> = {}) {
  return t.post("/api/payments/paypal/checkout", {
    token,
    json: { planId, return_path: `/subscription/payment/${planId}`, idempotency_key: newKey(), ...extra },
  });
}

/** Presses Approve or Cancel on the stand-in's approval page (a plain form post); answers where PayPal sends the browser. */
async function atPayPal(t: TestApi, approveUrl: string, action: "approve" | "cancel", funding = "balance"): Promise<URL> {
  const url = new URL(approveUrl);
  const page = await t.get(`${url.pathname}${url.search}`, { notTheApi: true });
  expect(page.status, page.text).toBe(200);
  expect(page.text).toContain(">Approve<");
  const res = await fetch(`${t.baseUrl}${url.pathname}${url.search}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action, funding }),
  });
  expect(res.status).toBe(303);
  return new URL(res.headers.get("location")!);
}

async function buy(t: TestApi, token: string, planId: number, extra: Record<string, unknown> = {}, funding = "balance") {
  const started = await checkout(t, token, planId, extra);
  expect(started.status, started.text).toBe(200);
  const back = await atPayPal(t, started.body.data.approve_url, "approve", funding);
  expect(back.searchParams.get("paypal")).toBe("return");
  const ids = { token: back.searchParams.get("subscription_id") ? undefined : back.searchParams.get("token"), subscription_id: back.searchParams.get("subscription_id") ?? undefined };
  const done = await t.post("/api/payments/paypal/complete", { token, json: ids });
  return { started: started.body.data, back, ids, done };
}

async function transactions(t: TestApi, userId: number) {
  return t.db.selectFrom("transactions").selectAll().where("user_id", "=", userId).orderBy("id").execute();
}

describe.each(databases())("PayPal through the PayPal stand-in ($name)", (kind) => {
  const t = useApi(kind);

  it("is offered in sandbox mode, without a client id for the JavaScript buttons", async () => {
    const config = await t.get("/api/payments/config");
    expect(config.body.data).toMatchObject({ paypal: true, paypal_client_id: null });
  });

  it("buys the 5-year plan as one order: captured once, however often the browser comes back", async () => {
    const who = await buyer(t, "order@example.com");
    const { started, ids, done, back } = await buy(t, who.token, 7);
    expect(started.kind).toBe("order");
    expect(back.pathname).toBe("/subscription/payment/7");
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ status: "paid", kind: "order", subscription: { plan_id: 7 } });
    const again = await t.post("/api/payments/paypal/complete", { token: who.token, json: ids });
    expect(again.body.data.status).toBe("paid");
    const rows = await transactions(t, who.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ payment_gateway: "paypal", wallet_payment_type: "paypal", status: "paid", amount_cents: 19900 });
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ subscription_by: "paypal", billing_type: "single", stripe_sub_id: null, paypal_sub_id: null });
    // Another account cannot complete it.
    const other = await buyer(t, "order-other@example.com");
    expect((await t.post("/api/payments/paypal/complete", { token: other.token, json: ids })).status).toBe(404);
    // The invoice is our PDF.
    const pdf = await t.get(`/api/invoice/${rows[0]!.id}/paypal`, { token: who.token });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toContain("application/pdf");
  });

  it("buys a recurring plan as a PayPal subscription, the coupon on the first payment only, and renews it with the clock", async () => {
    const who = await buyer(t, "recurring@example.com");
    const { started, done } = await buy(t, who.token, 1, { coupon: "WELCOME10" });
    expect(started.kind).toBe("subscription");
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ status: "paid", kind: "subscription" });
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ subscription_by: "paypal", billing_type: "recurring", cancel_at_period_end: 0, paypal_sub_id: started.paypal_id });
    let rows = await transactions(t, who.userId);
    expect(rows.map((r) => [r.amount_cents, r.coupon_code])).toEqual([[899, "WELCOME10"]]);
    const coupon = await t.db.selectFrom("coupons").select("times_redeemed").where("code", "=", "WELCOME10").executeTakeFirstOrThrow();
    expect(Number(coupon.times_redeemed)).toBeGreaterThan(0);

    t.clock.advanceDays(31);
    try {
      await t.api.runDueJobs();
      rows = await transactions(t, who.userId);
      expect(rows.map((r) => [r.amount_cents, r.status, r.payment_gateway])).toEqual([
        [899, "paid", "paypal"],
        [999, "paid", "paypal"],
      ]);
      const renewed = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
      expect(new Date(renewed.sub_exp_date).getTime()).toBeGreaterThan(new Date(sub.sub_exp_date).getTime() + 27 * DAY);
      // A second run bills nothing twice.
      await t.api.runDueJobs();
      expect(await transactions(t, who.userId)).toHaveLength(2);
    } finally {
      t.clock.reset();
    }
  });

  it("refuses a second recurring subscription, as the card checkout does", async () => {
    const who = await buyer(t, "second@example.com");
    expect((await buy(t, who.token, 2)).done.status).toBe(200);
    const again = await checkout(t, who.token, 3);
    expect(again.status).toBe(409);
    expect(again.body.errors.code).toBe("subscription_exists");
  });

  it("cancelled at PayPal: nothing charged, the coupon's hold given back", async () => {
    const who = await buyer(t, "cancel@example.com");
    const started = await checkout(t, who.token, 2, { coupon: "WELCOME10" });
    expect(started.status, started.text).toBe(200);
    const held = await t.db.selectFrom("coupons").select("reserved").where("code", "=", "WELCOME10").executeTakeFirstOrThrow();
    const back = await atPayPal(t, started.body.data.approve_url, "cancel");
    expect(back.searchParams.get("paypal")).toBe("cancel");
    const ids = { subscription_id: back.searchParams.get("subscription_id") ?? started.body.data.paypal_id };
    const cancelled = await t.post("/api/payments/paypal/cancel", { token: who.token, json: ids });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ message: "The PayPal payment was cancelled.", data: { status: "cancelled", kind: "subscription" } });
    const after = await t.db.selectFrom("coupons").select("reserved").where("code", "=", "WELCOME10").executeTakeFirstOrThrow();
    expect(Number(after.reserved)).toBe(Number(held.reserved) - 1);
    expect(await transactions(t, who.userId)).toHaveLength(0);
    const complete = await t.post("/api/payments/paypal/complete", { token: who.token, json: ids });
    expect(complete.body.data.status).toBe("cancelled");
    // A return that names only the billing agreement token finds the same checkout.
    const ba = new URL(started.body.data.approve_url).searchParams.get("ba_token");
    expect(ba).toMatch(/^BA-/);
    expect((await t.post("/api/payments/paypal/cancel", { token: who.token, json: { token: ba } })).body.data.status).toBe("cancelled");
    // The claim is given back: another checkout may start.
    expect((await checkout(t, who.token, 2)).status).toBe(200);
  });

  it("a declined payment is a 402 paypal_declined and charges nothing", async () => {
    const who = await buyer(t, "declined@example.com");
    const { done } = await buy(t, who.token, 7, {}, "declined");
    expect(done.status, done.text).toBe(402);
    expect(done.body.errors.code).toBe("paypal_declined");
    const rows = await transactions(t, who.userId);
    expect(rows.map((r) => r.status)).toEqual(["Payment failed"]);
    const sub = await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).executeTakeFirst();
    expect(sub).toBeUndefined();
  });

  it("refuses a forged webhook (400) and handles a replayed one once", async () => {
    const forged = await t.post("/api/payments/paypal/webhook", {
      raw: JSON.stringify({ id: "WH-FORGED", event_type: "PAYMENT.SALE.COMPLETED", resource: { id: "1", billing_agreement_id: "I-X" } }),
      headers: {
        "content-type": "application/json",
        "paypal-transmission-id": "x",
        "paypal-transmission-time": new Date().toISOString(),
        "paypal-transmission-sig": "forged",
        "paypal-cert-url": "https://api.paypal.com/cert.pem",
        "paypal-auth-algo": "SHA256withRSA",
      },
    });
    expect(forged.status, forged.text).toBe(400);
    expect(forged.body.errors.code).toBe("signature_invalid");
    const bare = await t.post("/api/payments/paypal/webhook", { raw: "not json", headers: { "content-type": "application/json" } });
    expect(bare.status).toBe(400);
    const events = await t.db.selectFrom("webhook_events").select("id").where("source", "=", "paypal").execute();
    expect(events.length).toBeGreaterThan(0);
  });


  it("stops an address whose webhook posts PayPal keeps refusing, also in a parallel burst, before asking PayPal again", async () => {
    // The earlier forged posts of this suite counted too: start from a fresh window for the address.
    await t.db.deleteFrom("rate_limits").where("key", "like", "paypal-webhook-refused:%").execute();
    const forged = (n: number) =>
      t.post("/api/payments/paypal/webhook", {
        raw: JSON.stringify({ id: `WH-FORGED-${n}`, event_type: "PAYMENT.SALE.COMPLETED", resource: { id: String(n), billing_agreement_id: "I-X" } }),
        headers: {
          "content-type": "application/json",
          "paypal-transmission-id": `forged-${n}`,
          "paypal-transmission-time": new Date().toISOString(),
          "paypal-transmission-sig": "forged",
          "paypal-cert-url": "https://api.paypal.com/cert.pem",
          "paypal-auth-algo": "SHA256withRSA",
        },
      });
    const answers = await Promise.all(Array.from({ length: REFUSED_WEBHOOKS_PER_HOUR + 10 }, (_, n) => forged(n)));
    expect(answers.filter((a) => a.status === 400)).toHaveLength(REFUSED_WEBHOOKS_PER_HOUR);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(10);
    expect(limited[0]!.body.message).toMatch(/^Too many refused webhooks from this address\. Please try again in \d+ minutes?\.$/);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    await t.db.deleteFrom("rate_limits").where("key", "like", "paypal-webhook-refused:%").execute();
  });

  it("auto-renewal off suspends the PayPal subscription, on reactivates it", async () => {
    const who = await buyer(t, "renewal@example.com");
    const { started } = await buy(t, who.token, 3);
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    const off = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } });
    expect(off.status, off.text).toBe(200);
    expect((await getSubscription(t.api.paypal!.client, started.paypal_id)).status).toBe("SUSPENDED");
    let row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
    expect(row.cancel_at_period_end).toBe(1);
    const on = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "enable", subscriptionId: sub.id } });
    expect(on.status, on.text).toBe(200);
    expect((await getSubscription(t.api.paypal!.client, started.paypal_id)).status).toBe("ACTIVE");
    row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
    expect(row.cancel_at_period_end).toBe(0);
  });

  it("refunds a PayPal payment through PayPal within 30 days, once", async () => {
    const who = await buyer(t, "refund@example.com");
    const { started } = await buy(t, who.token, 1);
    const [paid] = await transactions(t, who.userId);
    const res = await t.post(`/api/billing/transactions/${paid!.id}/refund`, { token: who.token, json: {} });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("refunded");
    const again = await t.post(`/api/billing/transactions/${paid!.id}/refund`, { token: who.token, json: {} });
    expect(again.status, again.text).toBe(200);
    expect((await getSubscription(t.api.paypal!.client, started.paypal_id)).status).toBe("CANCELLED");
    const row = await t.db.selectFrom("refunds").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: "paypal", status: "refunded" });
  });

  it("a renewal PayPal cannot collect makes the plan past due (grace period, one email)", async () => {
    const who = await buyer(t, "dunning@example.com");
    const { done } = await buy(t, who.token, 1, {}, "fails_renewals");
    expect(done.status, done.text).toBe(200);
    t.clock.advanceDays(31);
    try {
      await t.api.runDueJobs();
      const row = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
      expect(row.past_due_since).not.toBeNull();
      expect(row.grace_until).not.toBeNull();
      const mail = await t.mailbox(who.email);
      expect(mail.filter((m) => m.subject === "Your VPN payment failed")).toHaveLength(1);
      // The banner's answer: PayPal retries by itself, so it points at PayPal's funding page, not the pay page.
      const pastDue = await t.get("/api/billing/past-due", { token: who.token });
      expect(pastDue.status, pastDue.text).toBe(200);
      expect(pastDue.body.data.payment_failed).toMatchObject({
        gateway: "paypal",
        amount: "$9.99",
        card: null,
        grace_until: row.grace_until,
        pay_url: "https://www.paypal.com/myaccount/autopay/",
        hosted_invoice_url: null,
      });
      // The grace period runs out unpaid: cancelled at PayPal, the plan ends.
      t.clock.advanceDays(15);
      await t.api.runDueJobs();
      const ended = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
      expect(ended.past_due_invoice_id).toBeNull();
      expect(ended.cancel_at_period_end).toBe(1);
    } finally {
      t.clock.reset();
    }
  });

  it("the 2-year plan is one order that does not renew (PayPal bills at most yearly)", async () => {
    const who = await buyer(t, "two-years@example.com");
    const { started, done } = await buy(t, who.token, 6);
    expect(started.kind).toBe("order");
    expect(done.status, done.text).toBe(200);
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(sub).toMatchObject({ billing_type: "recurring", cancel_at_period_end: 1, paypal_sub_id: null });
    const on = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "enable", subscriptionId: sub.id } });
    expect(on.status).toBe(422);
  });

  it("answers a hostile or malformed request with a 4xx and a message", async () => {
    const who = await buyer(t, "hostile@example.com");
    const none = await t.post("/api/payments/paypal/complete", { token: who.token, json: {} });
    expect(none.status).toBe(422);
    const unknown = await t.post("/api/payments/paypal/complete", { token: who.token, json: { token: "x".repeat(64) } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("This PayPal payment was not found.");
    const tooLong = await t.post("/api/payments/paypal/cancel", { token: who.token, json: { token: "x".repeat(65) } });
    expect(tooLong.status).toBe(422);
    const wrongType = await t.post("/api/payments/paypal/checkout", { token: who.token, json: { planId: "seven", return_path: "/payment/7", idempotency_key: newKey() } });
    expect(wrongType.status).toBe(422);
    const noPlan = await checkout(t, who.token, 4);
    expect(noPlan.status).toBe(404);
    const badCoupon = await checkout(t, who.token, 1, { coupon: "NOPE" });
    expect(badCoupon.status).toBe(422);
    expect(badCoupon.body.errors.fields.coupon).toBeTruthy();
    expect((await t.post("/api/payments/paypal/checkout", { json: { planId: 1 } })).status).toBe(401);
    const noHeaders = await t.post("/api/payments/paypal/webhook", {
      raw: JSON.stringify({ id: "WH-1", event_type: "PAYMENT.SALE.COMPLETED", resource: {} }),
      headers: { "content-type": "application/json" },
    });
    expect(noHeaders.status).toBe(400);
  });

  it("shows the next charge of a renewing PayPal subscription without a card", async () => {
    const who = await buyer(t, "next-charge@example.com");
    expect((await buy(t, who.token, 1)).done.status).toBe(200);
    const active = await t.post("/api/subscription/active", { token: who.token });
    expect(active.status, active.text).toBe(200);
    expect(active.body.data.next_charge).toMatchObject({ amount_cents: 999, card: null });
  });

  it("puts a plan's PayPal billing plan in step with a changed price", async () => {
    const who = await buyer(t, "price-change@example.com");
    const plan = await t.db.selectFrom("plans").selectAll().where("id", "=", 5).executeTakeFirstOrThrow();
    await t.db.updateTable("plans").set({ discounted_price_cents: 6999 }).where("id", "=", 5).execute();
    try {
      expect((await checkout(t, who.token, 5)).status).toBe(200);
      const before = await t.db.selectFrom("paypal_plans").selectAll().where("plan_id", "=", 5).executeTakeFirstOrThrow();
      expect(before.price_cents).toBe(6999);
      await t.db.updateTable("plans").set({ discounted_price_cents: 7188 }).where("id", "=", 5).execute();
      const other = await buyer(t, "price-change-2@example.com");
      const { done } = await buy(t, other.token, 5);
      expect(done.status, done.text).toBe(200);
      const after = await t.db.selectFrom("paypal_plans").selectAll().where("plan_id", "=", 5).executeTakeFirstOrThrow();
      expect(after).toMatchObject({ price_cents: 7188, paypal_plan_id: before.paypal_plan_id });
      const [paid] = await transactions(t, other.userId);
      expect(paid!.amount_cents).toBe(7188);
      // The free months: access runs 12 + 2 months.
      const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", other.userId).executeTakeFirstOrThrow();
      const months = (new Date(sub.sub_exp_date).getTime() - new Date(sub.sub_start_date).getTime()) / (30.4 * DAY);
      expect(Math.round(months)).toBe(14);
    } finally {
      await t.db.updateTable("plans").set({ discounted_price_cents: plan.discounted_price_cents }).where("id", "=", 5).execute();
    }
  });

  it("the 5-year plan bought with PayPal stops a running PayPal subscription's renewal", async () => {
    const who = await buyer(t, "upgrade@example.com");
    const { started } = await buy(t, who.token, 2);
    expect((await buy(t, who.token, 7)).done.status).toBe(200);
    expect((await getSubscription(t.api.paypal!.client, started.paypal_id)).status).toBe("SUSPENDED");
    const recurring = await t.db.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", started.paypal_id).executeTakeFirstOrThrow();
    expect(recurring.cancel_at_period_end).toBe(1);
  });

  it("the 5-year plan bought by card or with crypto suspends a running PayPal subscription too", async () => {
    const byCard = await buyer(t, "card-upgrade@example.com");
    const { started } = await buy(t, byCard.token, 1);
    const paid = await t.post("/api/payments/card", {
      token: byCard.token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 7, email: byCard.email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    expect((await getSubscription(t.api.paypal!.client, started.paypal_id)).status).toBe("SUSPENDED");
    const row = await t.db.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", started.paypal_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ cancel_at_period_end: 1, subs_status: "subscription_cancelled" });

    const byCrypto = await buyer(t, "crypto-upgrade@example.com");
    const second = await buy(t, byCrypto.token, 1);
    await buyByCrypto(t, byCrypto, { productId: "vpn_5_years", planId: 7, amount: "199.00" });
    expect((await getSubscription(t.api.paypal!.client, second.started.paypal_id)).status).toBe("SUSPENDED");
  });

  it("handled every webhook the stand-in delivered (none failed or was refused)", () => {
    const problems = t.logger.lines.filter((line) => /paypal|webhook|WH-/i.test(line) && /fail|error|refus|invalid/i.test(line));
    expect(problems).toEqual([]);
  });
});

describe.each(databases({ postgres: "parallel checkouts with one key: a unique violation" }))("PayPal double submits ($name)", (kind) => {
  const t = useApi(kind);

  it("answers the same checkout for the same key (a double submit opens one order)", async () => {
    const who = await buyer(t, "double@example.com");
    const json = { planId: 7, return_path: "/payment/7", idempotency_key: newKey() };
    const [a, b] = await Promise.all([
      t.post("/api/payments/paypal/checkout", { token: who.token, json }),
      t.post("/api/payments/paypal/checkout", { token: who.token, json }),
    ]);
    expect(a.status, a.text).toBe(200);
    expect(b.status, b.text).toBe(200);
    expect(b.body.data.paypal_id).toBe(a.body.data.paypal_id);
    const bad = await t.post("/api/payments/paypal/checkout", { token: who.token, json: { ...json, return_path: "https://evil.example/" } });
    expect(bad.status).toBe(422);
    // A recurring plan too (its purchase claim is the key's).
    const recurring = { planId: 3, return_path: "/payment/3", idempotency_key: newKey() };
    const [c, d] = await Promise.all([
      t.post("/api/payments/paypal/checkout", { token: who.token, json: recurring }),
      t.post("/api/payments/paypal/checkout", { token: who.token, json: recurring }),
    ]);
    expect(c.status, c.text).toBe(200);
    expect(d.status, d.text).toBe(200);
    expect(d.body.data).toEqual(c.body.data);
    const rows = await t.db.selectFrom("paypal_checkouts").select("id").where("user_id", "=", who.userId).where("plan_id", "=", 3).execute();
    expect(rows).toHaveLength(1);
  });
});

describe("PayPal outside sandbox mode", () => {
  it("is off without credentials: not offered, its routes 404", async () => {
    const [kind] = databases();
    const t = await startApi(kind!, { env: { SANDBOX: "", ...LIVE_ESSENTIALS } });
    try {
      const config = await t.get("/api/payments/config");
      expect(config.body.data).toMatchObject({ paypal: false, paypal_client_id: null });
      expect(t.api.paypal).toBeNull();
      expect((await t.post("/api/payments/paypal/webhook", { raw: "{}", headers: { "content-type": "application/json" } })).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it("is live with all three credentials: the client id is given to the JavaScript buttons", async () => {
    const [kind] = databases();
    const t = await startApi(kind!, {
      env: { SANDBOX: "", ...LIVE_ESSENTIALS, PAYPAL_CLIENT_ID: "live-client", PAYPAL_CLIENT_SECRET: "live-secret", PAYPAL_WEBHOOK_ID: "WH-LIVE", PAYPAL_ENVIRONMENT: "production" },
    });
    try {
      const config = await t.get("/api/payments/config");
      expect(config.body.data).toMatchObject({ paypal: true, paypal_client_id: "live-client" });
    } finally {
      await t.close();
    }
  });
});
