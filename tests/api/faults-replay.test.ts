import { describe, expect, it } from "vitest";
import { applyInvoice } from "../../api/payments/bitpay/payments";
import { SANDBOX_WEBHOOK_SECRET } from "../../api/sandboxes/stripe";
import { signatureHeader } from "../../api/sandboxes/stripe/webhooks";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// Webhooks (Stripe, signed) and crypto notifications (BitPay) delivered again and again, in any
// order (decision 012): each payment is one transaction, one activation, one email, and a status
// never goes back.

const BITPAY_SECRET = "bitpay-sandbox-notification-secret";
const TIMES = 10;
/**
 * Rounds of a Stripe replay: each event reaches us 10 times in all — once when it happened, twice a
 * round (as sent and as a new delivery), once more late. Each round is another order, all at once.
 */
const STRIPE_ROUNDS = 4;

/** A deterministic shuffle (the order differs between rounds, the test does not flake). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Everything a payment leaves in our database, to compare before and after the replays. */
async function footprint(t: TestApi, userId: number) {
  const [transactions, subscriptions, invoices, cards, mails] = await Promise.all([
    t.db.selectFrom("transactions").select(["id", "status", "amount_cents", "gateway_ref"]).where("user_id", "=", userId).orderBy("id").execute(),
    t.db
      .selectFrom("subscriptions")
      .select(["id", "plan_id", "sub_exp_date", "subs_status", "cancel_at_period_end"])
      .where("user_id", "=", userId)
      .execute(),
    t.db.selectFrom("invoices").select(["id", "status"]).where("user_id", "=", userId).orderBy("id").execute(),
    t.db.selectFrom("payment_methods").select("id").where("user_id", "=", userId).execute(),
    t.db.selectFrom("mail_outbox").select("id").execute(),
  ]);
  return { transactions, subscriptions, invoices, cards, mails: mails.length };
}

interface StoredEvent {
  id: string;
  type: string;
  data: { object: { id?: string; customer?: string | null } };
}

/** The events the gateway sent about one customer, oldest first. */
async function eventsOf(t: TestApi, customerId: string): Promise<StoredEvent[]> {
  const rows = await t.db.selectFrom("stripe_sandbox_objects").select(["data", "created"]).where("type", "=", "event").orderBy("created").orderBy("id").execute();
  return rows
    .map((row) => JSON.parse(row.data) as StoredEvent)
    .filter((event) => event.data.object.customer === customerId || event.data.object.id === customerId);
}

async function deliver(t: TestApi, event: unknown) {
  const payload = JSON.stringify(event);
  const signature = signatureHeader(payload, SANDBOX_WEBHOOK_SECRET, Math.floor(Date.now() / 1000));
  return t.post("/api/payments/stripe/webhook", { raw: payload, headers: { "content-type": "application/json", "stripe-signature": signature } });
}

async function replayEach(t: TestApi, events: StoredEvent[]) {
  for (let round = 0; round < STRIPE_ROUNDS; round++) {
    // As sent (Stripe's retries keep the id) and as a different delivery of the same change (a new
    // id: the handlers themselves must be idempotent), in another order each round, some at once.
    const batch = shuffled(
      events.flatMap((event) => [event, { ...event, id: `${event.id}_again_${round}` }]),
      round + 1,
    );
    const answers = await Promise.all(batch.map((event) => deliver(t, event)));
    expect(answers.map((a) => a.status)).toEqual(batch.map(() => 200));
  }
  // And one after another, newest first: the oldest event is the last word.
  for (const event of [...events].reverse()) {
    expect((await deliver(t, { ...event, id: `${event.id}_late` })).status).toBe(200);
  }
}

describe.each(databases({ postgres: "replays at once: recorded once through unique claims" }))("webhooks and notifications replayed ($name)", (kind) => {
  const t = useApi(kind);

  it("Stripe: a subscription's events 10 times, in any order, change nothing (payment, renewal, auto-renewal off)", async () => {
    const who = await customer(t, "stripe-replay@example.com");
    const paid = await t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email: who.email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    const stripeSubId = paid.body.data.subscription.stripe_sub_id as string;
    try {
      await t.post("/dev/clock", { form: { days: "32" } }); // the renewal, with its webhooks
      await t.api.payments.gateway.stripe.subscriptions.update(stripeSubId, { cancel_at_period_end: true });
      const before = await footprint(t, who.userId);
      expect(before.transactions).toHaveLength(2);
      expect(before.subscriptions).toMatchObject([{ cancel_at_period_end: 1, subs_status: "subscription_cancelled" }]);

      const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow();
      const events = await eventsOf(t, user.stripe_customer_id!);
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["invoice.paid", "customer.subscription.updated"]));
      await replayEach(t, events);

      // Older 'updated' events (auto-renewal still on) did not switch it back on; nothing was counted twice.
      expect(await footprint(t, who.userId)).toEqual(before);
    } finally {
      t.clock.reset();
    }
  });

  it("Stripe: the one-time plan's events 10 times, in any order: one transaction, one plan", async () => {
    const who = await customer(t, "stripe-replay-once@example.com");
    const paid = await t.post("/api/payments/card", {
      token: who.token,
      json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId: 7, email: who.email, idempotency_key: newKey() },
    });
    expect(paid.status, paid.text).toBe(200);
    const before = await footprint(t, who.userId);
    expect(before.transactions).toHaveLength(1);
    const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow();
    const events = await eventsOf(t, user.stripe_customer_id!);
    expect(events.map((e) => e.type)).toContain("payment_intent.succeeded");
    await replayEach(t, events);
    expect(await footprint(t, who.userId)).toEqual(before);
  });

  it("BitPay: notifications 10 times, in any order and at once, activate once; 'confirmed' never goes back to 'paid', 'new' or 'expired'", async () => {
    const userId = await t.createUser({ email: "bitpay-replay@example.com", password: "crypto-password" });
    const token = await t.login("bitpay-replay@example.com", "crypto-password");
    const created = await t.post("/api/payments/crypto/invoice", {
      token,
      json: { productId: "vpn_2_years", planId: 6, amount: "107.76", currency: "USD", email: "bitpay-replay@example.com" },
    });
    expect(created.status, created.text).toBe(200);
    const row = await t.db.selectFrom("crypto_invoices").selectAll().where("uuid", "=", created.body.data.id).executeTakeFirstOrThrow();
    const bitpayId = row.bitpay_invoice_id!;
    // What a notification handler that fetched the invoice before it was paid holds (a slow fetch).
    const stale = await t.api.crypto!.bitpay.getInvoice(bitpayId);
    expect(stale.status).toBe("new");

    // 'Mark as paid' on the sandbox's page: BitPay notifies 'paid' then 'confirmed'.
    const page = new URL(created.body.data.invoiceUrl).pathname;
    const pressed = await fetch(`${t.baseUrl}${page}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ action: "pay" }),
    });
    expect(pressed.status).toBe(303);
    const before = await footprint(t, userId);
    expect(before.transactions).toMatchObject([{ status: "paid", amount_cents: 10776 }]);

    const bodies = ["new", "paid", "confirmed", "expired", "complete"].map((status) => ({ id: bitpayId, status, posData: row.uuid }));
    for (let round = 0; round < TIMES; round++) {
      const answers = await Promise.all(
        shuffled(bodies, round + 7).map((body) => t.post(`/api/payments/bitpay/notify?secret=${BITPAY_SECRET}`, { json: body })),
      );
      expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200));
    }
    // The slow fetch lands last.
    const current = await t.db.selectFrom("crypto_invoices").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
    await applyInvoice(t.api.crypto!, current, stale);

    const after = await t.db.selectFrom("crypto_invoices").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
    expect(after.status).toBe("confirmed");
    expect(after.activated_at).toBe(current.activated_at);
    expect(await footprint(t, userId)).toEqual(before);
    const details = await t.get(`/api/payments/crypto/invoices/${row.uuid}`, { token });
    expect(details.body.data.invoice_details).toMatchObject({ status: "confirmed", paid: true });
  });

  it("BitPay: an expired invoice's notifications replayed activate nothing and leave it expired", async () => {
    const userId = await t.createUser({ email: "bitpay-expired-replay@example.com", password: "crypto-password" });
    const token = await t.login("bitpay-expired-replay@example.com", "crypto-password");
    const created = await t.post("/api/payments/crypto/invoice", {
      token,
      json: { planId: 1, amount: "9.99", currency: "USD", email: "bitpay-expired-replay@example.com" },
    });
    const row = await t.db.selectFrom("crypto_invoices").selectAll().where("uuid", "=", created.body.data.id).executeTakeFirstOrThrow();
    const stale = await t.api.crypto!.bitpay.getInvoice(row.bitpay_invoice_id!);
    const page = new URL(created.body.data.invoiceUrl).pathname;
    await fetch(`${t.baseUrl}${page}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ action: "expire" }),
    });
    for (let round = 0; round < TIMES; round++) {
      await Promise.all(
        ["new", "expired", "confirmed"].map((status) =>
          t.post(`/api/payments/bitpay/notify?secret=${BITPAY_SECRET}`, { json: { id: row.bitpay_invoice_id, status } }),
        ),
      );
    }
    const current = await t.db.selectFrom("crypto_invoices").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
    await applyInvoice(t.api.crypto!, current, stale);
    const after = await t.db.selectFrom("crypto_invoices").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: "expired", activated_at: null });
    expect((await footprint(t, userId)).transactions).toEqual([]);
  });
});
