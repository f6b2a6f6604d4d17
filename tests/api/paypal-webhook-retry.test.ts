import { describe, expect, it, vi } from "vitest";
import { type TestApi, databases, useApi } from "./harness";

// A PayPal webhook whose handling never finished (the instance was killed in the middle: `npm run test:deploy`
// found it for Stripe) gets no answer, so PayPal sends it again. That delivery must be handled, not taken for
// done: an event counts as handled once its handler has finished, and the handlers are idempotent, so the
// first delivery finishing after all, or two deliveries at once, change nothing twice.

const DAY = 86_400_000;
const WEBHOOK = "/api/payments/paypal/webhook";

async function buyer(t: TestApi, email: string) {
  const userId = await t.createUser({ email, password: "paypal-password" });
  const token = await t.login(email, "paypal-password");
  return { userId, token, email };
}

let keys = 0;
const newKey = () => `paypal-retry-key-${Date.now()}-${keys++}`;

async function checkout(t: TestApi, token: string, planId: number, extra: Record<string, unknown> = {}) {
  const started = await t.post("/api/payments/paypal/checkout", {
    token,
    json: { planId, return_path: `/subscription/payment/${planId}`, idempotency_key: newKey(), ...extra },
  });
  expect(started.status, started.text).toBe(200);
  return started.body.data as { approve_url: string; paypal_id: string; kind: string };
}

/** Presses Approve on the stand-in's approval page; it answers once PayPal's webhooks of the approval were delivered. */
async function approve(t: TestApi, approveUrl: string, funding = "balance"): Promise<Response> {
  const url = new URL(approveUrl);
  return fetch(`${t.baseUrl}${url.pathname}${url.search}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ action: "approve", funding }),
  });
}

type Call = (request: { id?: string }, ...rest: unknown[]) => Promise<unknown>;

/**
 * Holds the first call of a PayPal client method about `id` until released: the delivery whose handler
 * made it stays unfinished, as a killed instance's does (the stand-in has no fault switch).
 */
function holdFirstCall<T extends object>(target: T, method: keyof T & string, id: string) {
  const original = (target[method] as unknown as Call).bind(target);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let enter!: () => void;
  const held = new Promise<void>((resolve) => (enter = resolve));
  let holding = true;
  const spy = vi.spyOn(target, method as never).mockImplementation((async (request: { id?: string }, ...rest: unknown[]) => {
    if (holding && request?.id === id) {
      holding = false;
      enter();
      await released;
    }
    return original(request, ...rest);
  }) as never);
  return {
    /** Resolves once the call is held; rejects if `work` ends without making it. */
    held: (work: Promise<unknown>) => Promise.race([held, work.then(() => Promise.reject(new Error(`${method} was never called for ${id}`)))]),
    release,
    restore() {
      release();
      spy.mockRestore();
    },
  };
}

interface Delivery {
  eventId: string;
  raw: string;
  headers: Record<string, string>;
}

/** The stand-in's deliveries of `type` not yet answered (its rows live until the product answers). */
async function pendingDeliveries(t: TestApi, type: string): Promise<Delivery[]> {
  const rows = await t.db.selectFrom("paypal_sandbox_objects").select("data").where("type", "=", "delivery").execute();
  return rows
    .map((row) => JSON.parse(row.data) as { event_id: string; event_type: string; body: string; headers: Record<string, string> })
    .filter((state) => state.event_type === type)
    .map((state) => ({ eventId: state.event_id, raw: state.body, headers: state.headers }));
}

/** PayPal sending a delivery again (the same body and signature). */
async function resend(t: TestApi, delivery: Delivery) {
  const res = await t.post(WEBHOOK, { raw: delivery.raw, headers: delivery.headers });
  expect(res.status, res.text).toBe(200);
  return res;
}

async function webhookEvents(t: TestApi, eventId: string) {
  return t.db.selectFrom("webhook_events").select("id").where("id", "=", eventId).execute();
}

async function checkoutRow(t: TestApi, paypalId: string) {
  return t.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", paypalId).executeTakeFirstOrThrow();
}

async function paid(t: TestApi, userId: number) {
  return t.db.selectFrom("transactions").select(["status", "amount_cents", "gateway_ref"]).where("user_id", "=", userId).orderBy("id").execute();
}

describe.each(databases({ postgres: "deliveries of one event at once: the per-account lock and the record insert race" }))("a PayPal webhook sent again while its first delivery is unfinished ($name)", (kind) => {
  const t = useApi(kind);

  it("a renewal (PAYMENT.SALE.COMPLETED) is recorded by the second delivery, and once", async () => {
    const who = await buyer(t, "renewal-again@example.com");
    const started = await checkout(t, who.token, 1);
    expect((await approve(t, started.approve_url)).status).toBe(303);
    const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    expect(await paid(t, who.userId)).toHaveLength(1);

    // The renewal's handler asks PayPal for the subscription's sales: that call hangs.
    const hold = holdFirstCall(t.api.paypal!.client.subscriptions, "listSubscriptionTransactions", started.paypal_id);
    t.clock.advanceDays(31);
    const jobs = t.api.runDueJobs();
    try {
      await hold.held(jobs);
      const [sale] = await pendingDeliveries(t, "PAYMENT.SALE.COMPLETED");
      expect(sale).toBeDefined();
      // Unfinished, so not recorded: a delivery killed here leaves nothing that would turn PayPal's resend away.
      expect.soft(await webhookEvents(t, sale!.eventId)).toEqual([]);

      await resend(t, sale!);
      const afterResend = await paid(t, who.userId);
      expect(afterResend.map((row) => [row.status, row.amount_cents])).toEqual([
        ["paid", 999],
        ["paid", 999],
      ]);
      const renewed = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();
      expect(new Date(renewed.sub_exp_date).getTime()).toBeGreaterThan(new Date(sub.sub_exp_date).getTime() + 27 * DAY);
      expect(await webhookEvents(t, sale!.eventId)).toHaveLength(1);

      // The first delivery finishes afterwards: nothing twice.
      hold.release();
      await jobs;
      expect(await paid(t, who.userId)).toEqual(afterResend);
      const after = await t.db.selectFrom("subscriptions").select("sub_exp_date").where("id", "=", sub.id).executeTakeFirstOrThrow();
      expect(after.sub_exp_date).toBe(renewed.sub_exp_date);
      expect(await webhookEvents(t, sale!.eventId)).toHaveLength(1);
      expect((await t.mailbox(who.email)).filter((mail) => mail.subject === "Your VPN receipt")).toHaveLength(2);
    } finally {
      hold.restore();
      await jobs.catch(() => undefined);
      t.clock.reset();
    }
  });

  it.each([
    { plan: 7, cents: 19900, what: "the 5-year plan" },
    // Recurring: the capture is refused while another recurring plan runs, which its own first delivery must not look like.
    { plan: 6, cents: 10776, what: "the 2-year plan" },
  ])("an order ($what, CHECKOUT.ORDER.APPROVED) is captured and recorded by the deliveries sent again, once", async ({ plan, cents }) => {
    const who = await buyer(t, `order-again-${plan}@example.com`);
    const started = await checkout(t, who.token, plan);
    expect(started.kind).toBe("order");
    // The approval's handler asks PayPal for the order: that call hangs, and the approval page with it.
    const hold = holdFirstCall(t.api.paypal!.client.orders, "getOrder", started.paypal_id);
    const approval = approve(t, started.approve_url);
    try {
      await hold.held(approval);
      const [approved] = await pendingDeliveries(t, "CHECKOUT.ORDER.APPROVED");
      expect(approved).toBeDefined();
      expect.soft(await webhookEvents(t, approved!.eventId)).toEqual([]);

      // Sent again three times, at once.
      await Promise.all([resend(t, approved!), resend(t, approved!), resend(t, approved!)]);
      const afterResend = await paid(t, who.userId);
      expect(afterResend.map((row) => [row.status, row.amount_cents])).toEqual([["paid", cents]]);
      const row = await t.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", started.paypal_id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "paid", gateway_ref: afterResend[0]!.gateway_ref });

      hold.release();
      expect((await approval).status).toBe(303);
      const done = await t.post("/api/payments/paypal/complete", { token: who.token, json: { token: started.paypal_id } });
      expect(done.status, done.text).toBe(200);
      expect(done.body.data).toMatchObject({ status: "paid", kind: "order" });
      expect(await paid(t, who.userId)).toEqual(afterResend);
      expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(1);
      expect(await webhookEvents(t, approved!.eventId)).toHaveLength(1);
    } finally {
      hold.restore();
      await approval.catch(() => undefined);
    }
  });

  it("a subscription's first payment delivered several times at once is recorded once, its coupon redeemed once", async () => {
    const who = await buyer(t, "at-once@example.com");
    const started = await checkout(t, who.token, 2, { coupon: "WELCOME10" });
    const coupon = () => t.db.selectFrom("coupons").select(["times_redeemed", "reserved"]).where("code", "=", "WELCOME10").executeTakeFirstOrThrow();
    const before = await coupon();
    // BILLING.SUBSCRIPTION.ACTIVATED's handler hangs on its first question to PayPal, PAYMENT.SALE.COMPLETED waits behind it.
    const hold = holdFirstCall(t.api.paypal!.client.subscriptions, "getSubscription", started.paypal_id);
    const approval = approve(t, started.approve_url);
    try {
      await hold.held(approval);
      const [activated] = await pendingDeliveries(t, "BILLING.SUBSCRIPTION.ACTIVATED");
      const [sale] = await pendingDeliveries(t, "PAYMENT.SALE.COMPLETED");
      expect(activated && sale).toBeDefined();
      const answers = await Promise.all([resend(t, sale!), resend(t, activated!), resend(t, sale!), resend(t, activated!), resend(t, sale!)]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      hold.release();
      expect((await approval).status).toBe(303);

      const rows = await paid(t, who.userId);
      expect(rows.map((row) => row.status)).toEqual(["paid"]);
      const subs = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).execute();
      expect(subs).toHaveLength(1);
      expect(subs[0]).toMatchObject({ paypal_sub_id: started.paypal_id, coupon_code: "WELCOME10" });
      const after = await coupon();
      expect(Number(after.times_redeemed)).toBe(Number(before.times_redeemed) + 1);
      // The checkout's hold became the redemption.
      expect(Number(after.reserved)).toBe(Number(before.reserved) - 1);
      const row = await t.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", started.paypal_id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: "paid", subscription_id: subs[0]!.id, gateway_ref: rows[0]!.gateway_ref });
      expect(await webhookEvents(t, sale!.eventId)).toHaveLength(1);
      expect(await webhookEvents(t, activated!.eventId)).toHaveLength(1);
    } finally {
      hold.restore();
      await approval.catch(() => undefined);
    }
  });

  it("a first payment recorded by a delivery killed before it marked the checkout paid: the resend marks it", async () => {
    const who = await buyer(t, "killed-after-record@example.com");
    const started = await checkout(t, who.token, 3);
    // Keep the sale's delivery (body and signature) to send it again.
    const hold = holdFirstCall(t.api.paypal!.client.subscriptions, "getSubscription", started.paypal_id);
    const approval = approve(t, started.approve_url);
    let sale: Delivery | undefined;
    try {
      await hold.held(approval);
      [sale] = await pendingDeliveries(t, "PAYMENT.SALE.COMPLETED");
    } finally {
      hold.restore();
      expect((await approval).status).toBe(303);
    }
    expect(sale).toBeDefined();
    const subscription = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
    const [payment] = await paid(t, who.userId);

    // What an instance killed between recording the payment and marking its checkout leaves: the payment, a
    // checkout still open, and no record of the event.
    await t.db
      .updateTable("paypal_checkouts")
      .set({ status: "created", subscription_id: null, gateway_ref: null })
      .where("paypal_id", "=", started.paypal_id)
      .execute();
    await t.db.deleteFrom("webhook_events").where("id", "=", sale!.eventId).execute();

    await resend(t, sale!);
    const row = await t.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", started.paypal_id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "paid", subscription_id: subscription.id, gateway_ref: payment!.gateway_ref });
    expect(await paid(t, who.userId)).toEqual([payment]);
    const after = await t.db.selectFrom("subscriptions").select("sub_exp_date").where("id", "=", subscription.id).executeTakeFirstOrThrow();
    expect(after.sub_exp_date).toBe(subscription.sub_exp_date);
    expect(await webhookEvents(t, sale!.eventId)).toHaveLength(1);
  });

  it("a renewal PayPal could not collect, delivered several times at once: past due once, one email", async () => {
    const who = await buyer(t, "failed-again@example.com");
    const started = await checkout(t, who.token, 1);
    expect((await approve(t, started.approve_url, "fails_renewals")).status).toBe(303);
    const hold = holdFirstCall(t.api.paypal!.client.subscriptions, "getSubscription", started.paypal_id);
    t.clock.advanceDays(31);
    const jobs = t.api.runDueJobs();
    try {
      await hold.held(jobs);
      const [failed] = await pendingDeliveries(t, "BILLING.SUBSCRIPTION.PAYMENT.FAILED");
      expect(failed).toBeDefined();
      await Promise.all([resend(t, failed!), resend(t, failed!), resend(t, failed!)]);
      hold.release();
      await jobs;
      await resend(t, failed!);

      const row = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
      expect(row.past_due_since).not.toBeNull();
      expect(row.past_due_invoice_id).toBe(`paypal:${started.paypal_id}:${row.sub_exp_date}`);
      expect((await t.mailbox(who.email)).filter((mail) => mail.subject === "Your VPN payment failed")).toHaveLength(1);
      expect(await webhookEvents(t, failed!.eventId)).toHaveLength(1);
    } finally {
      hold.restore();
      await jobs.catch(() => undefined);
      t.clock.reset();
    }
  });

  it("a declined capture's delivery sent again: one failed payment, answered 200 each time (PayPal need not retry)", async () => {
    const who = await buyer(t, "declined-again@example.com");
    const started = await checkout(t, who.token, 7);
    const hold = holdFirstCall(t.api.paypal!.client.orders, "getOrder", started.paypal_id);
    const url = new URL(started.approve_url);
    const approval = fetch(`${t.baseUrl}${url.pathname}${url.search}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ action: "approve", funding: "declined" }),
    });
    try {
      await hold.held(approval);
      const [approved] = await pendingDeliveries(t, "CHECKOUT.ORDER.APPROVED");
      expect(approved).toBeDefined();
      await resend(t, approved!);
      hold.release();
      expect((await approval).status).toBe(303);
      await resend(t, approved!);

      const rows = await paid(t, who.userId);
      expect(rows.map((row) => [row.status, row.gateway_ref])).toEqual([["Payment failed", `paypal-declined:${(await checkoutRow(t, started.paypal_id)).checkout_id}`]]);
      expect(await checkoutRow(t, started.paypal_id)).toMatchObject({ status: "declined" });
      // A refusal is not recorded as handled (as before): a later delivery is looked at again, and answers the same.
      expect(await webhookEvents(t, approved!.eventId)).toEqual([]);
      const done = await t.post("/api/payments/paypal/complete", { token: who.token, json: { token: started.paypal_id } });
      expect(done.status, done.text).toBe(402);
      expect(done.body.errors.code).toBe("paypal_declined");
      expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute()).toEqual([]);
    } finally {
      hold.restore();
      await approval.catch(() => undefined);
    }
  });

  it("handled every webhook (none failed)", () => {
    const problems = t.logger.lines.filter((line) => /paypal|webhook|WH-/i.test(line) && /fail|error|refus|invalid/i.test(line));
    expect(problems).toEqual([]);
  });
});
