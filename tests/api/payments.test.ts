import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { SANDBOX_WEBHOOK_SECRET } from "../../api/sandboxes/stripe";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, NO_FUNDS, customer, newKey, paymentMethod } from "./payment-support";

const DAY = 86_400_000;

function pay(t: TestApi, token: string, body: Record<string, unknown>) {
  return t.post("/api/payments/card", { token, json: { type: "new-card", idempotency_key: newKey(), ...body } });
}

describe.each(databases())("card payments through the Stripe sandbox ($name)", (kind) => {
  const t = useApi(kind);

  it("a visitor verifies the email at checkout, sets a password and is signed in", async () => {
    const email = "visitor@example.com";
    expect((await t.post("/api/anonymous/subscription/email-is-exists", { json: { email } })).status).toBe(200);
    expect((await t.post("/api/user/temp-signup", { json: { email, isCheckout: true, plan_id: "6" } })).status).toBe(200);
    const code = await t.latestCode(email);
    expect((await t.post("/api/user/verify-temp-code", { json: { email, verification_code: code } })).status).toBe(200);
    const bad = await t.post("/api/user/checkout-register", {
      json: { email, verification_code: code, password: "long-enough", password_confirmation: "different!", platform: "Web Browser" },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.fields.password_confirmation).toEqual(["Passwords do not match"]);
    const res = await t.post("/api/user/checkout-register", {
      json: { email, verification_code: code, password: "long-enough", password_confirmation: "long-enough", platform: "Web Browser" },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(true);
    expect(res.body.message).toBe("Registration successful.");
    expect((await t.get("/api/me", { token: res.body.data.token })).body.data.email).toBe(email);
    const user = await t.db.selectFrom("users").selectAll().where("email", "=", email).executeTakeFirstOrThrow();
    expect(user.agreement_at).not.toBeNull();
    // The code email said where to enter it, and the new account is announced with how to come back
    // (issue 33), in a text part and an HTML part.
    const sent = await t.db.selectFrom("mail_outbox").select(["subject", "text", "html"]).where("to_address", "=", email).orderBy("id").execute();
    expect(sent.map((m) => m.subject)).toEqual(["Your verification code", "Welcome to VPN: your account is ready"]);
    expect(sent[0]!.text).toContain("Enter it in the checkout's 'Verify Your Email' window");
    const welcome = sent[1]!;
    expect(welcome.text).toContain(`${t.config.publicUrl}/login`);
    expect(welcome.text).toContain("the password you chose in the checkout");
    expect(welcome.html).toContain(`<a href="${t.config.publicUrl}/forget-password">`);
  });

  it("pays the 2-year plan with a new card: subscription, paid transaction, invoice and the saved card", async () => {
    const { userId, token } = await customer(t, "two-years@example.com");
    const pm = await paymentMethod(t, GOOD);
    const res = await pay(t, token, { paymentMethodId: pm, planId: 6, productId: "vpn_2_years", email: "two-years@example.com" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("paid");
    expect(res.body.data.subscription).toMatchObject({ plan_id: 6, billing_type: "recurring", subscription_by: "stripe", subs_status: "subscription_started" });

    const active = await t.post("/api/subscription/active", { token });
    const sub = active.body.data.subscription;
    expect(sub.plan_id).toBe(6);
    const days = (Date.parse(sub.sub_exp_date) - t.clock.now().getTime()) / DAY;
    // Two years and the three free months.
    expect(days).toBeGreaterThan(365 * 2 + 85);
    expect(days).toBeLessThan(365 * 2 + 95);

    const transactions = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", userId).execute();
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ status: "paid", amount_cents: 10776, payment_gateway: "stripe", wallet_payment_type: "card", plan_id: 6 });
    const invoices = await t.db.selectFrom("invoices").selectAll().where("user_id", "=", userId).execute();
    expect(invoices).toHaveLength(1);
    expect(invoices[0]!.hosted_invoice_url).toMatch(/\/dev\/stripe\/invoices\/in_/);

    const cards = await t.post("/api/payments/payment-methods", { token });
    expect(cards.body.data).toEqual([
      expect.objectContaining({ payment_method_id: pm, card_brand: "visa", card_number: "**** **** **** 4242", is_default: true, billing_name: "Pat Payer" }),
    ]);
    // The card the payment saved is a 'Card added' in the security log, once.
    const events = await t.db.selectFrom("security_events").select(["kind", "detail"]).where("user_id", "=", userId).where("kind", "=", "card_added").execute();
    expect(events).toEqual([{ kind: "card_added", detail: "Visa ending 4242" }]);
  });

  it("a declined card shows the gateway's message, records 'Payment failed' and creates no subscription", async () => {
    const { userId, token } = await customer(t, "declined@example.com");
    for (const [number, message] of [
      [DECLINED, "Your card was declined."],
      [NO_FUNDS, "Your card has insufficient funds."],
    ] as const) {
      const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, number), planId: 6, email: "declined@example.com" });
      expect(res.status).toBe(402);
      expect(res.body.message).toBe(message);
      expect(res.body.errors.code).toBe("card_declined");
    }
    expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();
    const rows = await t.db.selectFrom("transactions").select(["status", "failure_message"]).where("user_id", "=", userId).execute();
    expect(rows).toEqual([
      { status: "Payment failed", failure_message: "Your card was declined." },
      { status: "Payment failed", failure_message: "Your card has insufficient funds." },
    ]);
  });

  it("a declined payment posted again with its key gets the same answer, code included, and is charged once", async () => {
    const { userId, token } = await customer(t, "declined-again@example.com");
    const body = { type: "new-card", paymentMethodId: await paymentMethod(t, DECLINED), planId: 1, email: "declined-again@example.com", idempotency_key: newKey() };
    for (const res of [await t.post("/api/payments/card", { token, json: body }), await t.post("/api/payments/card", { token, json: body })]) {
      expect(res.status).toBe(402);
      expect(res.body.errors).toEqual({ message: "Your card was declined.", code: "card_declined" });
    }
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
  });

  it("refuses a header and a body key that differ (400), and a payment with neither (422)", async () => {
    const { userId, token, email } = await customer(t, "two-keys@example.com");
    const body = { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email };
    const both = await t.post("/api/payments/card", { token, json: { ...body, idempotency_key: newKey() }, headers: { "Idempotency-Key": newKey() } });
    expect(both.status).toBe(400);
    expect(both.body.errors.code).toBe("idempotency_key_conflict");
    expect(both.body.message).toBe("The Idempotency-Key header and the idempotency_key field must be the same key.");
    const neither = await t.post("/api/payments/card", { token, json: body });
    expect(neither.status).toBe(422);
    expect(neither.body.errors.fields).toEqual({ idempotency_key: ["Please reload the page and try again."] });
    const tooLong = await t.post("/api/payments/card", { token, json: body, headers: { "Idempotency-Key": "k".repeat(201) } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.message).toBe("The Idempotency-Key header must be 1 to 200 characters.");
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(0);

    // Every payment call takes the header and refuses a conflict, before it acts.
    const conflict = { "Idempotency-Key": "header-key-0123456789" };
    const key = "body-key-0123456789";
    const posts: Array<[string, Record<string, unknown>]> = [
      ["/api/payments/checkout-session", { planId: 6, return_path: "/subscription/payment/6", idempotency_key: key }],
      ["/api/payments/wallet", { paymentTokenId: await paymentMethod(t, GOOD), planId: 1, paymentSource: "googlepay", idempotency_key: key }],
      ["/api/payments/paypal/checkout", { planId: 6, return_path: "/subscription/payment/6", idempotency_key: key }],
      ["/api/subscription/change", { plan_id: 2, idempotency_key: key }],
      ["/api/billing/pay-open-invoice", { payment_method_id: "pm_none", idempotency_key: key }],
    ];
    for (const [path, json] of posts) {
      const res = await t.post(path, { token, json, headers: conflict });
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.body.errors.code, path).toBe("idempotency_key_conflict");
    }
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(0);

    // The header alone starts the hosted page once: the same session for the same key.
    const start = () =>
      t.post("/api/payments/checkout-session", { token, json: { planId: 6, return_path: "/subscription/payment/6" }, headers: { "Idempotency-Key": key } });
    const first = await start();
    expect(first.status, first.text).toBe(200);
    expect((await start()).body.data.id).toBe(first.body.data.id);
  });

  it("pays again with the saved card ('saved-card'), and refuses another account's card", async () => {
    const { userId, token } = await customer(t, "saved@example.com");
    const pm = await paymentMethod(t, GOOD);
    expect((await pay(t, token, { paymentMethodId: pm, planId: 1, email: "saved@example.com" })).status).toBe(200);
    // The plan one already has, still renewing, is not sold twice.
    const twice = await pay(t, token, { type: "saved-card", paymentMethodId: pm, planId: 1, email: "saved@example.com" });
    expect(twice.status).toBe(409);
    expect(twice.body.message).toBe("This is already your current plan.");

    // Another recurring plan is a change of plan (plan-changes.test.ts); the one-time plan is bought.
    const again = await pay(t, token, { type: "saved-card", paymentMethodId: pm, planId: 7, email: "saved@example.com" });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.subscription.plan_id).toBe(7);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(2);

    const stranger = await customer(t, "stranger@example.com");
    const refused = await pay(t, stranger.token, { type: "saved-card", paymentMethodId: pm, planId: 1, email: "stranger@example.com" });
    expect(refused.status).toBe(404);
    const mismatch = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: "someone@example.com" });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.message).toBe("This email does not match your account.");
  });

  it("WELCOME10 lowers the first payment by 10 % and counts one redemption", async () => {
    const { userId, token } = await customer(t, "coupon@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 6, email: "coupon@example.com", coupon: "welcome10" });
    expect(res.status, res.text).toBe(200);
    const row = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ amount_cents: 9698, coupon_code: "WELCOME10" });
    const coupon = await t.db.selectFrom("coupons").selectAll().where("code", "=", "WELCOME10").executeTakeFirstOrThrow();
    expect(coupon.times_redeemed).toBeGreaterThanOrEqual(1);
    const unknown = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 7, email: "coupon@example.com", coupon: "NOPE" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.fields.coupon).toEqual(["This coupon code is not valid."]);
  });

  // Five years of the test clock is the longest walk in the suite (many seconds on PostgreSQL under load):
  // a timeout would leave the clock moved for the tests after it.
  it("the 5-year plan is one payment that never renews; after its end the account is Free again", async () => {
    const { userId, token } = await customer(t, "five@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 7, email: "five@example.com" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.subscription).toMatchObject({ billing_type: "single", stripe_sub_id: null });
    const sub = res.body.data.subscription;
    const years = (Date.parse(sub.sub_exp_date) - Date.parse(sub.sub_start_date)) / (365.25 * DAY);
    expect(years).toBeCloseTo(5, 1);
    try {
      const moved = await t.post("/dev/clock", { form: { days: String(5 * 366 + 1) } });
      // 303 back to the clock page (fetch follows it).
      expect(moved.status).toBe(200);
      expect(moved.text).toContain("Test clock");
      expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();
      expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
    } finally {
      t.clock.reset();
    }
  }, 60_000);

  it("a monthly plan renews when the test clock passes a month: a second paid transaction, access extended", async () => {
    const { userId, token } = await customer(t, "monthly@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: "monthly@example.com" });
    expect(res.status, res.text).toBe(200);
    const firstEnd = Date.parse(res.body.data.subscription.sub_exp_date);
    try {
      expect((await t.post("/dev/clock", { form: { days: "32" } })).status).toBe(200);
      const rows = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", userId).orderBy("id").execute();
      expect(rows.map((r) => r.status)).toEqual(["paid", "paid"]);
      const active = (await t.post("/api/subscription/active", { token })).body.data.subscription;
      expect(Date.parse(active.sub_exp_date)).toBeGreaterThan(firstEnd + 25 * DAY);
      // Moving the clock again by a day renews nothing more.
      await t.post("/dev/clock", { form: { days: "1" } });
      expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(2);
    } finally {
      t.clock.reset();
    }
  });

  it("pays on the hosted page (no JavaScript): the session completes, then the return records it once", async () => {
    const { userId, token } = await customer(t, "hosted@example.com");
    const started = await t.post("/api/payments/checkout-session", {
      token,
      json: { planId: 6, return_path: "/subscription/payment/6", idempotency_key: newKey() },
    });
    expect(started.status, started.text).toBe(200);
    const url = new URL(started.body.data.url);
    const page = await t.get(url.pathname);
    expect(page.text).toContain("Card number");
    const paid = await fetch(`${t.baseUrl}${url.pathname}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        card_number: GOOD,
        card_expiry: `12 / ${(new Date().getUTCFullYear() + 3) % 100}`,
        card_cvc: "123",
        billing_name: "Pat",
        billing_postal_code: "10115",
      }),
    });
    // The hosted page's own field names are the sandbox's business; find them if these differ.
    if (paid.status !== 303) {
      const html = page.text;
      const names = [...html.matchAll(/name="([^"]+)"/g)].map((m) => m[1]);
      throw new Error(`hosted page answered ${paid.status}; its fields: ${names.join(", ")}`);
    }
    const back = new URL(paid.headers.get("location")!);
    expect(back.pathname).toBe("/subscription/payment/6");
    const sessionId = back.searchParams.get("session_id")!;
    const done = await t.post("/api/payments/checkout-session/complete", { token, json: { sessionId } });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.status).toBe("paid");
    await t.post("/api/payments/checkout-session/complete", { token, json: { sessionId } });
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
    expect((await t.post("/api/payments/payment-methods", { token })).body.data).toHaveLength(1);
    const stranger = await customer(t, "not-hosted@example.com");
    expect((await t.post("/api/payments/checkout-session/complete", { token: stranger.token, json: { sessionId } })).status).toBe(404);
  });

  it("verifies webhook signatures and handles each event once, however often it is delivered", async () => {
    const unsigned = await t.post("/api/payments/stripe/webhook", { raw: "{}", headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.message).toBe("The webhook signature could not be verified.");

    const { userId, token } = await customer(t, "replay@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: "replay@example.com" });
    const stripeSubId = res.body.data.subscription.stripe_sub_id as string;
    const payload = JSON.stringify({
      id: "evt_replayed_1",
      object: "event",
      type: "customer.subscription.updated",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: stripeSubId, object: "subscription", status: "active", cancel_at_period_end: true } },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SANDBOX_WEBHOOK_SECRET });
    for (let i = 0; i < 10; i++) {
      const delivered = await t.post("/api/payments/stripe/webhook", {
        raw: payload,
        headers: { "content-type": "application/json", "stripe-signature": signature },
      });
      expect(delivered.status).toBe(200);
    }
    // The event is only a trigger (it may be old): the subscription follows Stripe, where auto-renewal is still on.
    const row = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ cancel_at_period_end: 0, subs_status: "subscription_started" });
    expect(await t.db.selectFrom("webhook_events").select("id").where("id", "=", "evt_replayed_1").execute()).toHaveLength(1);
  });

  it("a renewal the card refuses is recorded 'Payment failed' and the plan is not extended", async () => {
    const { userId, token } = await customer(t, "renewal-declined@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: "renewal-declined@example.com" });
    const paidUntil = res.body.data.subscription.sub_exp_date as string;
    // The customer's card is replaced by one that declines (as if it had been cancelled by the bank).
    const { stripe } = t.api.payments.gateway;
    const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", userId).executeTakeFirstOrThrow();
    const declining = await paymentMethod(t, DECLINED);
    await stripe.paymentMethods.attach(declining, { customer: user.stripe_customer_id! });
    await stripe.subscriptions.update(res.body.data.subscription.stripe_sub_id, { default_payment_method: declining });
    try {
      await t.post("/dev/clock", { form: { days: "32" } });
      const rows = await t.db.selectFrom("transactions").select(["status", "failure_message"]).where("user_id", "=", userId).orderBy("id").execute();
      // The failed renewal, then the sandbox's automatic retries (1, 3, 5, 7 days on) that fall within the 32 days.
      expect(rows[0]).toEqual({ status: "paid", failure_message: null });
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const failed of rows.slice(1)) expect(failed).toEqual({ status: "Payment failed", failure_message: "Your card was declined." });
      const row = await t.db.selectFrom("subscriptions").select(["sub_exp_date", "grace_until"]).where("user_id", "=", userId).executeTakeFirstOrThrow();
      expect(row.sub_exp_date).toBe(paidUntil);
      // Past due: still active through the grace period (tests/api/dunning.test.ts), then ended.
      expect(row.grace_until).not.toBeNull();
      expect((await t.post("/api/subscription/active", { token })).body.data.subscription).not.toBeNull();
      await t.post("/dev/clock", { form: { days: "15" } });
      expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();
    } finally {
      t.clock.reset();
    }
  });

  it("with auto-renewal off the subscription ends at its period end, without another charge", async () => {
    const { userId, token } = await customer(t, "no-renewal@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: "no-renewal@example.com" });
    await t.api.payments.gateway.stripe.subscriptions.update(res.body.data.subscription.stripe_sub_id, { cancel_at_period_end: true });
    const row = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", userId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ cancel_at_period_end: 1, subs_status: "subscription_cancelled" });
    try {
      await t.post("/dev/clock", { form: { days: "32" } });
      expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
      expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();
    } finally {
      t.clock.reset();
    }
  });

  it("free months come once: the 1-year plan's first payment lasts 14 months, the renewal then bills 12", async () => {
    const { userId, token } = await customer(t, "free-months@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 5, email: "free-months@example.com" });
    expect(res.status, res.text).toBe(200);
    const sub = res.body.data.subscription;
    const months = (iso: string) => (Date.parse(iso) - Date.parse(sub.sub_start_date)) / (30.44 * DAY);
    expect(months(sub.sub_exp_date)).toBeCloseTo(14, 0);
    // At Stripe the next charge waits for the end of the free months.
    const atStripe = await t.api.payments.gateway.stripe.subscriptions.retrieve(sub.stripe_sub_id);
    expect(atStripe.trial_end! * 1000).toBe(Date.parse(sub.sub_exp_date));
    try {
      await t.post("/dev/clock", { form: { days: String(13 * 31) } });
      expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
      await t.post("/dev/clock", { form: { days: "30" } });
      const rows = await t.db.selectFrom("transactions").select(["status", "amount_cents"]).where("user_id", "=", userId).orderBy("id").execute();
      expect(rows).toEqual([
        { status: "paid", amount_cents: 7188 },
        { status: "paid", amount_cents: 7188 },
      ]);
      const renewed = await t.db.selectFrom("subscriptions").select("sub_exp_date").where("user_id", "=", userId).executeTakeFirstOrThrow();
      expect(months(renewed.sub_exp_date)).toBeCloseTo(26, 0);
    } finally {
      t.clock.reset();
    }
  });
});

describe.each(databases({ postgres: "idempotency claims under parallel posts" }))("card payments posted in parallel ($name)", (kind) => {
  const t = useApi(kind);

  it("twenty identical posts (one idempotency key) pay once and all get the same answer", async () => {
    const { userId, token } = await customer(t, "double@example.com");
    const body = { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: "double@example.com", idempotency_key: newKey() };
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.post("/api/payments/card", { token, json: body })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.data.subscription.id)).size).toBe(1);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
    expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
    const invoices = await t.db.selectFrom("stripe_sandbox_objects").select("id").where("type", "=", "invoice").where("customer", "=", (
      await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", userId).executeTakeFirstOrThrow()
    ).stripe_customer_id).execute();
    expect(invoices).toHaveLength(1);
    // The same key with other details is refused.
    const other = await t.post("/api/payments/card", { token, json: { ...body, planId: 2 } });
    expect(other.status).toBe(422);
  });

  it("takes the key in the Idempotency-Key header too: the header alone makes a double submit one charge", async () => {
    const { userId, token, email } = await customer(t, "header-key@example.com");
    const body = { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email };
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.post("/api/payments/card", { token, json: body, headers: { "Idempotency-Key": key } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.data.subscription.id)).size).toBe(1);
    expect(answers[0]!.headers.get("idempotency-key")).toBe(key);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
    // The same key in the body (or in both) is the same payment: its first answer again, no second charge.
    const inBody = await t.post("/api/payments/card", { token, json: { ...body, idempotency_key: key } });
    expect(inBody.status).toBe(200);
    expect(inBody.body.data.subscription.id).toBe(answers[0]!.body.data.subscription.id);
    const inBoth = await t.post("/api/payments/card", { token, json: { ...body, idempotency_key: key }, headers: { "Idempotency-Key": key } });
    expect(inBoth.status).toBe(200);
    expect(inBoth.body.data.subscription.id).toBe(answers[0]!.body.data.subscription.id);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", userId).execute()).toHaveLength(1);
  });
});
