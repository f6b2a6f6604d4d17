import { describe, expect, it } from "vitest";
import { canDisableAt } from "../../api/billing/auto-renewal";
import { pdfText } from "../support/pdf-text";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, TWO_YEARS_BY_CRYPTO, buyByCrypto, customer, newKey, paymentMethod } from "./payment-support";

const HOUR = 3_600_000;

async function buyByCard(t: TestApi, who: { token: string; email: string }, planId: number) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.subscription as { id: number; stripe_sub_id: string; sub_exp_date: string };
}

function history(t: TestApi, token: string, json: Record<string, unknown> = {}) {
  return t.post("/api/billing/transactions", { token, json });
}

describe("billing units", () => {
  it("the 24-hour rule", () => {
    const end = new Date("2026-11-21T12:00:00.000Z");
    expect(canDisableAt(end, new Date(end.getTime() - 25 * HOUR))).toBe(true);
    expect(canDisableAt(end, new Date(end.getTime() - 24 * HOUR))).toBe(true);
    expect(canDisableAt(end, new Date(end.getTime() - 24 * HOUR + 1))).toBe(false);
  });
});

describe.each(databases())("billing ($name)", (kind) => {
  const t = useApi(kind);

  it("pages the history 5 at a time, newest first, with statuses and invoice availability", async () => {
    const who = await customer(t, "history@example.com");
    const empty = await history(t, who.token);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({ transactions: [], pagination: { current_page: 1, last_page: 1, per_page: 5, total: 0 } });

    await buyByCard(t, who, 6);
    // Eleven older payments, every third one refused.
    const base = Date.parse("2025-01-01T00:00:00.000Z");
    for (let i = 0; i < 11; i++) {
      await t.db
        .insertInto("transactions")
        .values({
          user_id: who.userId,
          plan_id: 1,
          subscription_id: null,
          amount_cents: 999,
          status: i % 3 === 0 ? "Payment failed" : "paid",
          payment_gateway: "stripe",
          wallet_payment_type: "card",
          gateway_ref: null,
          coupon_code: null,
          failure_message: i % 3 === 0 ? "Your card was declined." : null,
          created_at: new Date(base + i * 86_400_000).toISOString(),
        })
        .execute();
    }
    const first = await history(t, who.token);
    expect(first.body.data.pagination).toEqual({ current_page: 1, last_page: 3, per_page: 5, total: 12 });
    expect(first.body.data.transactions).toHaveLength(5);
    expect(first.body.data.transactions[0]).toMatchObject({
      product: { title: "2 Years" },
      wallet_payment_type: "card",
      payment_gateway: "stripe",
      amount: 107.76,
      status: "paid",
      invoice_available: true,
    });
    const dates = first.body.data.transactions.map((x: { created_at: string }) => x.created_at);
    expect([...dates].sort().reverse()).toEqual(dates);

    const third = await history(t, who.token, { page: 3 });
    expect(third.body.data.pagination).toEqual({ current_page: 3, last_page: 3, per_page: 5, total: 12 });
    expect(third.body.data.transactions.map((x: { status: string }) => x.status)).toEqual(["paid", "Payment failed"]);
    expect(third.body.data.transactions[1]).toMatchObject({ amount: 9.99, product: { title: "1 Month" }, invoice_available: false });
    // Form data too, and a page beyond the last is empty.
    const form = await t.post("/api/billing/transactions", { token: who.token, form: { page: "2", per_page: "10" } });
    expect(form.body.data.pagination).toEqual({ current_page: 2, last_page: 2, per_page: 10, total: 12 });
    expect((await history(t, who.token, { page: 9 })).body.data.transactions).toEqual([]);
    expect((await history(t, who.token, { page: 0 })).status).toBe(422);
    expect((await history(t, who.token, { per_page: 500 })).status).toBe(422);
    expect((await t.post("/api/billing/transactions")).status).toBe(401);

    // Nobody else sees them.
    const other = await customer(t, "history-other@example.com");
    expect((await history(t, other.token)).body.data.pagination.total).toBe(0);
  });

  it("turns auto-renewal off (Stripe and our row), on again, and refuses off within 24 hours of the cycle end", async () => {
    const who = await customer(t, "renewal@example.com");
    const sub = await buyByCard(t, who, 1);
    const stripe = t.api.payments.gateway.stripe;
    const row = () => t.db.selectFrom("subscriptions").selectAll().where("id", "=", sub.id).executeTakeFirstOrThrow();

    const off = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } });
    expect(off.status, off.text).toBe(200);
    expect(off.body.data.message).toBe("Auto-renewal updated successfully");
    // In the request's language (issue 36): the envelope's message and the spec's copy in data.
    const german = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id }, headers: { "accept-language": "de" } });
    expect(german.status, german.text).toBe(200);
    expect(german.body).toMatchObject({ message: "Die automatische Verlängerung wurde aktualisiert", data: { message: "Die automatische Verlängerung wurde aktualisiert" } });
    expect((await stripe.subscriptions.retrieve(sub.stripe_sub_id)).cancel_at_period_end).toBe(true);
    expect(await row()).toMatchObject({ subs_status: "subscription_cancelled", cancel_at_period_end: 1 });
    // Idempotent.
    expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } })).status).toBe(200);
    expect((await row()).subs_status).toBe("subscription_cancelled");

    const on = await t.post("/api/stripe/auto-renewal", { token: who.token, form: { type: "enable", subscriptionId: String(sub.id) } });
    expect(on.status, on.text).toBe(200);
    expect((await stripe.subscriptions.retrieve(sub.stripe_sub_id)).cancel_at_period_end).toBe(false);
    expect(await row()).toMatchObject({ subs_status: "subscription_started", cancel_at_period_end: 0 });

    // 12 hours before the end of the cycle: too late to turn it off; turning it on still works.
    const end = Date.parse((await row()).sub_exp_date);
    t.clock.advanceSeconds((end - t.clock.now().getTime() - 12 * HOUR) / 1000);
    try {
      const late = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "disable", subscriptionId: sub.id } });
      expect(late.status).toBe(422);
      expect(late.body.message).toBe("Auto-renewal must be turned off at least 24 hours before the end of the billing cycle.");
      expect((await stripe.subscriptions.retrieve(sub.stripe_sub_id)).cancel_at_period_end).toBe(false);
      expect((await row()).subs_status).toBe("subscription_started");
      expect((await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "enable", subscriptionId: sub.id } })).status).toBe(200);
    } finally {
      t.clock.reset();
    }

    // Another user's subscription is not found; bad input is 422.
    const other = await customer(t, "renewal-other@example.com");
    expect((await t.post("/api/stripe/auto-renewal", { token: other.token, json: { type: "disable", subscriptionId: sub.id } })).status).toBe(404);
    const bad = await t.post("/api/stripe/auto-renewal", { token: who.token, json: { type: "pause", subscriptionId: sub.id } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe("The type must be enable or disable.");
  });

  it("refuses auto-renewal for one-time and crypto plans", async () => {
    const single = await customer(t, "single@example.com");
    const fiveYears = await buyByCard(t, single, 7);
    const refused = await t.post("/api/stripe/auto-renewal", { token: single.token, json: { type: "enable", subscriptionId: fiveYears.id } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe("A one-time plan does not renew.");

    const crypto = await customer(t, "crypto-renewal@example.com");
    await buyByCrypto(t, crypto, TWO_YEARS_BY_CRYPTO);
    const sub = (await t.post("/api/subscription/active", { token: crypto.token })).body.data.subscription;
    const answer = await t.post("/api/stripe/auto-renewal", { token: crypto.token, json: { type: "enable", subscriptionId: sub.id } });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toMatch(/^Crypto plans do not renew automatically/);
  });

  it("downloads every payment's invoice as a PDF, still gives a card invoice's hosted url, only to the owner", async () => {
    const who = await customer(t, "invoices@example.com");
    // The one-time plan by crypto, then a recurring one by card (two recurring plans would be refused: decision 028).
    await buyByCrypto(t, who, { productId: "vpn_5_years", planId: 7, amount: "199.00" });
    await buyByCard(t, who, 1);
    const [card, crypto] = (await history(t, who.token)).body.data.transactions as Array<{ id: number; payment_gateway: string; wallet_payment_type: string; invoice_available: boolean }>;
    expect(crypto).toMatchObject({ payment_gateway: "bitpay", wallet_payment_type: "crypto", invoice_available: true });
    expect(card).toMatchObject({ payment_gateway: "stripe", wallet_payment_type: "card", invoice_available: true });

    const res = await fetch(`${t.baseUrl}/api/invoice/${crypto!.id}/bitpay`, { headers: { authorization: `Bearer ${who.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="invoice_${crypto!.id}.pdf"`);
    expect(res.headers.get("x-invoice-number")).toMatch(/^INV-\d{4}-\d{6}$/);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const text = pdfText(bytes);
    expect(text).toContain(res.headers.get("x-invoice-number")!);
    expect(text).toContain("VPN plan: 5 Years");
    expect(text).toMatch(/Total \(USD\)\s+\$199\.00/);
    expect(text).toContain("invoices@example.com");
    expect(text).toMatch(/Payment method\s+Crypto \(BitPay\)/);
    // Through the harness too, so the declared media type is checked.
    expect((await t.get(`/api/invoice/${crypto!.id}/bitpay`, { token: who.token })).status).toBe(200);

    const hosted = await t.get(`/api/invoice/${card!.id}/stripe/card`, { token: who.token });
    expect(hosted.status, hosted.text).toBe(200);
    expect(hosted.body.data.url).toMatch(/\/dev\/stripe\/invoices\/in_/);
    // The sandbox's hosted invoice page (on the portal's origin, PUBLIC_URL; the harness serves it too).
    const page = await fetch(`${t.baseUrl}${new URL(hosted.body.data.url).pathname}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Paid");

    // A card payment's invoice is ours too (the gap-free series), a PDF like any other.
    const cardPdf = await fetch(`${t.baseUrl}/api/invoice/${card!.id}/stripe`, { headers: { authorization: `Bearer ${who.token}` } });
    expect(cardPdf.status).toBe(200);
    expect(pdfText(Buffer.from(await cardPdf.arrayBuffer()))).toMatch(/Payment method\s+Card/);

    // The wrong kind of download, and anybody else's, is not found.
    expect((await t.get(`/api/invoice/${card!.id}/bitpay`, { token: who.token })).status).toBe(404);
    expect((await t.get(`/api/invoice/${crypto!.id}/bitpay/crypto`, { token: who.token })).status).toBe(404);
    expect((await t.get(`/api/invoice/${card!.id}/stripe/googlepay`, { token: who.token })).status).toBe(404);
    const other = await customer(t, "invoices-other@example.com");
    const theirs = await t.get(`/api/invoice/${crypto!.id}/bitpay`, { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body.message).toBe("Invoice not found.");
    expect((await t.get(`/api/invoice/${card!.id}/stripe/card`, { token: other.token })).status).toBe(404);
    expect((await t.get(`/api/invoice/${card!.id}/stripe/card`)).status).toBe(401);
  });
});
