import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { loadApiConfig } from "../../api/platform/config";
import { formatDate } from "../../api/platform/dates";
import { SANDBOX_WEBHOOK_SECRET } from "../../api/sandboxes/stripe";
import { databases, type TestApi, useApi } from "./harness";
import { THREE_DS_ALWAYS_CARD } from "../support/cards";
import { DECLINED, GOOD, GOOD_OTHER, customer, newKey, paymentMethod } from "./payment-support";

// Failed renewals (issue 20, docs/decisions/027): past due, still Premium through the grace period,
// paid with another card, or ended at the grace period's end; each email once.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A customer on the 1-month plan whose card now declines (as if the bank had cancelled it). */
async function renewingOnADecliningCard(t: TestApi, email: string, card = DECLINED) {
  const who = await customer(t, email);
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId: 1, email },
  });
  expect(res.status, res.text).toBe(200);
  const sub = res.body.data.subscription as { id: number; stripe_sub_id: string; sub_exp_date: string };
  // The declining card is saved to the account (add-new-card) and made the subscription's card.
  const declining = await paymentMethod(t, card);
  if (card === DECLINED) {
    const added = await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: declining } });
    expect(added.status, added.text).toBe(200);
  } else {
    // A card that always asks for authentication cannot be saved without it: attached and recorded directly.
    const { stripe } = t.api.payments.gateway;
    const user = await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow();
    await stripe.paymentMethods.attach(declining, { customer: user.stripe_customer_id! });
    const at = new Date().toISOString();
    await t.db
      .insertInto("payment_methods")
      .values({
        user_id: who.userId,
        payment_method_id: declining,
        payment_gateway: "stripe",
        card_brand: "visa",
        card_last4: card.slice(-4),
        card_exp_month: 12,
        card_exp_year: 2049,
        billing_name: null,
        billing_postal: null,
        wallet_payment_type: "card",
        is_default: 0,
        created_at: at,
        updated_at: at,
      })
      .execute();
  }
  await t.api.payments.gateway.stripe.subscriptions.update(sub.stripe_sub_id, { default_payment_method: declining });
  return { ...who, sub, declining };
}

/** Moves the business clock to `at` and runs what came due (the sandbox's renewals and retries, our jobs). */
async function moveTo(t: TestApi, at: number) {
  const ms = at - t.clock.now().getTime();
  if (ms > 0) t.clock.advanceSeconds(ms / 1000);
  await t.api.runDueJobs();
}

async function mailsTo(t: TestApi, email: string, subject: string) {
  return (await t.mailbox(email)).filter((m) => m.subject === subject);
}

async function home(t: TestApi, token: string) {
  const res = await t.get("/api/account/home", { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { subscription: { sub_exp_date: string } | null; payment_failed: null | Record<string, unknown> };
}

describe("DUNNING_GRACE_DAYS", () => {
  it("is 14 by default, from 1 to 60 days, and checked at boot with the other variables", () => {
    expect(loadApiConfig({ SANDBOX: "true" }).dunningGraceDays).toBe(14);
    expect(loadApiConfig({ SANDBOX: "true", DUNNING_GRACE_DAYS: "7" }).dunningGraceDays).toBe(7);
    for (const bad of ["0", "61", "two weeks", "1.5"]) {
      expect(() => loadApiConfig({ SANDBOX: "true", DUNNING_GRACE_DAYS: bad })).toThrow(/DUNNING_GRACE_DAYS: expected a number of days between 1 and 60/);
    }
  });
});

describe.each(databases())("failed renewals ($name)", (kind) => {
  const t = useApi(kind);

  it("a declined renewal is past due, still Premium, one 'Payment failed' row and one email; another saved card pays it from the original period", async () => {
    const email = "dunning-paid@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + HOUR);
      const row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      expect(row.past_due_since).toBe(new Date(renewal).toISOString());
      expect(row.grace_until).toBe(new Date(renewal + 14 * DAY).toISOString());
      expect(row.sub_exp_date).toBe(who.sub.sub_exp_date);

      // Still Premium: the home, the active subscription and buying the same plan again all say so.
      const before = await home(t, who.token);
      expect(before.subscription).not.toBeNull();
      expect(before.payment_failed).toMatchObject({
        reason: "Your card was declined.",
        amount: "$9.99",
        card: "Visa ending in 0002",
        grace_until: new Date(renewal + 14 * DAY).toISOString(),
        requires_action: false,
      });
      expect((before.payment_failed as { pay_url: string }).pay_url).toMatch(/\/billing\/pay$/);
      expect((await t.post("/api/subscription/active", { token: who.token })).body.data.subscription).not.toBeNull();
      const again = await t.post("/api/payments/card", {
        token: who.token,
        json: { type: "saved-card", idempotency_key: newKey(), paymentMethodId: who.declining, planId: 1, email },
      });
      expect(again.status).toBe(409);

      const failedRows = async () =>
        (await t.post("/api/billing/transactions", { token: who.token, json: {} })).body.data.transactions.filter(
          (tx: { status: string }) => tx.status === "Payment failed",
        );
      expect(await failedRows()).toHaveLength(1);
      expect(await mailsTo(t, email, "Your VPN payment failed")).toHaveLength(1);
      // Stripe retries a day later: the same 'Payment failed' row, retried once, with the retry's date (docs/decisions/050); the same grace period, no second email.
      await moveTo(t, renewal + DAY + HOUR);
      const retried = await failedRows();
      expect(retried).toHaveLength(1);
      expect(retried[0].retries).toBe(1);
      expect(retried[0].last_attempt_at.slice(0, 10)).not.toBe(retried[0].created_at.slice(0, 10));
      const same = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      expect({ since: same.past_due_since, until: same.grace_until }).toEqual({ since: row.past_due_since, until: row.grace_until });
      const mail = (await mailsTo(t, email, "Your VPN payment failed"))[0]!;
      expect(mail.text).toContain("$9.99 to your Visa ending in 0002: Your card was declined.");

      // The declining card is refused again, with the bank's message; then another saved card pays.
      const refused = await t.post("/api/billing/pay-open-invoice", { token: who.token, json: { payment_method_id: who.declining } });
      expect(refused.status).toBe(402);
      expect(refused.body.message).toBe("Your card was declined.");
      const stranger = await customer(t, "dunning-stranger@example.com");
      expect((await t.post("/api/billing/pay-open-invoice", { token: stranger.token, json: { payment_method_id: who.declining } })).status).toBe(404);

      const other = await paymentMethod(t, GOOD_OTHER);
      expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: other } })).status).toBe(200);
      const paid = await t.post("/api/billing/pay-open-invoice", { token: who.token, form: { payment_method_id: other } });
      expect(paid.status, paid.text).toBe(200);
      expect(paid.body.data).toEqual({ status: "paid" });

      const after = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      // The next period runs from the original renewal date, not from the day it was paid.
      const stripeSub = await t.api.payments.gateway.stripe.subscriptions.retrieve(who.sub.stripe_sub_id);
      expect(after.sub_exp_date).toBe(new Date(stripeSub.items.data[0]!.current_period_end * 1000).toISOString());
      expect(stripeSub.items.data[0]!.current_period_start * 1000).toBe(renewal);
      expect(stripeSub.status).toBe("active");
      expect(stripeSub.default_payment_method).toBe(other);
      expect(after).toMatchObject({ past_due_since: null, grace_until: null, past_due_invoice_id: null });
      expect((await home(t, who.token)).payment_failed).toBeNull();
      expect((await t.get("/api/billing/past-due", { token: who.token })).body.data.payment_failed).toBeNull();
      const statuses = (await t.post("/api/billing/transactions", { token: who.token, json: {} })).body.data.transactions.map(
        (tx: { status: string }) => tx.status,
      );
      expect(statuses.filter((s: string) => s === "paid")).toHaveLength(2);
      expect(await mailsTo(t, email, "Your VPN payment failed")).toHaveLength(1);
    } finally {
      t.clock.reset();
    }
  });

  it("unpaid: a reminder before the grace period ends, then the subscription ends, the account is Free, one email each", async () => {
    const email = "dunning-ended@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + HOUR);
      expect((await home(t, who.token)).subscription).not.toBeNull();
      await moveTo(t, renewal + 12 * DAY);
      expect(await mailsTo(t, email, "Your VPN plan ends soon: payment needed")).toHaveLength(1);
      expect((await home(t, who.token)).payment_failed).not.toBeNull();

      await moveTo(t, renewal + 15 * DAY);
      const stripeSub = await t.api.payments.gateway.stripe.subscriptions.retrieve(who.sub.stripe_sub_id);
      expect(stripeSub.status).toBe("canceled");
      const h = await home(t, who.token);
      expect(h.subscription).toBeNull();
      expect(h.payment_failed).toBeNull();
      expect((await t.post("/api/subscription/active", { token: who.token })).body.data.subscription).toBeNull();
      expect(await mailsTo(t, email, "Your VPN plan has ended")).toHaveLength(1);
      expect(await mailsTo(t, email, "Your VPN plan ends soon: payment needed")).toHaveLength(1);
      expect(await mailsTo(t, email, "Your VPN payment failed")).toHaveLength(1);
      const refused = await t.post("/api/billing/pay-open-invoice", { token: who.token, json: { payment_method_id: who.declining } });
      expect(refused.status).toBe(404);
    } finally {
      t.clock.reset();
    }
  });

  it("past due within the grace period still counts as the account's subscription: no second one is sold, and no plan change before paying", async () => {
    const email = "dunning-second@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + 2 * DAY);
      expect((await home(t, who.token)).payment_failed).not.toBeNull();
      const second = await t.post("/api/payments/card", {
        token: who.token,
        json: { type: "new-card", idempotency_key: newKey(), paymentMethodId: await paymentMethod(t, GOOD), planId: 5, email },
      });
      expect(second.status, second.text).toBe(409);
      expect(second.body.errors.code).toBe("subscription_exists");
      const change = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
      expect(change.status, change.text).toBe(409);
      expect(change.body.errors.code).toBe("payment_past_due");
      expect(change.body.message).toBe("Your last payment failed. Pay it before you change your plan.");
      const rows = await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute();
      expect(rows).toHaveLength(1);
    } finally {
      t.clock.reset();
    }
  });

  it("webhook replays change nothing twice; a deleted account gets no email", async () => {
    const email = "dunning-replay@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    const gone = "dunning-deleted@example.com";
    const deleted = await renewingOnADecliningCard(t, gone);
    await t.db.updateTable("users").set({ deleted_at: new Date().toISOString() }).where("id", "=", deleted.userId).execute();
    try {
      await moveTo(t, renewal + HOUR);
      const row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      const invoiceId = row.past_due_invoice_id!;
      expect(invoiceId).toMatch(/^in_/);
      const deliver = async (id: string, type: string, object: Record<string, unknown>) => {
        const payload = JSON.stringify({ id, object: "event", type, created: Math.floor(Date.now() / 1000), data: { object } });
        const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SANDBOX_WEBHOOK_SECRET });
        const res = await t.post("/api/payments/stripe/webhook", { raw: payload, headers: { "content-type": "application/json", "stripe-signature": signature } });
        expect(res.status, res.text).toBe(200);
      };
      const invoice = await t.api.payments.gateway.stripe.invoices.retrieve(invoiceId);
      for (let i = 0; i < 3; i++) {
        await deliver(`evt_dunning_replay_${i}`, "invoice.payment_failed", invoice as unknown as Record<string, unknown>);
        await deliver(`evt_dunning_action_${i}`, "invoice.payment_action_required", invoice as unknown as Record<string, unknown>);
      }
      const same = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      expect(same.past_due_since).toBe(row.past_due_since);
      expect(same.grace_until).toBe(row.grace_until);
      const failedRows = await t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).where("status", "=", "Payment failed").execute();
      expect(failedRows).toHaveLength(1);
      expect(await mailsTo(t, email, "Your VPN payment failed")).toHaveLength(1);

      // The deleted account's renewal failed too (its row says so), but nothing was mailed.
      const deletedRow = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", deleted.sub.id).executeTakeFirstOrThrow();
      expect(deletedRow.past_due_invoice_id).not.toBeNull();
      await moveTo(t, renewal + 15 * DAY);
      for (const subject of ["Your VPN payment failed", "Your VPN plan ends soon: payment needed", "Your VPN plan has ended"]) {
        expect(await mailsTo(t, gone, subject)).toHaveLength(0);
      }
      // The ended subscription's events replayed: still ended, still one email.
      const sub = await t.api.payments.gateway.stripe.subscriptions.retrieve(who.sub.stripe_sub_id);
      await deliver("evt_dunning_deleted_replay", "customer.subscription.deleted", sub as unknown as Record<string, unknown>);
      await deliver("evt_dunning_failed_late", "invoice.payment_failed", invoice as unknown as Record<string, unknown>);
      expect((await home(t, who.token)).subscription).toBeNull();
      expect(await mailsTo(t, email, "Your VPN plan has ended")).toHaveLength(1);
    } finally {
      t.clock.reset();
    }
  });

  it("a renewal that needs authentication is past due with the bank's request; paying answers the hosted invoice page", async () => {
    const email = "dunning-3ds@example.com";
    const who = await renewingOnADecliningCard(t, email, THREE_DS_ALWAYS_CARD);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + HOUR);
      const failed = (await t.get("/api/billing/past-due", { token: who.token })).body.data.payment_failed;
      expect(failed).toMatchObject({ reason: "Your bank asks you to authenticate this payment.", requires_action: true });
      expect(failed.hosted_invoice_url).toMatch(/\/dev\/stripe\/invoices\/in_/);
      expect((await home(t, who.token)).subscription).not.toBeNull();
      const pay = await t.post("/api/billing/pay-open-invoice", { token: who.token, json: { payment_method_id: who.declining } });
      expect(pay.status, pay.text).toBe(200);
      expect(pay.body.data).toEqual({ status: "requires_action", hosted_invoice_url: failed.hosted_invoice_url });
      expect(await mailsTo(t, email, "Your VPN payment failed")).toHaveLength(1);
    } finally {
      t.clock.reset();
    }
  });

  it("auto-renewal off while past due stops the retries (no charge) and the plan ends at the grace end; on again resumes them", async () => {
    const email = "dunning-stop@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    const stripe = t.api.payments.gateway.stripe;
    const failedRows = async () =>
      t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).where("status", "=", "Payment failed").execute();
    const paidRows = async () => t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).where("status", "=", "paid").execute();
    const row = () => t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
    const toggle = (type: "enable" | "disable") => t.post("/api/stripe/auto-renewal", { token: who.token, json: { type, subscriptionId: who.sub.id } });
    try {
      await moveTo(t, renewal + HOUR);
      expect(await failedRows()).toHaveLength(1);
      const invoiceId = (await row()).past_due_invoice_id!;

      const off = await toggle("disable");
      expect(off.status, off.text).toBe(200);
      expect((await stripe.invoices.retrieve(invoiceId)).auto_advance).toBe(false);
      // Not cancel_at_period_end: the subscription stays past due until the grace end.
      expect((await stripe.subscriptions.retrieve(who.sub.stripe_sub_id)).cancel_at_period_end).toBe(false);
      expect(await row()).toMatchObject({ cancel_at_period_end: 1, subs_status: "subscription_cancelled" });
      const offMails = await mailsTo(t, email, "Auto-renewal is off");
      expect(offMails).toHaveLength(1);
      expect(offMails[0]!.text).toContain(`ends on ${formatDate(new Date(renewal + 14 * DAY))}`);
      // A subscription.updated webhook (re-reading Stripe) keeps it off.
      await stripe.subscriptions.update(who.sub.stripe_sub_id, { metadata: { touched: "1" } });
      await t.api.runDueJobs();
      expect((await row()).cancel_at_period_end).toBe(1);

      // Past every retry day (1, 3, 5, 7): no further attempt, nothing charged; still Premium, banner still there.
      await moveTo(t, renewal + 8 * DAY);
      expect(await failedRows()).toHaveLength(1);
      expect(await paidRows()).toHaveLength(1);
      expect((await stripe.invoices.retrieve(invoiceId)).status).toBe("open");
      expect((await home(t, who.token)).subscription).not.toBeNull();

      // At the grace end the dunning job ends it, as for any unpaid renewal.
      await moveTo(t, renewal + 15 * DAY);
      expect((await stripe.subscriptions.retrieve(who.sub.stripe_sub_id)).status).toBe("canceled");
      expect((await home(t, who.token)).subscription).toBeNull();
      expect(await failedRows()).toHaveLength(1);
      expect(await paidRows()).toHaveLength(1);
      expect((await toggle("enable")).status).toBe(409);
    } finally {
      t.clock.reset();
    }
  });

  it("auto-renewal on again within the grace period lets the next retry run", async () => {
    const email = "dunning-resume@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    const failedRows = async () =>
      t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).where("status", "=", "Payment failed").execute();
    const toggle = (type: "enable" | "disable") => t.post("/api/stripe/auto-renewal", { token: who.token, json: { type, subscriptionId: who.sub.id } });
    try {
      await moveTo(t, renewal + HOUR);
      expect((await toggle("disable")).status).toBe(200);
      await moveTo(t, renewal + 2 * DAY);
      expect(await failedRows()).toHaveLength(1);

      const on = await toggle("enable");
      expect(on.status, on.text).toBe(200);
      const row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ cancel_at_period_end: 0, subs_status: "subscription_started" });
      expect((await t.api.payments.gateway.stripe.invoices.retrieve(row.past_due_invoice_id!)).auto_advance).toBe(true);
      expect(await mailsTo(t, email, "Auto-renewal is on")).toHaveLength(1);
      // The retry that was due (day 1) runs at the next step, then day 3's.
      await moveTo(t, renewal + 2 * DAY + HOUR);
      expect(await failedRows()).toHaveLength(2);
      await moveTo(t, renewal + 3 * DAY + HOUR);
      expect(await failedRows()).toHaveLength(3);
    } finally {
      t.clock.reset();
    }
  });

  it("paid anyway after auto-renewal was turned off while past due: the renewal is recorded and the next period is not charged", async () => {
    const email = "dunning-paid-after-off@example.com";
    const who = await renewingOnADecliningCard(t, email);
    const renewal = new Date(who.sub.sub_exp_date).getTime();
    try {
      await moveTo(t, renewal + HOUR);
      expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: who.sub.id } })).status).toBe(200);
      const other = await paymentMethod(t, GOOD_OTHER);
      expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: other } })).status).toBe(200);
      const paid = await t.post("/api/billing/pay-open-invoice", { token: who.token, json: { payment_method_id: other } });
      expect(paid.body.data, paid.text).toEqual({ status: "paid" });
      const stripeSub = await t.api.payments.gateway.stripe.subscriptions.retrieve(who.sub.stripe_sub_id);
      expect({ status: stripeSub.status, cancel_at_period_end: stripeSub.cancel_at_period_end }).toEqual({ status: "active", cancel_at_period_end: true });
      const row = await t.db.selectFrom("subscriptions").selectAll().where("id", "=", who.sub.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ cancel_at_period_end: 1, past_due_invoice_id: null });
      expect(row.sub_exp_date > new Date(renewal).toISOString()).toBe(true);
    } finally {
      t.clock.reset();
    }
  });
});
