import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { SANDBOX_WEBHOOK_SECRET } from "../../api/sandboxes/stripe";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, customer, newKey, paymentMethod } from "./payment-support";

/*
 * Attacks on the payments found by the security review (issue 17): coupon limits under parallel
 * payments, crypto purchases that never counted their coupon, guessing coupons and opening crypto
 * invoices without limit, and Stripe webhook bodies taken at their word.
 */

const INVALID = "This coupon code is not valid.";
const DAY = 86_400_000;

async function addCoupon(t: TestApi, values: Record<string, unknown>) {
  await t.db
    .insertInto("coupons")
    .values({
      code: "X",
      percent_off: 50,
      amount_off_cents: null,
      plan_ids: null,
      expires_at: null,
      max_redemptions: null,
      stripe_promotion_code_id: null,
      created_at: t.clock.now().toISOString(),
      ...values,
    })
    .execute();
}

function coupon(t: TestApi, code: string) {
  return t.db.selectFrom("coupons").selectAll().where("code", "=", code).executeTakeFirstOrThrow();
}

function payMonthly(t: TestApi, who: { token: string; email: string }, pm: string, code: string, key = newKey()) {
  return t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: pm, planId: 1, email: who.email, coupon: code, idempotency_key: key },
  });
}

/** Presses a button of the crypto sandbox's invoice page the way a browser would (its form, its hidden fields). */
async function press(t: TestApi, invoiceUrl: string, label: string): Promise<Response> {
  const path = new URL(invoiceUrl).pathname;
  const page = await t.get(path);
  const form = [...page.text.matchAll(/<form[^>]*>([\s\S]*?)<\/form>/g)].find((f) => new RegExp(`>\\s*${label}\\s*<`).test(f[1]!));
  if (!form) throw new Error(`no '${label}' button on ${path}`);
  const fields = new URLSearchParams();
  for (const input of form[1]!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    if (name) fields.set(name, /value="([^"]*)"/.exec(input[0])?.[1] ?? "");
  }
  const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]*)"[^>]*>\s*[^<]*<\/button>/.exec(form[1]!);
  if (button && new RegExp(`>\\s*${label}\\s*<`).test(button[0])) fields.set(button[1]!, button[2]!);
  return fetch(`${t.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fields,
  });
}

function cryptoInvoice(t: TestApi, who: { token: string; email: string }, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return t.post("/api/payments/crypto/invoice", {
    token: who.token,
    headers,
    json: { productId: "vpn_1_month", planId: 1, amount: "9.99", currency: "USD", email: who.email, ...extra },
  });
}

async function sendEvent(t: TestApi, event: Record<string, unknown>) {
  const payload = JSON.stringify({ object: "event", created: Math.floor(Date.now() / 1000), ...event });
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SANDBOX_WEBHOOK_SECRET });
  return t.post("/api/payments/stripe/webhook", { raw: payload, headers: { "content-type": "application/json", "stripe-signature": signature } });
}

describe.each(databases())("security review: payments ($name)", (kind) => {
  const t = useApi(kind);

  it("a declined card gives its coupon hold back", async () => {
    await addCoupon(t, { code: "DECLINE50", max_redemptions: 1 });
    const unlucky = await customer(t, "declined-coupon@example.com");
    const declined = await payMonthly(t, unlucky, await paymentMethod(t, DECLINED), "DECLINE50");
    expect(declined.status).toBe(402);
    expect(await coupon(t, "DECLINE50")).toMatchObject({ times_redeemed: 0, reserved: 0 });
    const next = await customer(t, "after-decline@example.com");
    const paid = await payMonthly(t, next, await paymentMethod(t, GOOD), "DECLINE50");
    expect(paid.status, paid.text).toBe(200);
    expect(await coupon(t, "DECLINE50")).toMatchObject({ times_redeemed: 1, reserved: 0 });
  });

  it("a crypto purchase with a coupon holds it, then counts the redemption and records the discount", async () => {
    await addCoupon(t, { code: "CRYPTO50", max_redemptions: 1 });
    const who = await customer(t, "crypto-coupon@example.com");
    const created = await cryptoInvoice(t, who, { coupon: "crypto50", amount: "4.99" });
    expect(created.status, created.text).toBe(200);
    expect(await coupon(t, "CRYPTO50")).toMatchObject({ times_redeemed: 0, reserved: 1 });
    // While the invoice is open the coupon's only redemption is taken.
    const other = await customer(t, "crypto-coupon-late@example.com");
    const refused = await cryptoInvoice(t, other, { coupon: "CRYPTO50", amount: "4.99" });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.fields.coupon).toEqual([INVALID]);
    expect((await t.post("/api/coupons/apply", { json: { code: "CRYPTO50", planId: 1 } })).status).toBe(422);

    expect((await press(t, created.body.data.invoiceUrl, "Mark as paid")).status).toBe(303);
    const rows = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", who.userId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "paid", payment_gateway: "bitpay", amount_cents: 499, coupon_code: "CRYPTO50" });
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(sub.coupon_code).toBe("CRYPTO50");
    expect(await coupon(t, "CRYPTO50")).toMatchObject({ times_redeemed: 1, reserved: 0 });
  });

  it("an expired crypto invoice gives its coupon hold back", async () => {
    await addCoupon(t, { code: "EXPIRE50", max_redemptions: 1 });
    const who = await customer(t, "crypto-expire@example.com");
    const created = await cryptoInvoice(t, who, { coupon: "EXPIRE50", amount: "4.99" });
    expect(created.status, created.text).toBe(200);
    const other = await customer(t, "crypto-expire-2@example.com");
    expect((await cryptoInvoice(t, other, { coupon: "EXPIRE50", amount: "4.99" })).status).toBe(422);
    expect((await press(t, created.body.data.invoiceUrl, "Let it expire")).status).toBe(303);
    expect(await coupon(t, "EXPIRE50")).toMatchObject({ times_redeemed: 0, reserved: 0 });
    const again = await cryptoInvoice(t, other, { coupon: "EXPIRE50", amount: "4.99" });
    expect(again.status, again.text).toBe(200);
    expect(await coupon(t, "EXPIRE50")).toMatchObject({ reserved: 1 });
  });

  it("an expired hosted checkout session gives its coupon hold back", async () => {
    await addCoupon(t, { code: "HOSTED50", max_redemptions: 1 });
    const who = await customer(t, "hosted-coupon@example.com");
    const started = await t.post("/api/payments/checkout-session", {
      token: who.token,
      json: { planId: 1, coupon: "HOSTED50", return_path: "/subscription/payment/1", idempotency_key: newKey() },
    });
    expect(started.status, started.text).toBe(200);
    expect(await coupon(t, "HOSTED50")).toMatchObject({ reserved: 1 });
    expect((await t.post("/api/coupons/apply", { json: { code: "HOSTED50", planId: 1 } })).status).toBe(422);
    // Stripe expires the session (the sandbox sends checkout.session.expired to the webhook).
    await t.api.payments.gateway.stripe.checkout.sessions.expire(started.body.data.id);
    expect(await coupon(t, "HOSTED50")).toMatchObject({ times_redeemed: 0, reserved: 0 });
    expect((await t.post("/api/coupons/apply", { json: { code: "HOSTED50", planId: 1 } })).status).toBe(200);
  });

  it("coupon guesses: one message for unknown, expired, used-up and other-plan codes, and 429 within 200 rapid guesses", async () => {
    await addCoupon(t, { code: "OLDCODE", expires_at: new Date(t.clock.now().getTime() - DAY).toISOString() });
    await addCoupon(t, { code: "USEDUP", max_redemptions: 1, times_redeemed: 1 });
    await addCoupon(t, { code: "YEARLYONLY", plan_ids: "5,6" });
    const from = { "x-forwarded-for": "203.0.113.7" };
    const answers = [];
    for (const code of ["NOSUCHCODE", "OLDCODE", "USEDUP", "YEARLYONLY"]) {
      const res = await t.post("/api/coupons/apply", { json: { code, planId: 1 }, headers: from });
      expect(res.status, code).toBe(422);
      answers.push({ message: res.body.message, fields: res.body.errors.fields });
    }
    expect(answers).toEqual(Array(4).fill({ message: INVALID, fields: { code: [INVALID] } }));

    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) => t.post("/api/coupons/apply", { json: { code: `GUESS${i}`, planId: 1 }, headers: from })),
    );
    const statuses = burst.map((r) => r.status);
    // 20 tries per address per 10 minutes (4 made above): no more get through in parallel than in a row.
    expect(statuses.filter((s) => s === 422)).toHaveLength(16);
    expect(statuses.filter((s) => s === 429)).toHaveLength(184);
    const limited = burst.find((r) => r.status === 429)!;
    expect(limited.body.message).toMatch(/^Too many coupon attempts\. Please try again in \d+ minutes?\.$/);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Even a valid code waits now at this address; another address is not affected.
    expect((await t.post("/api/coupons/apply", { json: { code: "WELCOME10", planId: 1 }, headers: from })).status).toBe(429);
    expect((await t.post("/api/coupons/apply", { json: { code: "WELCOME10", planId: 1 }, headers: { "x-forwarded-for": "203.0.113.8" } })).status).toBe(200);
  });

  it("coupon guesses count per signed-in account across addresses; valid quotes never count", async () => {
    const who = await customer(t, "guesser@example.com");
    // The checkout quotes an applied coupon on every page load: that is not guessing.
    for (let i = 0; i < 30; i++) {
      const res = await t.post("/api/coupons/apply", { token: who.token, json: { code: "WELCOME10", planId: 1 }, headers: { "x-forwarded-for": "198.51.100.1" } });
      expect(res.status).toBe(200);
    }
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.post("/api/coupons/apply", { token: who.token, json: { code: `ACCT${i}`, planId: 1 }, headers: { "x-forwarded-for": `198.51.100.${10 + i}` } }),
      ),
    );
    expect(guesses.filter((r) => r.status === 422)).toHaveLength(20);
    expect(guesses.filter((r) => r.status === 429)).toHaveLength(20);
  });

  it("a signed payment_intent.succeeded naming an object Stripe does not have activates nothing", async () => {
    const who = await customer(t, "forged-unknown@example.com");
    const res = await sendEvent(t, {
      id: "evt_forged_unknown_pi",
      type: "payment_intent.succeeded",
      data: {
        object: {
          id: "pi_forged_does_not_exist",
          object: "payment_intent",
          status: "succeeded",
          amount: 19900,
          amount_received: 19900,
          currency: "usd",
          metadata: { kind: "one_time", plan_id: "7", user_id: String(who.userId), wallet_payment_type: "card" },
        },
      },
    });
    expect(res.status).toBe(200);
    expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(0);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(0);
  });

  it("a signed payment_intent.succeeded whose amount differs from Stripe's PaymentIntent activates nothing", async () => {
    const who = await customer(t, "forged-amount@example.com");
    const { stripe } = t.api.payments.gateway;
    const cus = await stripe.customers.create({ email: who.email });
    const pm = await paymentMethod(t, GOOD);
    await stripe.paymentMethods.attach(pm, { customer: cus.id });
    const metadata = { kind: "one_time", plan_id: "7", user_id: String(who.userId), wallet_payment_type: "card" };
    // A real, succeeded PaymentIntent of one dollar, made to look like the 5-year plan's.
    const cheap = await stripe.paymentIntents.create({
      amount: 100,
      currency: "usd",
      customer: cus.id,
      payment_method: pm,
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      metadata,
    });
    expect(cheap.status).toBe("succeeded");
    const res = await sendEvent(t, {
      id: "evt_forged_amount",
      type: "payment_intent.succeeded",
      data: { object: { ...cheap, amount: 19900, amount_received: 19900 } },
    });
    expect(res.status).toBe(200);
    expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(0);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(0);
  });

  it("a signed customer.subscription.deleted for a subscription that Stripe still has active ends nothing", async () => {
    const who = await customer(t, "forged-deleted@example.com");
    const paid = await t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: who.email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    const before = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    const res = await sendEvent(t, {
      id: "evt_forged_deleted",
      type: "customer.subscription.deleted",
      data: {
        object: {
          id: before.stripe_sub_id,
          object: "subscription",
          status: "canceled",
          ended_at: Math.floor(Date.now() / 1000),
          cancel_at_period_end: false,
          metadata: {},
        },
      },
    });
    expect(res.status).toBe(200);
    const after = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ sub_exp_date: before.sub_exp_date, cancel_at_period_end: 0, subs_status: "subscription_started" });
    expect((await t.post("/api/subscription/active", { token: who.token })).body.data.subscription).not.toBeNull();
  });
});

describe.each(databases({ postgres: "coupon holds and invoice limits under parallel posts" }))("security review: payments in parallel ($name)", (kind) => {
  const t = useApi(kind);

  it("a coupon with max_redemptions 1 gives exactly one discount to 5 parallel card purchases", async () => {
    await addCoupon(t, { code: "ONCE50", max_redemptions: 1 });
    const buyers = await Promise.all(Array.from({ length: 5 }, (_, i) => customer(t, `parallel-${i}@example.com`)));
    const cards = await Promise.all(buyers.map(() => paymentMethod(t, GOOD)));
    const answers = await Promise.all(buyers.map((who, i) => payMonthly(t, who, cards[i]!, "once50")));
    const paid = answers.filter((a) => a.status === 200);
    expect(paid, answers.map((a) => `${a.status} ${a.body?.message}`).join("; ")).toHaveLength(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(422);
      expect(refused.body.errors.fields.coupon).toEqual([INVALID]);
    }
    const discounted = await t.db.selectFrom("transactions").select(["amount_cents", "coupon_code"]).where("coupon_code", "=", "ONCE50").execute();
    expect(discounted).toEqual([{ amount_cents: 499, coupon_code: "ONCE50" }]);
    expect(await coupon(t, "ONCE50")).toMatchObject({ times_redeemed: 1, reserved: 0 });
  });

  it("retries of one payment (one idempotency key) take one redemption", async () => {
    await addCoupon(t, { code: "TWICE50", max_redemptions: 2 });
    const who = await customer(t, "retry-coupon@example.com");
    const pm = await paymentMethod(t, GOOD);
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 5 }, () => payMonthly(t, who, pm, "TWICE50", key)));
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(await coupon(t, "TWICE50")).toMatchObject({ times_redeemed: 1, reserved: 0 });
    // The second redemption is still there for someone else.
    const other = await customer(t, "retry-coupon-2@example.com");
    expect((await payMonthly(t, other, await paymentMethod(t, GOOD), "TWICE50")).status).toBe(200);
    expect(await coupon(t, "TWICE50")).toMatchObject({ times_redeemed: 2, reserved: 0 });
  });

  it("crypto invoice creation is limited per email and per client address, also in a parallel burst", async () => {
    const who = await customer(t, "invoice-spammer@example.com");
    // One victim's email from many addresses: 10 invoices an hour.
    const perEmail = await Promise.all(
      Array.from({ length: 15 }, (_, i) => cryptoInvoice(t, who, { email: "victim@example.com" }, { "x-forwarded-for": `192.0.2.${i + 1}` })),
    );
    expect(perEmail.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = perEmail.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.body.message).toMatch(/^Too many crypto invoices were requested\. Please try again in \d+ minutes?\.$/);
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Many emails from one address: 20 an hour.
    const perAddress = await Promise.all(
      Array.from({ length: 25 }, (_, i) => cryptoInvoice(t, who, { email: `someone-${i}@example.com` }, { "x-forwarded-for": "192.0.2.200" })),
    );
    expect(perAddress.filter((r) => r.status === 200)).toHaveLength(20);
    expect(perAddress.filter((r) => r.status === 429)).toHaveLength(5);
    const opened = await t.db.selectFrom("crypto_invoices").select("id").where("user_id", "=", who.userId).execute();
    expect(opened).toHaveLength(30);
  });
});
