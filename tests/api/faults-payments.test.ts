import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Fault } from "../../api/sandboxes/stripe";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, customer, newKey, payOnHostedPage, paymentMethod } from "./payment-support";

// The card gateway failing or not answering in the middle of a payment (decision 012), over real
// HTTP: the product's real Stripe SDK against the Stripe sandbox with its fault switch armed.

const FAILED = "Failed to create Stripe payment";
/**
 * The SDK's timeout here: "no answer" costs a second per try rather than twenty. A normal answer of the
 * in-process sandbox comes well within it even on a busy machine (and one that does not is retried).
 */
const TIMEOUT_MS = 1000;
/** A held answer: past the timeout. */
const NO_ANSWER_MS = 2 * TIMEOUT_MS;

async function customerId(t: TestApi, userId: number): Promise<string> {
  const row = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", userId).executeTakeFirstOrThrow();
  return row.stripe_customer_id!;
}

/** The charges the gateway made for a user: what the card was really billed. */
async function gatewayCharges(t: TestApi, userId: number) {
  const cus = await customerId(t, userId);
  const rows = await t.db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", "charge").where("customer", "=", cus).execute();
  return rows.map((r) => JSON.parse(r.data) as { status: string; amount: number });
}

async function ourTransactions(t: TestApi, userId: number) {
  return t.db.selectFrom("transactions").select(["status", "amount_cents", "gateway_ref"]).where("user_id", "=", userId).execute();
}

async function ourSubscriptions(t: TestApi, userId: number) {
  return t.db.selectFrom("subscriptions").select(["plan_id", "sub_exp_date", "stripe_sub_id"]).where("user_id", "=", userId).execute();
}

function payCard(t: TestApi, who: { token: string; email: string }, body: { paymentMethodId: string; planId: number; idempotency_key: string }) {
  return t.post("/api/payments/card", { token: who.token, json: { type: "new-card", email: who.email, ...body } });
}

describe.each(databases())("the card gateway failing mid-payment ($name)", (kind) => {
  const t = useApi(kind, { env: { STRIPE_TIMEOUT_MS: String(TIMEOUT_MS) } });
  beforeAll(() => {
    // Before each retry the SDK waits half a second or more (stripe-node's fixed initial retry delay, no
    // option): these tests check that it retries, and with the same key, not how long it waits. Its own
    // SDK instance only; the method must be there, else this would go unnoticed.
    const sdk = t.api.payments.gateway!.stripe as unknown as { getInitialNetworkRetryDelay?: () => number };
    expect(typeof sdk.getInitialNetworkRetryDelay).toBe("function");
    sdk.getInitialNetworkRetryDelay = () => 0.02;
  });
  const arm = (...faults: Fault[]) => {
    for (const fault of faults) t.api.stripeSandbox!.faults.inject(fault);
  };
  afterEach(() => t.api.stripeSandbox!.faults.clear());

  it("a 500 from the gateway before it charged is retried with the same key: one charge, one transaction", async () => {
    const who = await customer(t, "gateway-500@example.com");
    arm({ method: "POST", path: "/v1/invoices/:id/pay", when: "before", kind: "error", times: 2 });
    const res = await payCard(t, who, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, idempotency_key: newKey() });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("paid");
    expect(await gatewayCharges(t, who.userId)).toMatchObject([{ status: "succeeded", amount: 999 }]);
    expect(await ourTransactions(t, who.userId)).toMatchObject([{ status: "paid", amount_cents: 999 }]);
  });

  it("an answer lost after the gateway charged (connection reset, then a timeout) is replayed by the retry: one charge", async () => {
    const who = await customer(t, "answer-lost@example.com");
    arm(
      { method: "POST", path: "/v1/invoices/:id/pay", when: "after", kind: "reset", times: 1 },
      { method: "POST", path: "/v1/invoices/:id/pay", when: "after", kind: "delay", delayMs: NO_ANSWER_MS, times: 1 },
    );
    const res = await payCard(t, who, { paymentMethodId: await paymentMethod(t, GOOD), planId: 1, idempotency_key: newKey() });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("paid");
    expect(await gatewayCharges(t, who.userId)).toHaveLength(1);
    expect(await ourTransactions(t, who.userId)).toHaveLength(1);
    expect(await ourSubscriptions(t, who.userId)).toHaveLength(1);
  });

  it("charged at the gateway but every answer lost: 'Failed to create Stripe payment', then the webhook records it once and a retry does not charge again", async () => {
    const who = await customer(t, "webhook-later@example.com");
    const pm = await paymentMethod(t, GOOD);
    const key = newKey();
    // Every try of the SDK (the first and its two retries) charges or replays, and loses the answer;
    // the webhooks are held back, as when Stripe's delivery comes a while later.
    t.api.stripeSandbox!.faults.deferWebhooks = true;
    arm({ method: "POST", path: "/v1/invoices/:id/pay", when: "after", kind: "reset", times: 3 });
    const failed = await payCard(t, who, { paymentMethodId: pm, planId: 2, idempotency_key: key });
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe(FAILED);
    // The gateway has the money; we record nothing yet, and above all no 'Payment failed'.
    expect(await gatewayCharges(t, who.userId)).toMatchObject([{ status: "succeeded" }]);
    expect(await ourTransactions(t, who.userId)).toEqual([]);
    expect((await t.post("/api/subscription/active", { token: who.token })).body.data.subscription).toBeNull();

    // Stripe's signed webhooks arrive (the sandbox's next advance delivers what it held).
    t.api.stripeSandbox!.faults.clear();
    await t.api.stripeSandbox!.advance();
    expect(await ourTransactions(t, who.userId)).toMatchObject([{ status: "paid", amount_cents: 2697 }]);
    const active = (await t.post("/api/subscription/active", { token: who.token })).body.data.subscription;
    expect(active).toMatchObject({ plan_id: 2, subscription_by: "stripe" });

    // The customer presses Pay again with the same form (same key): no second charge, no second row.
    const retry = await payCard(t, who, { paymentMethodId: pm, planId: 2, idempotency_key: key });
    expect([200, 409]).toContain(retry.status);
    expect(await gatewayCharges(t, who.userId)).toHaveLength(1);
    expect(await ourTransactions(t, who.userId)).toHaveLength(1);
    expect(await ourSubscriptions(t, who.userId)).toHaveLength(1);
  });

  it("a retry with the same key before the webhook comes gets the gateway's stored answers: paid, recorded once with the later webhook", async () => {
    const who = await customer(t, "retry-first@example.com");
    const pm = await paymentMethod(t, GOOD);
    const key = newKey();
    t.api.stripeSandbox!.faults.deferWebhooks = true;
    arm({ method: "POST", path: "/v1/invoices/:id/pay", when: "after", kind: "delay", delayMs: NO_ANSWER_MS, times: 3 });
    const failed = await payCard(t, who, { paymentMethodId: pm, planId: 3, idempotency_key: key });
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe(FAILED);

    const retry = await payCard(t, who, { paymentMethodId: pm, planId: 3, idempotency_key: key });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data.status).toBe("paid");
    t.api.stripeSandbox!.faults.clear();
    await t.api.stripeSandbox!.advance();
    expect(await gatewayCharges(t, who.userId)).toHaveLength(1);
    expect(await ourTransactions(t, who.userId)).toMatchObject([{ status: "paid" }]);
    expect(await ourSubscriptions(t, who.userId)).toHaveLength(1);
  });

  it("the 5-year plan's one payment, answer lost: recorded once by payment_intent.succeeded", async () => {
    const who = await customer(t, "one-time-lost@example.com");
    t.api.stripeSandbox!.faults.deferWebhooks = true;
    arm({ method: "POST", path: "/v1/payment_intents", when: "after", kind: "error", times: 3 });
    const failed = await payCard(t, who, { paymentMethodId: await paymentMethod(t, GOOD), planId: 7, idempotency_key: newKey() });
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe(FAILED);
    expect(await ourTransactions(t, who.userId)).toEqual([]);
    t.api.stripeSandbox!.faults.clear();
    await t.api.stripeSandbox!.advance();
    await t.api.stripeSandbox!.advance();
    expect(await gatewayCharges(t, who.userId)).toHaveLength(1);
    expect(await ourTransactions(t, who.userId)).toMatchObject([{ status: "paid" }]);
    expect(await ourSubscriptions(t, who.userId)).toMatchObject([{ plan_id: 7, stripe_sub_id: null }]);
  });

  it("the gateway down before anything happened: the failure message, nothing charged, nothing recorded, and paying later works", async () => {
    const who = await customer(t, "gateway-down@example.com");
    const pm = await paymentMethod(t, GOOD);
    arm({ method: "POST", path: "/v1/subscriptions", when: "before", kind: "reset", times: 3 });
    const key = newKey();
    const failed = await payCard(t, who, { paymentMethodId: pm, planId: 5, idempotency_key: key });
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe(FAILED);
    expect(await ourTransactions(t, who.userId)).toEqual([]);
    const paid = await payCard(t, who, { paymentMethodId: pm, planId: 5, idempotency_key: key });
    expect(paid.status, paid.text).toBe(200);
    expect(await gatewayCharges(t, who.userId)).toHaveLength(1);
    expect(await ourTransactions(t, who.userId)).toHaveLength(1);
  });

  it("back from the hosted page while the gateway does not answer: 'Failed to create Stripe payment', not 'session not found'; recorded once it answers", async () => {
    const who = await customer(t, "hosted-lost@example.com");
    const started = await t.post("/api/payments/checkout-session", {
      token: who.token,
      json: { planId: 6, return_path: "/subscription/payment/6", idempotency_key: newKey() },
    });
    expect(started.status, started.text).toBe(200);
    const sessionId = await payOnHostedPage(t, started.body.data.url, "Pat");

    arm({ method: "GET", path: "/v1/checkout/sessions/:id", when: "before", kind: "error", times: 3 });
    const failed = await t.post("/api/payments/checkout-session/complete", { token: who.token, json: { sessionId } });
    expect([failed.status, failed.body.message]).toEqual([502, FAILED]);
    const done = await t.post("/api/payments/checkout-session/complete", { token: who.token, json: { sessionId } });
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.status).toBe("paid");
    expect(await gatewayCharges(t, who.userId)).toHaveLength(1);
    expect(await ourTransactions(t, who.userId)).toHaveLength(1);
  });
});
