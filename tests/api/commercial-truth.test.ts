import { describe, expect, it } from "vitest";
import { PLANS } from "../../api/payments/catalog";
import { addMonthsUtc } from "../../api/payments/records";
import { formatDate as longDate } from "../../api/platform/dates";
import { pdfText } from "../support/pdf-text";
import { until } from "../support/until";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, approveAtPayPal, customer, markCryptoPaid, newKey, paymentMethod } from "./payment-support";

// One commercial truth (issue 32, docs/decisions/048): for every plan and every way the checkout offers
// to pay, the quote (POST /api/checkout/quote, and the same in GET /api/account/checkout's `quotes`), what
// the payment recorded (the subscription's end, whether it renews and at what) and the receipt email say
// the same amount, months, first-term end and renewal. SQLite only: nothing here differs on PostgreSQL.

const METHODS = ["card", "saved_card", "wallet", "paypal", "crypto"] as const;
type Method = (typeof METHODS)[number];

const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const every = (months: number) => (months % 12 === 0 ? (months === 12 ? "year" : `${months / 12} years`) : months === 1 ? "month" : `${months} months`);
const monthsText = (n: number) => `${n} month${n === 1 ? "" : "s"}`;

/**
 * A quote is "if paid now" and the payment is recorded a moment later (the test clock runs): the same
 * first-term end and renewal date, to within the test's own seconds.
 */
function expectSameMoment(actual: string, expected: string) {
  expect(Math.abs(Date.parse(actual) - Date.parse(expected)), `${actual} vs ${expected}`).toBeLessThan(60_000);
}

/** A quote with its moments left out, for comparing what else it says. */
function withoutMoments(quote: { first_term_ends_on: string; renewal: { renews_on: string } | null }) {
  const { first_term_ends_on: _end, renewal, ...rest } = quote;
  return { ...rest, renewal: renewal ? { ...renewal, renews_on: undefined } : null };
}

/** Presses Approve on the PayPal stand-in's approval page and completes the payment as the checkout's return does. */
async function payByPayPal(t: TestApi, token: string, planId: number) {
  const started = await t.post("/api/payments/paypal/checkout", {
    token,
    json: { planId, return_path: `/subscription/payment/${planId}`, idempotency_key: newKey() },
  });
  expect(started.status, started.text).toBe(200);
  const back = await approveAtPayPal(t, started.body.data.approve_url as string);
  const subscriptionId = back.searchParams.get("subscription_id");
  const ids = subscriptionId ? { subscription_id: subscriptionId } : { token: back.searchParams.get("token") };
  const done = await t.post("/api/payments/paypal/complete", { token, json: ids });
  expect(done.status, done.text).toBe(200);
  expect(done.body.data.status).toBe("paid");
}

async function pay(t: TestApi, who: { token: string; email: string }, planId: number, method: Method, amount: number) {
  const plan = PLANS.find((p) => p.id === planId)!;
  switch (method) {
    case "card":
    case "saved_card": {
      let pm = await paymentMethod(t, GOOD);
      if (method === "saved_card") {
        const saved = await t.post("/api/add-new-card", {
          token: who.token,
          json: { payment_method_id: pm, card_brand: "visa", card_last4: "4242", card_exp_month: 12, card_exp_year: 2040, billing_name: "Pat Payer", billing_postal: "10115" },
        });
        expect(saved.status, saved.text).toBe(200);
        const cards = await t.post("/api/payments/payment-methods", { token: who.token });
        pm = cards.body.data[0].payment_method_id;
      }
      const paid = await t.post("/api/payments/card", {
        token: who.token,
        json: { type: method === "saved_card" ? "saved-card" : "new-card", idempotency_key: newKey(), paymentMethodId: pm, planId, email: who.email },
      });
      expect(paid.status, paid.text).toBe(200);
      expect(paid.body.data.status).toBe("paid");
      return;
    }
    case "wallet": {
      const paid = await t.post("/api/payments/wallet", {
        token: who.token,
        json: { paymentTokenId: await paymentMethod(t, GOOD), productId: plan.plan_id, planId, paymentSource: "googlepay", email: who.email, idempotency_key: newKey() },
      });
      expect(paid.status, paid.text).toBe(200);
      return;
    }
    case "paypal":
      return payByPayPal(t, who.token, planId);
    case "crypto": {
      const created = await t.post("/api/payments/crypto/invoice", {
        token: who.token,
        json: { productId: plan.plan_id, planId, amount: amount.toFixed(2), currency: "USD", email: who.email },
      });
      expect(created.status, created.text).toBe(200);
      await markCryptoPaid(t, created.body.data.invoiceUrl as string);
    }
  }
}

describe.each(databases())("one commercial truth: quote, recorded payment and receipt email agree ($name)", (kind) => {
  const t = useApi(kind);

  it("the quote refuses what it cannot answer, with a message", async () => {
    const unknownPlan = await t.post("/api/checkout/quote", { json: { planId: 4, method: "card" } });
    expect(unknownPlan.status).toBe(404);
    expect(unknownPlan.body.message).toBe("This plan does not exist.");
    const badMethod = await t.post("/api/checkout/quote", { json: { planId: 1, method: "cheque" } });
    expect(badMethod.status).toBe(422);
    expect(badMethod.body.errors.fields.method[0]).toMatch(/payment method must be one of/);
    const badCoupon = await t.post("/api/checkout/quote", { json: { planId: 1, method: "card", coupon: "NOPE" } });
    expect(badCoupon.status).toBe(422);
    expect(badCoupon.body.errors.fields.coupon[0]).toBe("This coupon code is not valid.");
    const savedWithoutAccount = await t.post("/api/checkout/quote", { json: { planId: 1, method: "saved_card" } });
    expect(savedWithoutAccount.status).toBe(422);
    const coupon = await t.post("/api/checkout/quote", { json: { planId: 6, method: "paypal", coupon: "welcome10" } });
    expect(coupon.status, coupon.text).toBe(200);
    expect(coupon.body.data).toMatchObject({ coupon_code: "WELCOME10", price_cents: 10776, discount_amount_cents: 1078, amount_cents: 9698, amount: 96.98, renewal: null });
  });

  it("PayPal and crypto: one rule, said by the plan's payment_terms and the quotes alike", async () => {
    const plans = (await t.get("/api/plans")).body.data as Array<{ id: number; payment_terms: Record<Method, { renews: boolean; renewal_price_cents: number | null; interval_months: number | null }> }>;
    const renews = Object.fromEntries(plans.map((p) => [p.id, METHODS.map((m) => p.payment_terms[m].renews)]));
    // card, saved_card, wallet, paypal, crypto
    expect(renews).toEqual({
      1: [true, true, true, true, false],
      2: [true, true, true, true, false],
      3: [true, true, true, true, false],
      5: [true, true, true, true, false],
      6: [true, true, true, false, false],
      7: [false, false, false, false, false],
    });
  });

  for (const plan of PLANS) {
    for (const method of METHODS) {
      it(`${plan.title} by ${method}`, async () => {
        const who = await customer(t, `truth-${plan.id}-${method}@example.com`);
        const quoted = await t.post("/api/checkout/quote", { token: who.token, json: { planId: plan.id, method } });
        expect(quoted.status, quoted.text).toBe(200);
        const quote = quoted.body.data;
        // The checkout's one call carries the same answer for the methods it offers.
        const page = await t.get(`/api/account/checkout?plan_id=${plan.id}`, { token: who.token });
        expect(page.status, page.text).toBe(200);
        if (method !== "saved_card") {
          const offered = page.body.data.quotes.find((q: { method: string }) => q.method === method);
          expect(withoutMoments(offered)).toEqual(withoutMoments(quote));
          expectSameMoment(offered.first_term_ends_on, quote.first_term_ends_on);
        }
        expectSameMoment(page.body.data.term_ends_on, quote.first_term_ends_on);
        expect(quote).toMatchObject({
          amount_cents: plan.discounted_price_cents,
          amount: plan.discounted_price_cents! / 100,
          paid_months: plan.duration_months,
          extra_months: plan.extra_months,
          months: plan.duration_months! + plan.extra_months!,
        });

        await pay(t, who, plan.id!, method, quote.amount);

        // What the payment recorded: the subscription's end, whether it renews, at what and when.
        const active = await t.post("/api/subscription/active", { token: who.token });
        expect(active.status, active.text).toBe(200);
        expect(active.body.data.subscription.plan_id).toBe(plan.id);
        expectSameMoment(active.body.data.subscription.sub_exp_date, quote.first_term_ends_on);
        if (quote.renewal) {
          expect(active.body.data.next_charge).toMatchObject({ amount_cents: quote.renewal.amount_cents });
          expectSameMoment(active.body.data.next_charge.date, quote.renewal.renews_on);
        } else {
          expect(active.body.data.next_charge).toBeNull();
        }
        const receipt = await t.get(`/api/account/receipt?plan_id=${plan.id}`, { token: who.token });
        expect(receipt.status, receipt.text).toBe(200);
        const recorded = receipt.body.data.payment;
        expect(recorded).toMatchObject({
          // A saved card is a card payment once recorded.
          method: method === "saved_card" ? "card" : method,
          amount_cents: quote.amount_cents,
          months: quote.months,
          paid_months: quote.paid_months,
          extra_months: quote.extra_months,
        });
        expectSameMoment(recorded.first_term_ends_on, quote.first_term_ends_on);
        expect(withoutMoments(recorded).renewal).toEqual(withoutMoments(quote).renewal);

        // The receipt email says the same.
        const mail = await until("the receipt email", async () => (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN receipt"));
        expect(mail.text).toContain(`Thank you for your payment of ${usd(quote.amount_cents)} for the ${plan.title} plan.`);
        const buys = quote.extra_months > 0 ? `${monthsText(quote.months)} (${monthsText(quote.paid_months)} + ${monthsText(quote.extra_months)} free)` : monthsText(quote.months);
        expect(mail.text).toContain(`This payment buys ${buys}.`);
        expect(mail.text).toContain(` to ${longDate(quote.first_term_ends_on)}.`);
        if (quote.renewal) {
          expect(mail.text).toContain(
            `It renews automatically on ${longDate(quote.renewal.renews_on)} at ${usd(quote.renewal.amount_cents)} every ${every(quote.renewal.interval_months)}, until you turn auto-renewal off.`,
          );
          expect(mail.text).not.toContain("does not renew");
        } else {
          expect(mail.text).toMatch(/It does not renew/);
          expect(mail.text).not.toContain("renews automatically");
        }
      });
    }
  }
});

// Tax (issue 35, docs/decisions/061): for a German consumer, the quote, the invoice row, its PDF, the receipt, the
// receipt email, the billing history and the next charge state the same net, VAT and total, every plan, every method.
describe.each(databases())("one commercial truth with VAT: a German customer's net, VAT and total agree everywhere ($name)", (kind) => {
  const t = useApi(kind);

  for (const plan of PLANS) {
    for (const method of METHODS) {
      it(`${plan.title} by ${method} in Germany`, async () => {
        const who = await customer(t, `truth-de-${plan.id}-${method}@example.com`);
        const saved = await t.request("PUT", "/api/account/billing-country", { token: who.token, json: { country: "DE" } });
        expect(saved.status, saved.text).toBe(200);
        const quoted = await t.post("/api/checkout/quote", { token: who.token, json: { planId: plan.id, method } });
        expect(quoted.status, quoted.text).toBe(200);
        const quote = quoted.body.data;
        const net = plan.discounted_price_cents!;
        const vat = Math.floor((net * 1900 + 5000) / 10000);
        expect(quote).toMatchObject({ country: "DE", net_cents: net, tax: { label: "VAT 19 % (Germany)", amount_cents: vat }, amount_cents: net + vat });

        await pay(t, who, plan.id!, method, quote.amount);

        const invoice = await t.db
          .selectFrom("invoices")
          .innerJoin("transactions", "transactions.id", "invoices.transaction_id")
          .select(["transactions.id", "transactions.payment_gateway", "transactions.amount_cents as charged", "invoices.net_cents", "invoices.vat_cents", "invoices.vat_rate", "invoices.amount_cents"])
          .where("invoices.user_id", "=", who.userId)
          .executeTakeFirstOrThrow();
        expect(invoice).toMatchObject({ charged: quote.amount_cents, amount_cents: quote.amount_cents, net_cents: net, vat_cents: vat, vat_rate: "19" });
        const pdf = await fetch(`${t.baseUrl}/api/invoice/${invoice.id}/${invoice.payment_gateway}`, { headers: { authorization: `Bearer ${who.token}` } });
        expect(pdf.status).toBe(200);
        const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
        expect(text).toMatch(new RegExp(`Net\\s+\\${usd(net)}`));
        expect(text).toMatch(new RegExp(`VAT 19 % \\(Germany\\)\\s+\\${usd(vat)}`));
        expect(text).toMatch(new RegExp(`Total \\(USD\\)\\s+\\${usd(net + vat)}`));

        const receipt = await t.get(`/api/account/receipt?plan_id=${plan.id}`, { token: who.token });
        expect(receipt.status, receipt.text).toBe(200);
        expect(receipt.body.data.payment).toMatchObject({ country: "DE", net_cents: net, tax: { label: quote.tax.label, amount_cents: vat }, amount_cents: quote.amount_cents });
        expect(receipt.body.data.payment.renewal).toEqual(quote.renewal ? { ...quote.renewal, renews_on: expect.any(String) } : null);

        const history = await t.post("/api/billing/transactions", { token: who.token, json: {} });
        expect(history.body.data.transactions[0]).toMatchObject({ amount_cents: quote.amount_cents, net_cents: net, tax: { label: quote.tax.label, amount_cents: vat } });

        const active = (await t.post("/api/subscription/active", { token: who.token })).body.data;
        if (quote.renewal) {
          expect(active.next_charge).toMatchObject({ amount_cents: quote.renewal.amount_cents, net_cents: quote.renewal.net_cents, tax_cents: quote.renewal.tax_cents, tax: { label: quote.tax.label } });
        } else {
          expect(active.next_charge).toBeNull();
        }

        const mail = await until("the receipt email", async () => (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN receipt"));
        expect(mail.text).toContain(`Thank you for your payment of ${usd(quote.amount_cents)} for the ${plan.title} plan.`);
        expect(mail.text).toContain(`Net ${usd(net)}, VAT 19 % (Germany) ${usd(vat)}, total ${usd(net + vat)}.`);
        if (quote.renewal) expect(mail.text).toContain(` at ${usd(quote.renewal.amount_cents)} every `);
      });
    }
  }
});

/** The day of an ISO moment (UTC): the three figures name days. */
const dayOf = (iso: string) => iso.slice(0, 10);

type Figures = { charged_now_cents: number; new_end_date: string; next_renewal: { amount_cents: number; date: string } | null };

/**
 * The three figures as the customer reads them: the amounts, and the dates' days. A change made a second after
 * its preview (a loaded machine) buys from that second, so its end is that second later: the same day.
 */
function expectSameFigures(actual: Figures, expected: Figures) {
  expect(actual.charged_now_cents).toBe(expected.charged_now_cents);
  expect(dayOf(actual.new_end_date)).toBe(dayOf(expected.new_end_date));
  expect(actual.next_renewal?.amount_cents).toBe(expected.next_renewal?.amount_cents);
  expect(dayOf(actual.next_renewal?.date ?? "")).toBe(dayOf(expected.next_renewal?.date ?? ""));
}

const RECURRING = PLANS.filter((plan) => plan.billing_type === "recurring");
// PayPal bills at most yearly: the 2-year plan is one PayPal payment, neither changed from nor to (decision 051).
const PAYPAL_SUBSCRIBED = RECURRING.filter((plan) => plan.duration_months! <= 12);

// A plan change is a purchase of the new plan's card (issue 32): the preview, the change's answer, its
// result read again, the subscription and its 'Next charge', and the email state the same three figures
// (charged now, new end date, next renewal), for every recurring plan to every other, by card and by PayPal.
describe.each(databases())("one commercial truth: every plan change says the same three figures ($name)", (kind) => {
  const t = useApi(kind);
  const pairs = (plans: typeof RECURRING) => plans.flatMap((from) => plans.filter((to) => to.id !== from.id).map((to) => [from, to] as const));
  // Each also for a German consumer (issue 35): every figure with 19 % VAT, the charge now Stripe Tax's.
  const cases = (["US", "DE"] as const).flatMap((country) => [
    ...pairs(RECURRING).map(([from, to]) => ({ method: "card" as const, from, to, country })),
    ...pairs(PAYPAL_SUBSCRIBED).map(([from, to]) => ({ method: "paypal" as const, from, to, country })),
  ]);
  const vatOf = (country: "US" | "DE", net: number) => (country === "DE" ? Math.floor((net * 1900 + 5000) / 10000) : 0);

  it.each(cases.map((c) => [`${c.from.title} to ${c.to.title} by ${c.method}${c.country === "DE" ? " in Germany" : ""}`, c] as const))("%s", async (_name, { method, from, to, country }) => {
    const who = await customer(t, `change-${method}-${from.id}-${to.id}-${country}@example.com`);
    if (country === "DE") expect((await t.request("PUT", "/api/account/billing-country", { token: who.token, json: { country } })).status).toBe(200);
    const fromNet = from.discounted_price_cents!;
    await pay(t, who, from.id!, method, (fromNet + vatOf(country, fromNet)) / 100);
    const before = (await t.post("/api/subscription/active", { token: who.token })).body.data.subscription;

    const preview = await t.get(`/api/subscription/change-preview?plan_id=${to.id}`, { token: who.token });
    expect(preview.status, preview.text).toBe(200);
    const { summary, kind: when } = preview.body.data;
    expect(summary.charged_now_cents).toBe(Math.round(summary.charged_now * 100));
    // What the new plan renews at, every time: its card's price, with VAT in Germany.
    const toNet = to.discounted_price_cents!;
    expect(summary.next_renewal).toMatchObject({ amount_cents: toNet + vatOf(country, toNet), net_cents: toNet, tax_cents: vatOf(country, toNet), date: summary.new_end_date });
    // What is charged now: its net and VAT (once, on the net), as the quote states them.
    expect(summary.charged_now_cents).toBe(summary.charged_now_net_cents + (summary.charged_now_tax?.amount_cents ?? 0));
    expect(summary.charged_now_tax?.amount_cents ?? 0).toBe(vatOf(country, summary.charged_now_net_cents));
    expect(preview.body.data).toMatchObject({ net_cents: summary.charged_now_net_cents, amount_due_cents: summary.charged_now_cents });
    if (country === "DE") expect(summary.next_renewal.tax).toMatchObject({ label: "VAT 19 % (Germany)" });
    else expect(summary.next_renewal.tax).toBeNull();
    if (when === "now") {
      // Bought now: the new plan's whole card from today (its free months too), less nothing.
      expect(dayOf(summary.new_end_date)).toBe(dayOf(addMonthsUtc(new Date(), to.duration_months! + to.extra_months!).toISOString()));
      expect(summary.charged_now_cents).toBeGreaterThan(0);
    } else {
      // At the renewal: nothing now, the current term kept.
      expect(summary).toMatchObject({ charged_now_cents: 0, new_end_date: before.sub_exp_date });
    }

    const key = newKey();
    const changePlan = async () => {
      if (method === "card") {
        return t.post("/api/subscription/change", { token: who.token, json: { plan_id: to.id, proration_date: preview.body.data.proration_date ?? undefined, idempotency_key: key } });
      }
      const started = await t.post("/api/subscription/change/paypal", { token: who.token, json: { plan_id: to.id, return_path: `/subscription/payment/${to.id}`, idempotency_key: key } });
      expect(started.status, started.text).toBe(200);
      await approveAtPayPal(t, started.body.data.approve_url);
      return t.post("/api/subscription/change/paypal/confirm", { token: who.token, json: { plan_id: to.id, idempotency_key: key } });
    };
    const answer = await changePlan();
    expect(answer.status, answer.text).toBe(200);
    expectSameFigures(answer.body.data.summary, summary);
    expect(answer.body.data.amount_paid_cents ?? summary.charged_now_cents).toBe(summary.charged_now_cents);
    const again = await t.get(`/api/subscription/change/result?key=${encodeURIComponent(key)}`, { token: who.token });
    expect(again.status, again.text).toBe(200);
    expectSameFigures(again.body.data.summary, summary);

    // The subscription and its 'Next charge' (Billing and the home) say the same.
    const active = (await t.post("/api/subscription/active", { token: who.token })).body.data;
    expect(dayOf(active.subscription.sub_exp_date)).toBe(dayOf(summary.new_end_date));
    if (when === "now") expect(active.subscription.plan_id).toBe(to.id);
    else expect(active.pending_change).toMatchObject({ plan: { id: to.id } });
    expect(active.next_charge).toMatchObject({ amount_cents: summary.next_renewal.amount_cents });
    expect(dayOf(active.next_charge.date)).toBe(dayOf(summary.next_renewal.date));

    // And the email.
    const mail = await until("the plan change email", async () => (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN plan change"));
    expect(mail.text).toContain(`Charged now: ${usd(summary.charged_now_cents)}`);
    expect(mail.text).toContain(`New end date: ${longDate(summary.new_end_date)}`);
    expect(mail.text).toContain(`Next renewal: ${usd(summary.next_renewal.amount_cents)} on ${longDate(summary.next_renewal.date)}`);
    if (country === "DE") {
      expect(mail.text).toContain(`Net ${usd(toNet)}, VAT 19 % (Germany) ${usd(vatOf(country, toNet))}, total ${usd(summary.next_renewal.amount_cents)}.`);
      if (when === "now") {
        expect(mail.text).toContain(
          `Net ${usd(summary.charged_now_net_cents)}, VAT 19 % (Germany) ${usd(summary.charged_now_tax.amount_cents)}, total ${usd(summary.charged_now_cents)}.`,
        );
        // The change's invoice records what was charged.
        const rows = await t.db.selectFrom("invoices").select(["net_cents", "vat_cents", "amount_cents"]).where("user_id", "=", who.userId).orderBy("id").execute();
        expect(rows[rows.length - 1]).toEqual({ net_cents: summary.charged_now_net_cents, vat_cents: summary.charged_now_tax.amount_cents, amount_cents: summary.charged_now_cents });
      }
    } else {
      expect(mail.text).not.toContain("VAT");
    }
  });
});

describe.each(databases())("coupon tries through the quotes ($name)", (kind) => {
  const t = useApi(kind, { env: { COUPON_MAX_ATTEMPTS_PER_IP: "3" } });

  it("count as at /api/coupons/apply: a wrong code counts, a usable one is given back, then 429", async () => {
    const who = await customer(t, "coupon-quotes@example.com");
    for (let i = 0; i < 5; i++) {
      const usable = await t.post("/api/checkout/quote", { json: { planId: 1, method: "card", coupon: "WELCOME10" } });
      expect(usable.status, usable.text).toBe(200);
    }
    expect((await t.post("/api/checkout/quote", { json: { planId: 1, method: "card", coupon: "GUESS1" } })).status).toBe(422);
    expect((await t.post("/api/plans/detail", { json: { planId: 1, coupon: "GUESS2" } })).status).toBe(200);
    expect((await t.get("/api/account/checkout?plan_id=1&coupon=GUESS3", { token: who.token })).status).toBe(200);
    const over = await t.post("/api/checkout/quote", { json: { planId: 1, method: "card", coupon: "GUESS4" } });
    expect(over.status).toBe(429);
    expect(over.body.message).toMatch(/^Too many coupon attempts\./);
    // Without a coupon nothing is counted.
    expect((await t.post("/api/checkout/quote", { json: { planId: 1, method: "card" } })).status).toBe(200);
  });
});
