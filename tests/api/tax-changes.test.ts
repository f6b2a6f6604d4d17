import { afterEach, describe, expect, it } from "vitest";
import { GERMAN_CARD } from "../support/cards";
import { pdfText } from "../support/pdf-text";
import { databases, type TestApi, useApi } from "./harness";
import { DECLINED, GOOD, GOOD_OTHER, approveAtPayPal, customer, invoicesOf, newKey, payOnHostedPage, paymentMethod } from "./payment-support";

// Tax on what changes a plan and what pays a late renewal (issue 35, docs/decisions/061): a German customer's
// plan change, its preview, email, invoice row and PDF, the next charge, a failed renewal's emails, its retry
// and paying its open invoice, the wallets, the hosted page and the 5-year payment all state the same net,
// VAT and total.

const HOUR = 3_600_000;
const VAT_DE = "VAT 19 % (Germany)";
const usd = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const vat19 = (net: number) => Math.floor((net * 1900 + 5000) / 10000);

type Who = { token: string; email: string; userId: number };

async function german(t: TestApi, email: string): Promise<Who> {
  const who = await customer(t, email);
  const saved = await t.request("PUT", "/api/account/billing-details", { token: who.token, json: { country: "DE", name: "Anna Schmidt", address: "Hauptstraße 1\n10115 Berlin" } });
  expect(saved.status, saved.text).toBe(200);
  return who;
}

async function payByCard(t: TestApi, who: Who, planId: number, card = GOOD) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: await paymentMethod(t, card), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.subscription as { id: number; stripe_sub_id: string; sub_exp_date: string };
}

async function quoteFor(t: TestApi, token: string, planId: number, method: string) {
  const res = await t.post("/api/checkout/quote", { token, json: { planId, method } });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { net_cents: number; amount_cents: number; tax: { amount_cents: number; label: string } | null };
}

/** The invoice PDF's text: its net, VAT line and total must be the row's. */
async function expectPdfStates(t: TestApi, token: string, transactionId: number, gateway: string, money: { net: number; vat: number; total: number }) {
  const pdf = await fetch(`${t.baseUrl}/api/invoice/${transactionId}/${gateway}`, { headers: { authorization: `Bearer ${token}` } });
  expect(pdf.status).toBe(200);
  const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
  expect(text).toMatch(new RegExp(`Net\\s+\\${usd(money.net)}`));
  expect(text).toMatch(new RegExp(`VAT 19 % \\(Germany\\)\\s+\\${usd(money.vat)}`));
  expect(text).toMatch(new RegExp(`Total \\(USD\\)\\s+\\${usd(money.total)}`));
}

/** What the billing history says of a payment. */
async function historyAmount(t: TestApi, token: string, transactionId: number) {
  const res = await t.post("/api/billing/transactions", { token, json: {} });
  expect(res.status, res.text).toBe(200);
  return (res.body.data.transactions as { id: number; amount_cents: number; net_cents: number | null; tax: { label: string; amount_cents: number } | null }[]).find(
    (tx) => Number(tx.id) === transactionId,
  );
}

describe.each(databases({ postgres: "taxed plan changes, late renewals and wallets record net, VAT and total in one transaction on both dialects" }))(
  "tax on plan changes, late renewals and other ways of paying ($name)",
  (kind) => {
    const t = useApi(kind);
    afterEach(() => t.clock.reset());

    it("a German 1 Month -> 1 Year change now: the preview, the result, the email, the invoice row and its PDF state the same net, VAT and total", async () => {
      const who = await german(t, "change-de@example.com");
      await payByCard(t, who, 1);
      t.clock.advanceDays(10);

      const preview = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
      expect(preview.status, preview.text).toBe(200);
      const p = preview.body.data;
      expect(p.country).toBe("DE");
      expect(p.tax).toMatchObject({ country: "DE", label: VAT_DE, rate_basis_points: 1900, reverse_charge: false });
      // VAT once, half-up, on what the change owes (the new plan less the unused time's net).
      expect(p.tax.amount_cents).toBe(vat19(p.net_cents));
      expect(p.amount_due_cents).toBe(p.net_cents + p.tax.amount_cents);
      expect(p.net_cents).toBeGreaterThan(7188 - 999);
      expect(p.net_cents).toBeLessThan(7188 - 500);
      expect(p.summary).toMatchObject({
        charged_now_cents: p.amount_due_cents,
        charged_now_net_cents: p.net_cents,
        charged_now_tax: { amount_cents: p.tax.amount_cents, label: VAT_DE },
        next_renewal: { net_cents: 7188, tax_cents: 1366, amount_cents: 8554, amount: 85.54, tax: { label: VAT_DE, amount_cents: 1366 } },
      });

      const changed = await t.post("/api/subscription/change", {
        token: who.token,
        json: { plan_id: 5, proration_date: p.proration_date, idempotency_key: newKey() },
      });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body.data).toMatchObject({ kind: "now", amount_paid_cents: p.amount_due_cents });
      expect(changed.body.data.summary).toMatchObject({
        charged_now_cents: p.amount_due_cents,
        charged_now_net_cents: p.net_cents,
        charged_now_tax: { amount_cents: p.tax.amount_cents },
        next_renewal: { amount_cents: 8554, net_cents: 7188, tax_cents: 1366 },
      });

      // Stripe (the stand-in's Stripe Tax) charged it: its invoice has the same VAT.
      const rows = await invoicesOf(t, who.userId);
      expect(rows).toHaveLength(2);
      const change = rows[1]!;
      expect(change).toMatchObject({
        charged: p.amount_due_cents,
        amount_cents: p.amount_due_cents,
        net_cents: p.net_cents,
        vat_cents: p.tax.amount_cents,
        vat_rate: "19",
        tax_country: "DE",
        reverse_charge: 0,
      });
      const invoice = await t.api.payments.gateway.stripe.invoices.retrieve(change.gateway_ref!);
      expect(invoice).toMatchObject({ billing_reason: "subscription_update", total_excluding_tax: p.net_cents, total: p.amount_due_cents, amount_paid: p.amount_due_cents });
      expect(invoice.total_taxes?.reduce((sum, x) => sum + x.amount, 0)).toBe(p.tax.amount_cents);
      await expectPdfStates(t, who.token, change.transaction_id, "stripe", { net: p.net_cents, vat: p.tax.amount_cents, total: p.amount_due_cents });
      expect(await historyAmount(t, who.token, change.transaction_id)).toMatchObject({
        amount_cents: p.amount_due_cents,
        net_cents: p.net_cents,
        tax: { label: VAT_DE, amount_cents: p.tax.amount_cents },
      });

      // The email states the same figures, with the one net/VAT/total sentence.
      const mail = (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN plan change");
      expect(mail?.text).toContain(`Charged now: ${usd(p.amount_due_cents)}`);
      expect(mail?.text).toContain(`Net ${usd(p.net_cents)}, ${VAT_DE} ${usd(p.tax.amount_cents)}, total ${usd(p.amount_due_cents)}.`);
      expect(mail?.text).toContain("Next renewal: $85.54");
      expect(mail?.text).toContain(`Net $71.88, ${VAT_DE} $13.66, total $85.54.`);

      // The next charge is the new plan's price with VAT.
      const active = await t.post("/api/subscription/active", { token: who.token });
      expect(active.body.data.next_charge).toMatchObject({ amount: "$85.54", amount_cents: 8554, net_cents: 7188, tax_cents: 1366, tax: { label: VAT_DE } });
      const home = await t.get("/api/account/home", { token: who.token });
      expect(home.body.data.next_charge).toMatchObject({ amount_cents: 8554, net_cents: 7188, tax_cents: 1366 });

      // A year and its free months later, the renewal charges that much.
      const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
      const ms = Date.parse(sub.sub_exp_date) + HOUR - t.clock.now().getTime();
      t.clock.advanceSeconds(ms / 1000);
      await t.api.runDueJobs();
      const renewed = await invoicesOf(t, who.userId);
      expect(renewed).toHaveLength(3);
      expect(renewed[2]).toMatchObject({ charged: 8554, net_cents: 7188, vat_cents: 1366, vat_rate: "19", tax_country: "DE" });
    }, 120_000);

    it("a German change at renewal charges nothing now and states the new plan's price with VAT, as the next charge", async () => {
      const who = await german(t, "later-de@example.com");
      await payByCard(t, who, 5);
      const preview = await t.get("/api/subscription/change-preview?plan_id=1", { token: who.token });
      expect(preview.status, preview.text).toBe(200);
      expect(preview.body.data).toMatchObject({ kind: "at_renewal", amount_due_cents: 0, net_cents: 0, tax: { amount_cents: 0, label: VAT_DE } });
      expect(preview.body.data.summary.next_renewal).toMatchObject({ net_cents: 999, tax_cents: 190, amount_cents: 1189 });
      const changed = await t.post("/api/subscription/change", { token: who.token, json: { plan_id: 1, idempotency_key: newKey() } });
      expect(changed.status, changed.text).toBe(200);
      const active = await t.post("/api/subscription/active", { token: who.token });
      expect(active.body.data.next_charge).toMatchObject({ amount: "$11.89", amount_cents: 1189, net_cents: 999, tax_cents: 190 });
    }, 60_000);

    it("a German PayPal subscription changed to 1 Year: the preview and the email state the renewal with VAT, and PayPal's next sale charges it", async () => {
      const who = await german(t, "paypal-change-de@example.com");
      const started = await t.post("/api/payments/paypal/checkout", {
        token: who.token,
        json: { planId: 2, return_path: "/subscription/payment/2", idempotency_key: newKey() },
      });
      expect(started.status, started.text).toBe(200);
      const back = await approveAtPayPal(t, started.body.data.approve_url);
      const done = await t.post("/api/payments/paypal/complete", { token: who.token, json: { subscription_id: back.searchParams.get("subscription_id") } });
      expect(done.status, done.text).toBe(200);
      const first = await invoicesOf(t, who.userId);
      expect(first[0]).toMatchObject({ charged: 2697 + vat19(2697), net_cents: 2697, vat_cents: vat19(2697), tax_country: "DE" });

      const preview = await t.get("/api/subscription/change-preview?plan_id=5", { token: who.token });
      expect(preview.status, preview.text).toBe(200);
      expect(preview.body.data).toMatchObject({ kind: "at_renewal", paid_with: "paypal", amount_due_cents: 0 });
      expect(preview.body.data.summary.next_renewal).toMatchObject({ net_cents: 7188, tax_cents: 1366, amount_cents: 8554, tax: { label: VAT_DE } });

      const key = newKey();
      const revise = await t.post("/api/subscription/change/paypal", { token: who.token, json: { plan_id: 5, return_path: "/subscription/payment/5", idempotency_key: key } });
      expect(revise.status, revise.text).toBe(200);
      await approveAtPayPal(t, revise.body.data.approve_url);
      const confirmed = await t.post("/api/subscription/change/paypal/confirm", { token: who.token, json: { plan_id: 5, idempotency_key: key } });
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(confirmed.body.data.summary.next_renewal).toMatchObject({ amount_cents: 8554, net_cents: 7188, tax_cents: 1366 });
      const mail = (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN plan change");
      expect(mail?.text).toContain("Next renewal: $85.54");
      expect(mail?.text).toContain(`Net $71.88, ${VAT_DE} $13.66, total $85.54.`);
      const active = await t.post("/api/subscription/active", { token: who.token });
      expect(active.body.data.next_charge).toMatchObject({ amount_cents: 8554, net_cents: 7188, tax_cents: 1366 });

      // The renewal: PayPal's sale of the new plan is net + VAT, recorded split at that rate.
      const sub = await t.db.selectFrom("subscriptions").selectAll().where("user_id", "=", who.userId).executeTakeFirstOrThrow();
      const days = Math.ceil((Date.parse(sub.sub_exp_date) - t.clock.now().getTime()) / 86_400_000) + 1;
      expect((await t.post("/dev/clock", { form: { days: String(days) } })).status).toBe(200);
      const rows = await invoicesOf(t, who.userId);
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ payment_gateway: "paypal", charged: 8554, net_cents: 7188, vat_cents: 1366, vat_rate: "19", tax_country: "DE" });
      await expectPdfStates(t, who.token, rows[1]!.transaction_id, "paypal", { net: 7188, vat: 1366, total: 8554 });
    }, 120_000);

    it("a German renewal declined: the emails and the banner say the taxed amount; the retry and the open invoice paid charge net + VAT, recorded and printed", async () => {
      const who = await german(t, "dunning-de@example.com");
      const sub = await payByCard(t, who, 1);
      const declining = await paymentMethod(t, DECLINED);
      expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: declining } })).status).toBe(200);
      await t.api.payments.gateway.stripe.subscriptions.update(sub.stripe_sub_id, { default_payment_method: declining });
      const renewal = Date.parse(sub.sub_exp_date);
      t.clock.advanceSeconds((renewal + HOUR - t.clock.now().getTime()) / 1000);
      await t.api.runDueJobs();

      const home = await t.get("/api/account/home", { token: who.token });
      expect(home.body.data.payment_failed).toMatchObject({ amount: "$11.89" });
      const failed = (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN payment failed");
      expect(failed?.text).toContain("$11.89 to your Visa ending in 0002");
      expect(failed?.text).toContain(`Net $9.99, ${VAT_DE} $1.90, total $11.89.`);
      // Stripe's retry (a day later) is the same taxed invoice, declined again.
      const open = await t.api.payments.gateway.stripe.invoices.retrieve((await t.db.selectFrom("subscriptions").select("past_due_invoice_id").where("id", "=", sub.id).executeTakeFirstOrThrow()).past_due_invoice_id!);
      expect(open).toMatchObject({ amount_due: 1189, total_excluding_tax: 999 });
      t.clock.advanceSeconds((24 * HOUR) / 1000);
      await t.api.runDueJobs();
      const failedRows = await t.db.selectFrom("transactions").select(["amount_cents", "status"]).where("user_id", "=", who.userId).where("status", "!=", "paid").execute();
      // The first attempt and the retry: a row each, both of the taxed total.
      expect(failedRows.length).toBeGreaterThanOrEqual(2);
      expect(new Set(failedRows.map((r) => r.amount_cents))).toEqual(new Set([1189]));

      const other = await paymentMethod(t, GOOD_OTHER);
      expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: other } })).status).toBe(200);
      const paid = await t.post("/api/billing/pay-open-invoice", { token: who.token, json: { payment_method_id: other } });
      expect(paid.status, paid.text).toBe(200);
      const rows = await invoicesOf(t, who.userId);
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ charged: 1189, amount_cents: 1189, net_cents: 999, vat_cents: 190, vat_rate: "19", tax_country: "DE" });
      await expectPdfStates(t, who.token, rows[1]!.transaction_id, "stripe", { net: 999, vat: 190, total: 1189 });
      expect(await historyAmount(t, who.token, rows[1]!.transaction_id)).toMatchObject({ amount_cents: 1189, net_cents: 999, tax: { label: VAT_DE, amount_cents: 190 } });
    }, 120_000);

    it("a German renewal that Stripe's retry collects is recorded with its VAT", async () => {
      const who = await german(t, "retry-de@example.com");
      const sub = await payByCard(t, who, 1);
      const declining = await paymentMethod(t, DECLINED);
      expect((await t.post("/api/add-new-card", { token: who.token, json: { payment_method_id: declining } })).status).toBe(200);
      const { stripe } = t.api.payments.gateway;
      await stripe.subscriptions.update(sub.stripe_sub_id, { default_payment_method: declining });
      const renewal = Date.parse(sub.sub_exp_date);
      t.clock.advanceSeconds((renewal + HOUR - t.clock.now().getTime()) / 1000);
      await t.api.runDueJobs();
      // The customer fixes the card at Stripe: the next retry collects it.
      const good = await paymentMethod(t, GOOD);
      const stripeCustomer = (await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow()).stripe_customer_id!;
      await stripe.paymentMethods.attach(good, { customer: stripeCustomer });
      await stripe.subscriptions.update(sub.stripe_sub_id, { default_payment_method: good });
      for (let day = 0; day < 8; day++) {
        t.clock.advanceSeconds((24 * HOUR) / 1000);
        await t.api.runDueJobs();
        if ((await invoicesOf(t, who.userId)).length === 2) break;
      }
      const rows = await invoicesOf(t, who.userId);
      expect(rows).toHaveLength(2);
      expect(rows[1]).toMatchObject({ charged: 1189, net_cents: 999, vat_cents: 190, vat_rate: "19", tax_country: "DE" });
    }, 120_000);

    it("Google Pay and Apple Pay charge a German customer net + VAT (the 2-year subscription and the 5-year payment)", async () => {
      const who = await german(t, "wallet-de@example.com");
      const two = await quoteFor(t, who.token, 6, "card");
      expect(two.tax).toMatchObject({ label: VAT_DE, amount_cents: vat19(two.net_cents) });
      const res = await t.post("/api/payments/wallet", {
        token: who.token,
        json: { paymentTokenId: await paymentMethod(t, GOOD), planId: 6, paymentSource: "googlepay", email: who.email, idempotency_key: newKey() },
      });
      expect(res.status, res.text).toBe(200);
      const [row] = await invoicesOf(t, who.userId);
      expect(row).toMatchObject({ wallet_payment_type: "googlepay", charged: two.amount_cents, net_cents: two.net_cents, vat_cents: two.tax!.amount_cents, vat_rate: "19", tax_country: "DE" });
      await expectPdfStates(t, who.token, row!.transaction_id, "stripe", { net: two.net_cents, vat: two.tax!.amount_cents, total: two.amount_cents });

      const other = await german(t, "apple-de@example.com");
      const five = await quoteFor(t, other.token, 7, "card");
      const apple = await t.post("/api/payments/wallet", {
        token: other.token,
        json: { paymentTokenId: await paymentMethod(t, GOOD), planId: 7, paymentSource: "applepay", idempotency_key: newKey() },
      });
      expect(apple.status, apple.text).toBe(200);
      const [fiveRow] = await invoicesOf(t, other.userId);
      expect(fiveRow).toMatchObject({ wallet_payment_type: "applepay", charged: five.amount_cents, net_cents: five.net_cents, vat_cents: vat19(five.net_cents), vat_rate: "19", tax_country: "DE" });
      await expectPdfStates(t, other.token, fiveRow!.transaction_id, "stripe", { net: five.net_cents, vat: vat19(five.net_cents), total: five.amount_cents });
    }, 90_000);

    it("the 5-year plan by card (a PaymentIntent) charges net + VAT, recorded and printed, and the receipt email states them", async () => {
      const who = await german(t, "five-de@example.com");
      const five = await quoteFor(t, who.token, 7, "card");
      expect(five.amount_cents).toBe(five.net_cents + vat19(five.net_cents));
      await payByCard(t, who, 7, GERMAN_CARD);
      const [row] = await invoicesOf(t, who.userId);
      expect(row).toMatchObject({ charged: five.amount_cents, net_cents: five.net_cents, vat_cents: vat19(five.net_cents), vat_rate: "19", tax_country: "DE" });
      const { stripe } = t.api.payments.gateway;
      const intent = await stripe.paymentIntents.retrieve(row!.gateway_ref!);
      expect(intent.amount).toBe(five.amount_cents);
      // Stripe Tax's calculation is what the intent charged (hooks.inputs.tax.calculation), and what was recorded.
      const calculationId = intent.hooks?.inputs?.tax?.calculation;
      expect(calculationId).toMatch(/^taxcalc_/);
      const calculation = await stripe.tax.calculations.retrieve(calculationId!);
      expect(calculation).toMatchObject({ amount_total: five.amount_cents, tax_amount_exclusive: vat19(five.net_cents), customer_details: { address: { country: "DE" } } });
      expect(calculation.tax_breakdown[0]).toMatchObject({ taxability_reason: "standard_rated", taxable_amount: five.net_cents, tax_rate_details: { country: "DE", percentage_decimal: "19.0" } });
      await expectPdfStates(t, who.token, row!.transaction_id, "stripe", { net: five.net_cents, vat: vat19(five.net_cents), total: five.amount_cents });
      const mail = (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN receipt");
      expect(mail?.text).toContain(`Net ${usd(five.net_cents)}, ${VAT_DE} ${usd(vat19(five.net_cents))}, total ${usd(five.amount_cents)}.`);
    }, 60_000);

    it("the 5-year plan outside the EU and for a German business: Stripe Tax's calculation charges no VAT, and none is charged without a country", async () => {
      const us = await customer(t, "five-us@example.com");
      expect((await t.request("PUT", "/api/account/billing-country", { token: us.token, json: { country: "US" } })).status).toBe(200);
      const quoteUs = await quoteFor(t, us.token, 7, "card");
      await payByCard(t, us, 7);
      const [usRow] = await invoicesOf(t, us.userId);
      expect(usRow).toMatchObject({ charged: quoteUs.net_cents, net_cents: quoteUs.net_cents, vat_cents: 0, vat_rate: null });
      const { stripe } = t.api.payments.gateway;
      const usIntent = await stripe.paymentIntents.retrieve(usRow!.gateway_ref!);
      const usCalculation = await stripe.tax.calculations.retrieve(usIntent.hooks!.inputs!.tax!.calculation);
      expect(usCalculation).toMatchObject({ tax_amount_exclusive: 0, tax_breakdown: [expect.objectContaining({ taxability_reason: "not_collecting" })] });

      const gmbh = await customer(t, "five-gmbh@example.com");
      expect((await t.request("PUT", "/api/account/billing-details", { token: gmbh.token, json: { country: "DE", name: "Müller GmbH", vat_number: "DE123456789" } })).status).toBe(200);
      await payByCard(t, gmbh, 7);
      const [businessRow] = await invoicesOf(t, gmbh.userId);
      expect(businessRow).toMatchObject({ charged: quoteUs.net_cents, vat_cents: 0, vat_rate: "0", reverse_charge: 1, tax_country: "DE" });
      const businessIntent = await stripe.paymentIntents.retrieve(businessRow!.gateway_ref!);
      const businessCalculation = await stripe.tax.calculations.retrieve(businessIntent.hooks!.inputs!.tax!.calculation);
      expect(businessCalculation.tax_breakdown[0]).toMatchObject({ taxability_reason: "reverse_charge", amount: 0 });

      const nowhere = await customer(t, "five-nowhere@example.com");
      await payByCard(t, nowhere, 7);
      const [plain] = await invoicesOf(t, nowhere.userId);
      expect(plain).toMatchObject({ charged: quoteUs.net_cents, vat_cents: 0, vat_rate: null, tax_country: null });
      expect((await stripe.paymentIntents.retrieve(plain!.gateway_ref!)).hooks).toBeUndefined();
    }, 60_000);

    it("the hosted page (a Checkout Session) charges a German customer net + VAT by Stripe Tax, recorded and printed", async () => {
      const who = await german(t, "hosted-de@example.com");
      const quote = await quoteFor(t, who.token, 6, "card");
      const started = await t.post("/api/payments/checkout-session", {
        token: who.token,
        json: { planId: 6, return_path: "/subscription/payment/6", idempotency_key: newKey() },
      });
      expect(started.status, started.text).toBe(200);
      const sessionId = await payOnHostedPage(t, started.body.data.url, "Anna Schmidt");
      const session = await t.api.payments.gateway.stripe.checkout.sessions.retrieve(sessionId);
      expect(session.total_details?.amount_tax).toBe(quote.tax!.amount_cents);
      expect(session.amount_total).toBe(quote.amount_cents);
      const done = await t.post("/api/payments/checkout-session/complete", { token: who.token, json: { sessionId } });
      expect(done.status, done.text).toBe(200);
      const [row] = await invoicesOf(t, who.userId);
      expect(row).toMatchObject({ charged: quote.amount_cents, net_cents: quote.net_cents, vat_cents: quote.tax!.amount_cents, vat_rate: "19", tax_country: "DE" });
      await expectPdfStates(t, who.token, row!.transaction_id, "stripe", { net: quote.net_cents, vat: quote.tax!.amount_cents, total: quote.amount_cents });
    }, 60_000);
  },
);
