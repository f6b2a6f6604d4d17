import { describe, expect, it } from "vitest";
import { getSubscription, listSubscriptionTransactions } from "../../api/payments/paypal/client";
import { THREE_DS_CARD } from "../support/cards";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, TWO_YEARS_BY_CRYPTO, approveAtPayPal, customer, markCryptoPaid, newKey, paymentMethod } from "./payment-support";

// One recurring subscription per account across gateways (review issue 30, docs/decisions/044): a purchase
// started before another finished completes after it (two PayPal tabs, a card paid while a PayPal checkout
// waits, a 3-D Secure challenge answered after a PayPal purchase, a crypto invoice paid late). A new checkout
// ends the pending ones it can, and every completion re-checks: exactly one renewing subscription, the other
// refused 409 subscription_exists with nothing charged or its payment given back at its gateway.

const REFUNDED = "You already have a subscription, so this payment was refunded. Change your plan instead.";

function paypalCheckout(t: TestApi, token: string, planId: number) {
  return t.post("/api/payments/paypal/checkout", {
    token,
    json: { planId, return_path: `/subscription/payment/${planId}`, idempotency_key: newKey() },
  });
}

/** The browser back from PayPal: the portal's loader asks the API to complete. */
function paypalReturn(t: TestApi, token: string, back: URL) {
  const subscriptionId = back.searchParams.get("subscription_id");
  return t.post("/api/payments/paypal/complete", {
    token,
    json: subscriptionId ? { subscription_id: subscriptionId } : { token: back.searchParams.get("token") },
  });
}

/** PayPal's webhooks held back (they fail verification, so the stand-in keeps them for a later retry): a slow webhook. */
async function withoutPayPalWebhooks<T>(t: TestApi, work: () => Promise<T>): Promise<T> {
  const paypal = t.api.paypal!;
  const webhookId = paypal.webhookId;
  paypal.webhookId = "WH-HELD-BACK";
  try {
    return await work();
  } finally {
    paypal.webhookId = webhookId;
  }
}

function payByCard(t: TestApi, who: { token: string; email: string }, planId: number, paymentMethodId: string, extra: Record<string, unknown> = {}) {
  return t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", idempotency_key: newKey(), paymentMethodId, planId, email: who.email, ...extra },
  });
}

/** Presses 'Complete authentication' on the bank's challenge page (the sandbox's); answers the status. */
async function answerChallenge(t: TestApi, challengeUrl: string): Promise<number> {
  const challenge = new URL(challengeUrl);
  const answered = await fetch(`${t.baseUrl}${challenge.pathname}${challenge.search}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ result: "complete" }),
  });
  await answered.text();
  return answered.status;
}

/** The account's recurring subscriptions that still run, and those of them that renew. */
async function recurring(t: TestApi, userId: number) {
  const now = t.clock.now().toISOString();
  const rows = await t.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("billing_type", "=", "recurring")
    .where("sub_exp_date", ">", now)
    .execute();
  return { running: rows, renewing: rows.filter((r) => r.cancel_at_period_end === 0) };
}

/** A PayPal subscription we did not keep: cancelled at PayPal, each payment it took refunded. */
async function expectGivenBackAtPayPal(t: TestApi, paypalSubId: string) {
  const client = t.api.paypal!.client;
  expect((await getSubscription(client, paypalSubId)).status).toBe("CANCELLED");
  const now = t.clock.now().getTime();
  const sales = await listSubscriptionTransactions(client, paypalSubId, new Date(now - 86_400_000), new Date(now + 86_400_000));
  expect(sales.length).toBeGreaterThan(0);
  expect(sales.map((s) => s.status)).toEqual(sales.map(() => "REFUNDED"));
}

/** A Stripe subscription we did not keep: cancelled at Stripe, its first payment refunded in full. */
async function expectGivenBackAtStripe(t: TestApi, stripeSubId: string) {
  const { stripe } = t.api.payments!.gateway;
  const sub = await stripe.subscriptions.retrieve(stripeSubId);
  expect(sub.status).toBe("canceled");
  const invoice = await stripe.invoices.retrieve(sub.latest_invoice as string, { expand: ["payments"] });
  const intentId = invoice.payments!.data[0]!.payment!.payment_intent as string;
  const intent = await stripe.paymentIntents.retrieve(intentId);
  const charge = await stripe.charges.retrieve(intent.latest_charge as string);
  expect(charge.amount_refunded).toBe(charge.amount);
}

describe.each(databases({ postgres: "completions racing under the account's row lock" }))("one recurring subscription across gateways ($name)", (kind) => {
  const t = useApi(kind);

  it("PayPal in two tabs, both approved: one renewing subscription, the earlier checkout given back", async () => {
    const who = await customer(t, "two-paypal-tabs@example.com");
    const first = await paypalCheckout(t, who.token, 1);
    expect(first.status, first.text).toBe(200);
    const second = await paypalCheckout(t, who.token, 3);
    expect(second.status, second.text).toBe(200);
    // The buyer approves both at PayPal (the earlier tab first), then both tabs come back.
    const backFirst = await approveAtPayPal(t, first.body.data.approve_url);
    const backSecond = await approveAtPayPal(t, second.body.data.approve_url);
    const doneFirst = await paypalReturn(t, who.token, backFirst);
    const doneSecond = await paypalReturn(t, who.token, backSecond);
    expect(doneSecond.status, doneSecond.text).toBe(200);
    expect(doneSecond.body.data).toMatchObject({ status: "paid", subscription: { plan_id: 3 } });
    // The earlier checkout was replaced by the newer one: nothing of it is kept.
    expect(doneFirst.status, doneFirst.text).toBe(200);
    expect(doneFirst.body.data.status).toBe("cancelled");
    await expectGivenBackAtPayPal(t, first.body.data.paypal_id);
    const { running, renewing } = await recurring(t, who.userId);
    expect(running).toHaveLength(1);
    expect(renewing.map((r) => r.paypal_sub_id)).toEqual([second.body.data.paypal_id]);
  });

  it("PayPal in two tabs, the first approved while its webhook is slow: the second is refused 409 at completion and refunded", async () => {
    const who = await customer(t, "two-paypal-slow@example.com");
    const first = await paypalCheckout(t, who.token, 1);
    const backFirst = await withoutPayPalWebhooks(t, () => approveAtPayPal(t, first.body.data.approve_url));
    // Charged at PayPal, not recorded yet: a second tab starts and is approved too.
    const second = await paypalCheckout(t, who.token, 3);
    expect(second.status, second.text).toBe(200);
    const backSecond = await withoutPayPalWebhooks(t, () => approveAtPayPal(t, second.body.data.approve_url));
    expect((await paypalReturn(t, who.token, backFirst)).body.data).toMatchObject({ status: "paid", subscription: { plan_id: 1 } });
    const refused = await paypalReturn(t, who.token, backSecond);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.errors.code).toBe("subscription_exists");
    expect(refused.body.message).toBe(REFUNDED);
    await expectGivenBackAtPayPal(t, second.body.data.paypal_id);
    // A reload of the return, and the late webhooks, change nothing.
    expect((await paypalReturn(t, who.token, backSecond)).body.errors.code).toBe("subscription_exists");
    await t.api.runDueJobs();
    const { running, renewing } = await recurring(t, who.userId);
    expect(running).toHaveLength(1);
    expect(renewing.map((r) => r.paypal_sub_id)).toEqual([first.body.data.paypal_id]);
  });

  it("two approved PayPal subscriptions coming back at the same moment: one is kept, the other refused 409 and refunded", async () => {
    const who = await customer(t, "two-paypal-at-once@example.com");
    const started: { paypal_id: string; approve_url: string }[] = [];
    const backs = await withoutPayPalWebhooks(t, async () => {
      const urls: URL[] = [];
      for (const planId of [1, 3]) {
        const checkout = await paypalCheckout(t, who.token, planId);
        expect(checkout.status, checkout.text).toBe(200);
        started.push(checkout.body.data);
        urls.push(await approveAtPayPal(t, checkout.body.data.approve_url));
      }
      return urls;
    });
    const answers = await Promise.all(backs.map((back) => paypalReturn(t, who.token, back)));
    expect(answers.map((a) => a.status).sort(), answers.map((a) => a.text).join("\n")).toEqual([200, 409]);
    const refused = answers.findIndex((a) => a.status === 409);
    expect(answers[refused]!.body.errors.code).toBe("subscription_exists");
    await expectGivenBackAtPayPal(t, started[refused]!.paypal_id);
    const { running, renewing } = await recurring(t, who.userId);
    expect(running).toHaveLength(1);
    expect(renewing.map((r) => r.paypal_sub_id)).toEqual([started[1 - refused]!.paypal_id]);
  });

  it("a card paid while a PayPal checkout waits: the PayPal checkout ends, and approving it later charges nothing that is kept", async () => {
    const who = await customer(t, "card-after-paypal@example.com");
    const pending = await paypalCheckout(t, who.token, 1);
    expect(pending.status, pending.text).toBe(200);
    const card = await payByCard(t, who, 3, await paymentMethod(t, GOOD));
    expect(card.status, card.text).toBe(200);
    const back = await approveAtPayPal(t, pending.body.data.approve_url);
    const done = await paypalReturn(t, who.token, back);
    expect(done.body.data?.status ?? done.body.errors.code).not.toBe("paid");
    await expectGivenBackAtPayPal(t, pending.body.data.paypal_id);
    const { running, renewing } = await recurring(t, who.userId);
    expect(running).toHaveLength(1);
    expect(renewing[0]).toMatchObject({ plan_id: 3, subscription_by: "stripe" });
  });

  it("a card paid while an approved PayPal subscription is not recorded yet: the PayPal return is refused 409 and refunded", async () => {
    const who = await customer(t, "card-while-paypal-approved@example.com");
    const pending = await paypalCheckout(t, who.token, 1);
    const back = await withoutPayPalWebhooks(t, async () => {
      const back = await approveAtPayPal(t, pending.body.data.approve_url);
      const card = await payByCard(t, who, 3, await paymentMethod(t, GOOD));
      expect(card.status, card.text).toBe(200);
      return back;
    });
    const refused = await paypalReturn(t, who.token, back);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.errors.code).toBe("subscription_exists");
    await expectGivenBackAtPayPal(t, pending.body.data.paypal_id);
    const { running } = await recurring(t, who.userId);
    expect(running.map((r) => [r.plan_id, r.subscription_by])).toEqual([[3, "stripe"]]);
  });

  it("the 2-year plan's PayPal order approved after a card purchase is never captured: 409, nothing charged", async () => {
    const who = await customer(t, "order-after-card@example.com");
    const order = await paypalCheckout(t, who.token, 6);
    expect(order.body.data.kind).toBe("order");
    const back = await withoutPayPalWebhooks(t, async () => {
      const back = await approveAtPayPal(t, order.body.data.approve_url);
      expect((await payByCard(t, who, 1, await paymentMethod(t, GOOD))).status).toBe(200);
      return back;
    });
    const done = await paypalReturn(t, who.token, back);
    expect([done.status, done.body.errors?.code ?? done.body.data.status]).not.toEqual([200, "paid"]);
    const captured = await t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).where("payment_gateway", "=", "paypal").execute();
    expect(captured).toEqual([]);
    const { running } = await recurring(t, who.userId);
    expect(running.map((r) => r.subscription_by)).toEqual(["stripe"]);
  });

  it("PayPal bought while a card waits for 3-D Secure: the card attempt ends, its late challenge charges nothing", async () => {
    const who = await customer(t, "paypal-while-3ds@example.com");
    const card = await payByCard(t, who, 1, await paymentMethod(t, THREE_DS_CARD), { return_url: "/subscription/payment/1?authenticated=pay-card" });
    expect(card.body.data.status, card.text).toBe("requires_action");
    const paypal = await paypalCheckout(t, who.token, 3);
    expect(paypal.status, paypal.text).toBe(200);
    const done = await paypalReturn(t, who.token, await approveAtPayPal(t, paypal.body.data.approve_url));
    expect(done.body.data).toMatchObject({ status: "paid", subscription: { plan_id: 3 } });
    // The customer answers the bank's challenge of the ended attempt in the other tab: it no longer charges.
    await answerChallenge(t, card.body.data.redirect_url);
    const { stripe } = t.api.payments!.gateway;
    expect((await stripe.subscriptions.retrieve(card.body.data.subscription_id)).status).not.toBe("active");
    const finished = await t.post("/api/payments/card/complete-authentication", {
      token: who.token,
      json: { payment_intent: card.body.data.payment_intent, subscription: card.body.data.subscription_id },
    });
    expect(finished.body.data?.status).not.toBe("paid");
    const { running } = await recurring(t, who.userId);
    expect(running.map((r) => r.subscription_by)).toEqual(["paypal"]);
  });

  it("a 3-D Secure challenge answered after a PayPal purchase completed: refused 409 at completion, the card refunded", async () => {
    const who = await customer(t, "3ds-after-paypal@example.com");
    const paypal = await paypalCheckout(t, who.token, 3);
    const card = await withoutPayPalWebhooks(t, async () => {
      const back = await approveAtPayPal(t, paypal.body.data.approve_url);
      // Approved at PayPal, not recorded yet: a card attempt starts and waits for the bank.
      const card = await payByCard(t, who, 1, await paymentMethod(t, THREE_DS_CARD), { return_url: "/subscription/payment/1?authenticated=pay-card" });
      expect(card.body.data.status, card.text).toBe("requires_action");
      expect((await paypalReturn(t, who.token, back)).body.data).toMatchObject({ status: "paid" });
      return card.body.data;
    });
    // The customer answers the bank's challenge in the other tab: the card is charged, then given back.
    expect(await answerChallenge(t, card.redirect_url)).toBe(303);
    const finished = await t.post("/api/payments/card/complete-authentication", {
      token: who.token,
      json: { payment_intent: card.payment_intent, subscription: card.subscription_id },
    });
    expect(finished.status, finished.text).toBe(409);
    expect(finished.body.errors.code).toBe("subscription_exists");
    expect(finished.body.message).toBe(REFUNDED);
    await expectGivenBackAtStripe(t, card.subscription_id);
    const { running } = await recurring(t, who.userId);
    expect(running.map((r) => r.subscription_by)).toEqual(["paypal"]);
    const paid = await t.db.selectFrom("transactions").select("payment_gateway").where("user_id", "=", who.userId).where("status", "=", "paid").execute();
    expect(paid.map((p) => p.payment_gateway)).toEqual(["paypal"]);
  });

  it("a hosted card page opened before a PayPal purchase expires when the PayPal checkout starts", async () => {
    const who = await customer(t, "hosted-then-paypal@example.com");
    const hosted = await t.post("/api/payments/checkout-session", {
      token: who.token,
      json: { planId: 1, return_path: "/subscription/payment/1", idempotency_key: newKey() },
    });
    expect(hosted.status, hosted.text).toBe(200);
    expect((await paypalCheckout(t, who.token, 3)).status).toBe(200);
    const session = await t.api.payments!.gateway.stripe.checkout.sessions.retrieve(new URL(hosted.body.data.url).pathname.split("/").pop()!);
    expect(session.status).toBe("expired");
  });

  it("a crypto invoice paid after a card purchase: recorded as not applied, no second subscription", async () => {
    const who = await customer(t, "crypto-after-card@example.com");
    const created = await t.post("/api/payments/crypto/invoice", { token: who.token, json: { ...TWO_YEARS_BY_CRYPTO, currency: "USD", email: who.email } });
    expect(created.status, created.text).toBe(200);
    expect((await payByCard(t, who, 1, await paymentMethod(t, GOOD))).status).toBe(200);
    // The crypto invoice opened before is paid now (the buyer's wallet was slower than the card).
    await markCryptoPaid(t, created.body.data.invoiceUrl);
    const { running } = await recurring(t, who.userId);
    expect(running.map((r) => [r.plan_id, r.subscription_by])).toEqual([[1, "stripe"]]);
    const crypto = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", who.userId).where("payment_gateway", "=", "bitpay").execute();
    expect(crypto.map((c) => [c.status, c.failure_message])).toEqual([
      ["Payment failed", "You already have a subscription, so this crypto payment did not start a second one. Ask for your money back on the help page."],
    ]);
    // The checkout's return does not show it as a paid plan.
    const details = await t.get(`/api/payments/crypto/invoices/${created.body.data.id}`, { token: who.token });
    expect(details.status, details.text).toBe(200);
    expect(details.body.data.invoice_details).toMatchObject({ status: "confirmed", paid: false, not_applied: true });
  });
});
