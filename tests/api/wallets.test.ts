import { describe, expect, it } from "vitest";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, customer, newKey, paymentMethod } from "./payment-support";

// Google Pay and Apple Pay (commerce §3, §7) through the Stripe sandbox: the wallet's card becomes a
// PaymentMethod at the sandbox's tokenizer (the stand-in for the wallet sheet + Stripe.js).

function transactionsOf(t: TestApi, userId: number) {
  return t.db
    .selectFrom("transactions")
    .select(["status", "wallet_payment_type", "amount_cents", "plan_id", "failure_message"])
    .where("user_id", "=", userId)
    .orderBy("id")
    .execute();
}

describe.each(databases())("wallet payments ($name)", (kind) => {
  const t = useApi(kind);

  it("Google Pay pays the 2-year plan: subscription, transaction recorded as googlepay", async () => {
    const { userId, token, email } = await customer(t, "gpay@example.com");
    const res = await t.post("/api/payments/wallet", {
      token,
      json: {
        paymentTokenId: await paymentMethod(t, GOOD),
        productId: "vpn_2_years",
        planId: 6,
        paymentSource: "googlepay",
        email,
        idempotency_key: newKey(),
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe("Payment successful.");
    expect(res.body.data).toMatchObject({ status: "paid", payment_source: "googlepay", subscription: { plan_id: 6, subscription_by: "stripe" } });
    expect(await transactionsOf(t, userId)).toEqual([
      { status: "paid", wallet_payment_type: "googlepay", amount_cents: 10776, plan_id: 6, failure_message: null },
    ]);
    expect((await t.post("/api/subscription/active", { token })).body.data.subscription.plan_id).toBe(6);
  });

  it("Apple Pay pays the one-time 5-year plan, recorded as applepay", async () => {
    const { userId, token } = await customer(t, "apay@example.com");
    const res = await t.post("/api/payments/wallet", {
      token,
      json: { paymentTokenId: await paymentMethod(t, GOOD), planId: 7, paymentSource: "applepay", idempotency_key: newKey() },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ status: "paid", payment_source: "applepay", subscription: { billing_type: "single" } });
    expect((await transactionsOf(t, userId)).map((r) => [r.status, r.wallet_payment_type])).toEqual([["paid", "applepay"]]);
  });

  it("a declined wallet card answers 402 with the gateway's message and records 'Payment failed' as googlepay", async () => {
    const { userId, token } = await customer(t, "gpay-declined@example.com");
    const res = await t.post("/api/payments/wallet", {
      token,
      json: { paymentTokenId: await paymentMethod(t, DECLINED), planId: 1, paymentSource: "googlepay", idempotency_key: newKey() },
    });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ status: false, success: false, message: "Your card was declined.", errors: { message: "Your card was declined.", code: "card_declined" } });
    expect(await transactionsOf(t, userId)).toEqual([
      { status: "Payment failed", wallet_payment_type: "googlepay", amount_cents: expect.any(Number), plan_id: 1, failure_message: "Your card was declined." },
    ]);
    expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();
  });

  it("one idempotency key pays once: parallel posts get the same answer; the key with other details is refused", async () => {
    const { userId, token } = await customer(t, "gpay-double@example.com");
    const json = { paymentTokenId: await paymentMethod(t, GOOD), planId: 2, paymentSource: "googlepay", idempotency_key: newKey() };
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.post("/api/payments/wallet", { token, json })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((a) => a.body.data.subscription.id)).size).toBe(1);
    expect(answers[0]!.headers.get("idempotency-key")).toBe(json.idempotency_key);
    expect(await transactionsOf(t, userId)).toHaveLength(1);
    const other = await t.post("/api/payments/wallet", { token, json: { ...json, paymentSource: "applepay" } });
    expect(other.status).toBe(422);
    expect(other.body.message).toBe("This payment was already submitted with other details. Please reload the page and try again.");
  });

  it("validates the payload: the wallet, the email, the token; and needs a bearer token", async () => {
    const { token } = await customer(t, "gpay-invalid@example.com");
    const base = { paymentTokenId: "pm_x", planId: 1, paymentSource: "googlepay", idempotency_key: newKey() };
    const source = await t.post("/api/payments/wallet", { token, json: { ...base, paymentSource: "paypal" } });
    expect(source.status).toBe(422);
    expect(source.body.errors.fields.paymentSource).toEqual(["The payment source must be googlepay or applepay."]);
    const email = await t.post("/api/payments/wallet", { token, json: { ...base, email: "someone@example.com" } });
    expect(email.status).toBe(422);
    expect(email.body.message).toBe("This email does not match your account.");
    const unknownCard = await t.post("/api/payments/wallet", { token, json: { ...base, paymentTokenId: "pm_does_not_exist" } });
    expect(unknownCard.status).toBe(422);
    expect(unknownCard.body.message).toBe("This card cannot be used. Please enter your card again.");
    const plan = await t.post("/api/payments/wallet", { token, json: { ...base, planId: 4, idempotency_key: newKey() } });
    expect(plan.status).toBe(404);
    expect((await t.post("/api/payments/wallet", { json: base })).status).toBe(401);
  });
});

describe.each(databases())("Apple Pay charge and merchant validation ($name)", (kind) => {
  const t = useApi(kind);

  for (const path of ["/payments/apple/charge", "/api/payments/apple/charge"]) {
    it(`${path}: a wrong amount or currency is 422, the plan's price pays (applepay), a double submit of one token charges once`, async () => {
      const { userId, token, email } = await customer(t, `charge${path.length}@example.com`);
      const pm = await paymentMethod(t, GOOD);
      const body = { token: pm, email, amount: 10776, currency: "USD", productId: "vpn_2_years", planId: 6 };

      const wrong = await t.post(path, { token, json: { ...body, amount: 599 } });
      expect(wrong.status).toBe(422);
      expect(wrong.body.message).toBe("The amount does not match the price of 2 Years: 10776 cents ($107.76 USD).");
      expect(wrong.body.errors.fields.amount).toEqual([wrong.body.message]);
      const dollars = await t.post(path, { token, json: { ...body, amount: 107.76 } });
      expect(dollars.status).toBe(422);
      expect(dollars.body.errors.fields.amount).toEqual(["The amount must be a whole number of cents, e.g. 599 for $5.99."]);
      const euros = await t.post(path, { token, json: { ...body, currency: "EUR" } });
      expect(euros.status).toBe(422);
      expect(euros.body.message).toBe("Only USD is accepted.");
      expect(await transactionsOf(t, userId)).toEqual([]);

      const [first, second] = await Promise.all([t.post(path, { token, json: body }), t.post(path, { token, json: body })]);
      expect(first!.status, first!.text).toBe(200);
      expect(second!.status).toBe(200);
      expect(first!.body.data).toMatchObject({ status: "paid", payment_source: "applepay", subscription: { plan_id: 6 } });
      expect(second!.body.data.subscription.id).toBe(first!.body.data.subscription.id);
      expect(await transactionsOf(t, userId)).toEqual([
        { status: "paid", wallet_payment_type: "applepay", amount_cents: 10776, plan_id: 6, failure_message: null },
      ]);
    });

    it(`${path}: a declined card is 402 with the gateway's message; errors are envelopes; a bearer token is needed`, async () => {
      const { userId, token, email } = await customer(t, `charge-declined${path.length}@example.com`);
      const body = { token: await paymentMethod(t, DECLINED), email, amount: 999, currency: "usd", planId: 1 };
      const res = await t.post(path, { token, json: body, headers: { "Idempotency-Key": newKey() } });
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ status: false, success: false, message: "Your card was declined.", errors: { message: "Your card was declined.", code: "card_declined" } });
      expect((await transactionsOf(t, userId)).map((r) => [r.status, r.wallet_payment_type])).toEqual([["Payment failed", "applepay"]]);

      const anonymous = await t.post(path, { json: body });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toMatchObject({ status: false, message: "Unauthenticated." });
      const malformed = await t.post(path, { token, raw: "{not json", headers: { "content-type": "application/json" } });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ status: false, message: "The request body is not valid JSON." });
      const missing = await t.post(path, { token, json: { email } });
      expect(missing.status).toBe(422);
      expect(Object.keys(missing.body.errors.fields).sort()).toEqual(["amount", "planId", "token"]);
      const wrongMethod = await t.get(path, { token });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get("allow")).toContain("POST");
    });
  }

  it("the root path takes form data too, and its answers are never cached", async () => {
    const { token, email } = await customer(t, "charge-form@example.com");
    const res = await t.post("/payments/apple/charge", {
      token,
      form: { token: await paymentMethod(t, GOOD), email, amount: "999", planId: "1" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body.data.subscription.plan_id).toBe(1);
  });

  it("merchant validation answers the sandbox's stand-in session for the portal's own domain", async () => {
    const { token } = await customer(t, "merchant@example.com");
    const host = new URL(t.config.publicUrl).hostname;
    const res = await t.post("/api/payments/apple/merchant-validation", {
      token,
      json: { validationURL: "https://apple-pay-gateway.apple.com/paymentservices/startSession", domain: host },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.merchantSession).toMatchObject({ domainName: host, sandbox: true, retries: 0 });
    expect(res.body.data.merchantSession.expiresAt - res.body.data.merchantSession.epochTimestamp).toBe(300_000);

    const otherDomain = await t.post("/api/payments/apple/merchant-validation", { token, json: { domain: "evil.example" } });
    expect(otherDomain.status).toBe(422);
    expect(otherDomain.body.message).toBe("This domain is not registered for Apple Pay.");
    const notApple = await t.post("/api/payments/apple/merchant-validation", { token, json: { validationURL: "https://example.com/startSession" } });
    expect(notApple.status).toBe(422);
    expect(notApple.body.errors.fields.validationURL).toEqual(["The validation URL must be an Apple Pay server (https://…apple.com)."]);
    expect((await t.post("/api/payments/apple/merchant-validation", { json: {} })).status).toBe(401);
  });
});
