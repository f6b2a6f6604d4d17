import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { GERMAN_CARD } from "../support/cards";
import { pdfText } from "../support/pdf-text";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, approveAtPayPal, customer, invoicesOf, markCryptoPaid, newKey, paymentMethod } from "./payment-support";

// Tax charged (issue 35, docs/decisions/061): every way of paying charges the quote's net + VAT, and the
// invoice records it (net, rate, VAT, country, reverse charge, the card's country as evidence).

const putDetails = (t: TestApi, token: string, json: Record<string, unknown>) => t.request("PUT", "/api/account/billing-details", { token, json });

async function quoteFor(t: TestApi, token: string, planId: number, method: string) {
  const res = await t.post("/api/checkout/quote", { token, json: { planId, method } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function payByCard(t: TestApi, who: { token: string; email: string }, planId: number, card = GOOD) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: await paymentMethod(t, card), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
}

describe.each(databases({ postgres: "tax recorded with every payment, in the payment's transaction, on both dialects" }))("tax charged ($name)", (kind) => {
  const t = useApi(kind);

  it("charges a German consumer's card 19 % on top, records net, VAT and total, and prints them on the invoice PDF", async () => {
    const who = await customer(t, "anna@example.com");
    expect((await putDetails(t, who.token, { country: "DE", name: "Anna Schmidt", address: "Hauptstraße 1\n10115 Berlin" })).status).toBe(200);
    const quote = await quoteFor(t, who.token, 1, "card");
    expect(quote).toMatchObject({ country: "DE", net_cents: 999, tax: { amount_cents: 190, label: "VAT 19 % (Germany)" }, amount_cents: 1189 });

    await payByCard(t, who, 1, GERMAN_CARD);
    const [row] = await invoicesOf(t, who.userId);
    expect(row).toMatchObject({
      charged: 1189,
      amount_cents: 1189,
      net_cents: 999,
      vat_rate: "19",
      vat_cents: 190,
      tax_country: "DE",
      reverse_charge: 0,
      card_country: "DE",
      country_mismatch: 0,
    });
    // Stripe (the stand-in's Stripe Tax) charged it: the invoice at Stripe has the same tax.
    const stripe = t.api.payments.gateway.stripe;
    const gatewayRef = (await t.db.selectFrom("transactions").select("gateway_ref").where("id", "=", row!.transaction_id).executeTakeFirstOrThrow()).gateway_ref!;
    const invoice = await stripe.invoices.retrieve(gatewayRef);
    expect(invoice.automatic_tax).toMatchObject({ enabled: true, status: "complete" });
    expect(invoice.total_taxes).toEqual([expect.objectContaining({ amount: 190, taxability_reason: "standard_rated", taxable_amount: 999 })]);
    expect(invoice).toMatchObject({ total_excluding_tax: 999, total: 1189, amount_paid: 1189 });

    const pdf = await fetch(`${t.baseUrl}/api/invoice/${row!.transaction_id}/stripe`, { headers: { authorization: `Bearer ${who.token}` } });
    expect(pdf.status).toBe(200);
    const text = pdfText(Buffer.from(await pdf.arrayBuffer()));
    expect(text).toMatch(/VPN plan: 1 Month\s+\$9\.99\s+19 ?%\s+\$1\.90\s+\$11\.89/);
    expect(text).toMatch(/Net\s+\$9\.99/);
    expect(text).toMatch(/VAT 19 % \(Germany\)\s+\$1\.90/);
    expect(text).toMatch(/Total \(USD\)\s+\$11\.89/);

    // The receipt says the same as the invoice, and the renewal with the same VAT.
    const receipt = await t.get("/api/account/receipt?plan_id=1", { token: who.token });
    expect(receipt.body.data.payment).toMatchObject({
      country: "DE",
      net_cents: 999,
      tax: { label: "VAT 19 % (Germany)", amount_cents: 190 },
      amount_cents: 1189,
      renewal: { net_cents: 999, tax_cents: 190, amount_cents: 1189 },
    });
    // The receipt email says what the invoice says.
    const mail = (await t.mailbox(who.email)).find((m) => m.subject === "Your VPN receipt");
    expect(mail?.text).toContain("Net $9.99, VAT 19 % (Germany) $1.90, total $11.89.");
    expect(mail?.text).toContain("at $11.89 every month");
  }, 60_000);

  it("records a card issued in another country than the billing country as evidence, without refusing it", async () => {
    const who = await customer(t, "pierre@example.com");
    await putDetails(t, who.token, { country: "FR", name: "Pierre Martin" });
    await payByCard(t, who, 1, GERMAN_CARD);
    const [row] = await invoicesOf(t, who.userId);
    expect(row).toMatchObject({ tax_country: "FR", vat_rate: "20", vat_cents: 200, amount_cents: 1199, card_country: "DE", country_mismatch: 1, buyer_country: "FR" });

    const us = await customer(t, "sam@example.com");
    await payByCard(t, us, 1, GOOD);
    const [plain] = await invoicesOf(t, us.userId);
    expect(plain).toMatchObject({ amount_cents: 999, net_cents: 999, vat_rate: null, vat_cents: 0, tax_country: null, card_country: "US", country_mismatch: 0 });
  }, 60_000);

  it("reverse charges a German business with a valid VAT number: Stripe is told the VAT id and charges no VAT", async () => {
    const who = await customer(t, "gmbh@example.com");
    expect((await putDetails(t, who.token, { country: "DE", name: "Müller GmbH", vat_number: "DE123456789" })).status).toBe(200);
    await payByCard(t, who, 1, GOOD);
    const [row] = await invoicesOf(t, who.userId);
    expect(row).toMatchObject({ amount_cents: 999, net_cents: 999, vat_rate: "0", vat_cents: 0, tax_country: "DE", reverse_charge: 1 });
    const stripeCustomer = (await t.db.selectFrom("users").select("stripe_customer_id").where("id", "=", who.userId).executeTakeFirstOrThrow()).stripe_customer_id!;
    const stripe = t.api.payments.gateway.stripe;
    const ids = await stripe.customers.listTaxIds(stripeCustomer);
    expect(ids.data).toEqual([expect.objectContaining({ type: "eu_vat", value: "DE123456789", country: "DE", verification: expect.objectContaining({ status: "verified" }) })]);
    const retrieved = (await stripe.customers.retrieve(stripeCustomer)) as Stripe.Customer;
    expect(retrieved.address?.country).toBe("DE");
  }, 60_000);

  it("charges the taxed total by crypto, and refuses the untaxed amount", async () => {
    const who = await customer(t, "crypto-de@example.com");
    await putDetails(t, who.token, { country: "DE", name: "Anna Krypto" });
    const quote = await quoteFor(t, who.token, 1, "crypto");
    expect(quote.amount_cents).toBe(1189);
    const body = { productId: "vpn_1_month", planId: 1, currency: "USD", email: who.email };
    const untaxed = await t.post("/api/payments/crypto/invoice", { token: who.token, json: { ...body, amount: "9.99" } });
    expect(untaxed.status).toBe(422);
    const created = await t.post("/api/payments/crypto/invoice", { token: who.token, json: { ...body, amount: quote.amount.toFixed(2) } });
    expect(created.status, created.text).toBe(200);
    // The due-invoice page states the invoice's net and VAT line, as the checkout quoted them.
    const details = await t.get(`/api/payments/crypto/due-invoice/${created.body.data.id}`);
    expect(details.status, details.text).toBe(200);
    expect(details.body.data).toMatchObject({ discounted_price_cents: 1189, net_cents: 999, tax: { label: "VAT 19 % (Germany)", amount_cents: 190 } });
    await markCryptoPaid(t, created.body.data.invoiceUrl as string);
    const [row] = await invoicesOf(t, who.userId);
    expect(row).toMatchObject({ payment_gateway: "bitpay", charged: 1189, net_cents: 999, vat_rate: "19", vat_cents: 190, tax_country: "DE" });
  }, 60_000);

  it("charges the taxed total through PayPal, and bills its renewals at the same rate", async () => {
    const who = await customer(t, "paypal-fr@example.com");
    await putDetails(t, who.token, { country: "FR", name: "Jeanne PayPal" });
    const quote = await quoteFor(t, who.token, 1, "paypal");
    expect(quote).toMatchObject({ amount_cents: 1199, renewal: { amount_cents: 1199, tax_cents: 200 } });
    const started = await t.post("/api/payments/paypal/checkout", {
      token: who.token,
      json: { planId: 1, return_path: "/subscription/payment/1", idempotency_key: newKey() },
    });
    expect(started.status, started.text).toBe(200);
    const back = await approveAtPayPal(t, started.body.data.approve_url);
    const done = await t.post("/api/payments/paypal/complete", {
      token: who.token,
      json: { subscription_id: back.searchParams.get("subscription_id") ?? undefined, token: back.searchParams.get("subscription_id") ? undefined : back.searchParams.get("token") },
    });
    expect(done.status, done.text).toBe(200);
    const [first] = await invoicesOf(t, who.userId);
    expect(first).toMatchObject({ payment_gateway: "paypal", charged: 1199, net_cents: 999, vat_rate: "20", vat_cents: 200, tax_country: "FR" });

    // A month later PayPal collects the renewal: net + the same VAT.
    await t.post("/dev/clock", { form: { days: "32" } });
    const rows = await invoicesOf(t, who.userId);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ payment_gateway: "paypal", charged: 1199, net_cents: 999, vat_cents: 200, vat_rate: "20", tax_country: "FR" });
  }, 90_000);

  it("renews a German card subscription at net + 19 % (Stripe Tax on the renewal invoice)", async () => {
    const who = await customer(t, "renew-de@example.com");
    await putDetails(t, who.token, { country: "DE", name: "Renate Erneuert" });
    await payByCard(t, who, 1, GOOD);
    await t.post("/dev/clock", { form: { days: "32" } });
    const rows = await invoicesOf(t, who.userId);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ charged: 1189, net_cents: 999, vat_rate: "19", vat_cents: 190, tax_country: "DE" });
  }, 90_000);
});
