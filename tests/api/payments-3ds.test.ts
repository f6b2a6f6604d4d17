import { describe, expect, it } from "vitest";
import { databases, type TestApi, useApi } from "./harness";
import { THREE_DS_ALWAYS_CARD as AUTH_ALWAYS, THREE_DS_CARD as AUTH_ONCE } from "../support/cards";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// 3-D Secure over HTTP against the Stripe sandbox (its contract: docs/decisions/026): the card
// payment answers the challenge, the browser answers it on the sandbox's page, and
// complete-authentication finishes the attempt from what the gateway says.

const FAILED_MESSAGE = "We are unable to authenticate your payment method. Please choose a different payment method and try again.";
const CHECKOUT = "/subscription/payment/6?authenticated=pay-card";

function pay(t: TestApi, token: string, body: Record<string, unknown>) {
  return t.post("/api/payments/card", { token, json: { type: "new-card", idempotency_key: newKey(), ...body } });
}

/** Presses 'Complete authentication' or 'Fail authentication' on the challenge page; the redirect back, if any. */
async function answer(t: TestApi, challengeUrl: string, result: "complete" | "fail"): Promise<URL | null> {
  const url = new URL(challengeUrl);
  const page = await t.get(`${url.pathname}${url.search}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain("Complete authentication");
  const res = await fetch(`${t.baseUrl}${url.pathname}${url.search}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ result }),
  });
  const location = res.headers.get("location");
  return location ? new URL(location, t.baseUrl) : null;
}

function complete(t: TestApi, token: string, back: URL) {
  const subscription = back.searchParams.get("subscription");
  return t.post("/api/payments/card/complete-authentication", {
    token,
    json: { payment_intent: back.searchParams.get("payment_intent"), ...(subscription ? { subscription } : {}) },
  });
}

async function rows(t: TestApi, userId: number) {
  return t.db.selectFrom("transactions").select(["status", "failure_message", "amount_cents"]).where("user_id", "=", userId).orderBy("id").execute();
}

describe.each(databases())("3-D Secure through the Stripe sandbox ($name)", (kind) => {
  const t = useApi(kind);

  it("a recurring plan with 3155: the challenge completed pays once, a second completion records nothing more", async () => {
    const { userId, token, email } = await customer(t, "three-ds-ok@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 6, email, return_url: CHECKOUT });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ status: "requires_action", payment_intent: expect.stringMatching(/^pi_/), subscription_id: expect.stringMatching(/^sub_/) });
    expect(res.body.data.redirect_url).toMatch(/\/dev\/stripe\/authenticate\/pi_/);
    expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();

    const back = await answer(t, res.body.data.redirect_url, "complete");
    expect(back?.pathname).toBe("/subscription/payment/6");
    expect(back?.searchParams.get("authenticated")).toBe("pay-card");
    expect(back?.searchParams.get("redirect_status")).toBe("succeeded");
    const done = await complete(t, token, back!);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data).toMatchObject({ status: "paid", subscription: { plan_id: 6 } });
    const again = await complete(t, token, back!);
    expect(again.status).toBe(200);
    expect(await rows(t, userId)).toEqual([expect.objectContaining({ status: "paid", amount_cents: 10776 })]);
    expect((await t.post("/api/payments/payment-methods", { token })).body.data).toHaveLength(1);
  });

  it("a failed challenge charges nothing, leaves no subscription, and a retry with 4242 pays once", async () => {
    const { userId, token, email } = await customer(t, "three-ds-fail@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 6, email, return_url: CHECKOUT });
    expect(res.body.data.status).toBe("requires_action");
    const back = await answer(t, res.body.data.redirect_url, "fail");
    expect(back?.searchParams.get("redirect_status")).toBe("failed");
    const done = await complete(t, token, back!);
    expect(done.status).toBe(402);
    expect(done.body.errors.code).toBe("authentication_failed");
    expect(done.body.message).toBe(FAILED_MESSAGE);
    expect((await t.post("/api/subscription/active", { token })).body.data.subscription).toBeNull();
    // One 'Payment failed' row (the webhook of the invoice's failure may have written it first).
    expect(await rows(t, userId)).toEqual([expect.objectContaining({ status: "Payment failed" })]);
    expect((await t.post("/api/payments/payment-methods", { token })).body.data).toHaveLength(0);
    // The failed attempt's subscription is gone at the gateway.
    const sub = await t.api.payments.gateway.stripe.subscriptions.retrieve(res.body.data.subscription_id);
    expect(sub.status).toMatch(/canceled|incomplete_expired/);

    const retry = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 6, email });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.data.status).toBe("paid");
    expect((await rows(t, userId)).filter((row) => row.status === "paid")).toHaveLength(1);
  });

  it("an abandoned challenge (finished without an answer) is a failure that can never charge later", async () => {
    const { userId, token, email } = await customer(t, "three-ds-gone@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 7, email });
    expect(res.body.data.status).toBe("requires_action");
    expect(res.body.data.subscription_id).toBeUndefined();
    expect(res.body.data.authentication_url).toMatch(/\/dev\/stripe\/authenticate\/pi_/);
    const done = await t.post("/api/payments/card/complete-authentication", { token, json: { payment_intent: res.body.data.payment_intent } });
    expect(done.status).toBe(402);
    expect(done.body.message).toBe(FAILED_MESSAGE);
    // The challenge answered late does not charge: the intent was cancelled.
    await answer(t, res.body.data.authentication_url, "complete").catch(() => null);
    const intent = await t.api.payments.gateway.stripe.paymentIntents.retrieve(res.body.data.payment_intent);
    expect(intent.status).toBe("canceled");
    expect(await rows(t, userId)).toEqual([expect.objectContaining({ status: "Payment failed", failure_message: FAILED_MESSAGE })]);
  });

  it("an abandoned recurring payment says Stripe's authentication message and cancels the subscription", async () => {
    const { token, email } = await customer(t, "three-ds-gone-sub@example.com");
    const res = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 6, email });
    expect(res.body.data.status).toBe("requires_action");
    const done = await t.post("/api/payments/card/complete-authentication", {
      token,
      json: { payment_intent: res.body.data.payment_intent, subscription: res.body.data.subscription_id },
    });
    expect(done.status).toBe(402);
    expect(done.body.message).toBe(FAILED_MESSAGE);
    const sub = await t.api.payments.gateway.stripe.subscriptions.retrieve(res.body.data.subscription_id);
    expect(sub.status).toMatch(/canceled|incomplete_expired/);
  });

  it("a new attempt cancels an earlier one whose challenge was never finished, so a late answer cannot charge", async () => {
    const { userId, token, email } = await customer(t, "three-ds-left@example.com");
    const first = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 6, email });
    expect(first.body.data.status).toBe("requires_action");
    const retry = await pay(t, token, { paymentMethodId: await paymentMethod(t, GOOD), planId: 6, email });
    expect(retry.body.data.status).toBe("paid");
    const stale = await t.api.payments.gateway.stripe.subscriptions.retrieve(first.body.data.subscription_id);
    expect(stale.status).toMatch(/canceled|incomplete_expired/);
    await answer(t, first.body.data.authentication_url, "complete").catch(() => null);
    const late = await t.api.payments.gateway.stripe.paymentIntents.retrieve(first.body.data.payment_intent);
    expect(late.status).not.toBe("succeeded");
    expect((await rows(t, userId)).filter((row) => row.status === "paid")).toHaveLength(1);
  });

  it("the one-time plan with 3155 completed is paid once", async () => {
    const { userId, token, email } = await customer(t, "three-ds-once@example.com");
    const res = await pay(t, token, {
      paymentMethodId: await paymentMethod(t, AUTH_ONCE),
      planId: 7,
      email,
      return_url: "/subscription/payment/7?authenticated=pay-card",
    });
    expect(res.body.data.status).toBe("requires_action");
    const back = await answer(t, res.body.data.redirect_url, "complete");
    expect(back?.searchParams.get("subscription")).toBeNull();
    const done = await complete(t, token, back!);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.subscription).toMatchObject({ plan_id: 7, billing_type: "single" });
    await complete(t, token, back!);
    expect((await rows(t, userId)).filter((row) => row.status === "paid")).toHaveLength(1);
  });

  it("a saved 3184 card asks again on 'Pay Now' and pays after the challenge", async () => {
    const { userId, token, email } = await customer(t, "three-ds-saved@example.com");
    const added = await t.post("/api/add-new-card", {
      token,
      json: { payment_method_id: await paymentMethod(t, AUTH_ALWAYS), return_url: "/billing?tab=payment-method" },
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.data).toMatchObject({ status: "requires_action", setup_intent: expect.stringMatching(/^seti_/) });
    const back = await answer(t, added.body.data.redirect_url, "complete");
    expect(back?.searchParams.get("setup_intent")).toBe(added.body.data.setup_intent);
    const saved = await t.post("/api/payment-methods/complete-authentication", { token, json: { setup_intent: added.body.data.setup_intent } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.data).toMatchObject({ card_number: "**** **** **** 3184", is_default: true });

    const res = await pay(t, token, {
      type: "saved-card",
      paymentMethodId: saved.body.data.payment_method_id,
      planId: 6,
      email,
      return_url: "/subscription/payment/6?authenticated=pay-saved",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.status).toBe("requires_action");
    const paidBack = await answer(t, res.body.data.redirect_url, "complete");
    const done = await complete(t, token, paidBack!);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.status).toBe("paid");
    expect((await rows(t, userId)).filter((row) => row.status === "paid")).toHaveLength(1);
  });

  it("Add card with a failed challenge saves nothing", async () => {
    const { token } = await customer(t, "three-ds-add@example.com");
    const added = await t.post("/api/add-new-card", { token, json: { payment_method_id: await paymentMethod(t, AUTH_ONCE) } });
    expect(added.body.data.status).toBe("requires_action");
    await answer(t, added.body.data.authentication_url, "fail");
    const saved = await t.post("/api/payment-methods/complete-authentication", { token, json: { setup_intent: added.body.data.setup_intent } });
    expect(saved.status).toBe(402);
    expect(saved.body.message).toBe(FAILED_MESSAGE);
    expect((await t.post("/api/payments/payment-methods", { token })).body.data).toHaveLength(0);
  });

  it("refuses a return URL of another site and another account's payment", async () => {
    const { token, email } = await customer(t, "three-ds-other@example.com");
    const bad = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 6, email, return_url: "https://evil.example/x" });
    expect(bad.status).toBe(422);
    const mine = await pay(t, token, { paymentMethodId: await paymentMethod(t, AUTH_ONCE), planId: 7, email });
    const other = await customer(t, "three-ds-thief@example.com");
    const stolen = await t.post("/api/payments/card/complete-authentication", { token: other.token, json: { payment_intent: mine.body.data.payment_intent } });
    expect(stolen.status).toBe(404);
  });
});
