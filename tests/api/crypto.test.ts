import { describe, expect, it } from "vitest";
import { createDueRenewalInvoices } from "../../api/payments/bitpay/payments";
import { twoDecimals } from "../../api/payments/money";
import { databases, startApi, type TestApi, useApi } from "./harness";

const DAY = 86_400_000;
const SANDBOX_SECRET = "bitpay-sandbox-notification-secret";

describe("crypto amounts", () => {
  it("are the plan's cents with two decimals", () => {
    expect(twoDecimals(10776)).toBe("107.76");
    expect(twoDecimals(999)).toBe("9.99");
    expect(twoDecimals(19900)).toBe("199.00");
    expect(twoDecimals(5)).toBe("0.05");
  });
});

/** Presses a button of the crypto sandbox's invoice page the way a browser would (its form, its hidden fields). */
async function press(t: TestApi, invoiceUrl: string, label: string): Promise<Response> {
  const path = new URL(invoiceUrl).pathname;
  const page = await t.get(path);
  const forms = [...page.text.matchAll(/<form[^>]*>([\s\S]*?)<\/form>/g)];
  const form = forms.find((f) => new RegExp(`>\\s*${label}\\s*<`).test(f[1]!));
  if (!form) throw new Error(`no '${label}' button on ${path}`);
  const fields = new URLSearchParams();
  for (const input of form[1]!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? "";
    if (name) fields.set(name, value);
  }
  const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]*)"[^>]*>\s*[^<]*<\/button>/.exec(form[1]!);
  if (button && new RegExp(`>\\s*${label}\\s*<`).test(button[0])) fields.set(button[1]!, button[2]!);
  return fetch(`${t.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: fields,
  });
}

async function buyer(t: TestApi, email: string) {
  const userId = await t.createUser({ email, password: "crypto-password" });
  const token = await t.login(email, "crypto-password");
  return { userId, token, email };
}

async function newInvoice(t: TestApi, who: { token: string; email: string }, planId = 6, amount = "107.76") {
  const res = await t.post("/api/payments/crypto/invoice", {
    token: who.token,
    json: { productId: "vpn_2_years", planId, amount, currency: "USD", email: who.email },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { invoiceUrl: string; id: string };
}

describe.each(databases({ postgres: "a renewal invoice once across two workers: claims" }))("crypto invoices through the crypto sandbox ($name)", (kind) => {
  const t = useApi(kind);

  it("opens an invoice for the plan's price only", async () => {
    const who = await buyer(t, "price@example.com");
    const wrong = await t.post("/api/payments/crypto/invoice", {
      token: who.token,
      json: { planId: 6, amount: "1.00", currency: "USD", email: who.email },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message).toBe("The amount does not match the plan's price. Please reload the page and try again.");
    const invoice = await newInvoice(t, who);
    expect(invoice.invoiceUrl).toMatch(/\/dev\/bitpay\/invoice\//);
    const details = await t.get(`/api/payments/crypto/invoices/${invoice.id}`, { token: who.token });
    expect(details.body.data.invoice_details).toMatchObject({ status: "new", paid: false, discounted_price: 107.76, title: "2 Years" });
    const other = await buyer(t, "not-mine@example.com");
    expect((await t.get(`/api/payments/crypto/invoices/${invoice.id}`, { token: other.token })).status).toBe(404);
  });

  it("'Mark as paid' activates a crypto plan that never renews by itself", async () => {
    const who = await buyer(t, "paid@example.com");
    const invoice = await newInvoice(t, who);
    const back = await press(t, invoice.invoiceUrl, "Mark as paid");
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toContain(`/subscription/payment/6?crypto=${invoice.id}`);
    const sub = (await t.post("/api/subscription/active", { token: who.token })).body.data.subscription;
    expect(sub).toMatchObject({ plan_id: 6, subscription_by: "bitpay", subs_status: "subscription_pending_creation" });
    const rows = await t.db.selectFrom("transactions").selectAll().where("user_id", "=", who.userId).execute();
    expect(rows).toMatchObject([{ status: "paid", payment_gateway: "bitpay", amount_cents: 10776 }]);
    const details = await t.get(`/api/payments/crypto/invoices/${invoice.id}`, { token: who.token });
    expect(details.body.data.invoice_details).toMatchObject({ status: "confirmed", paid: true });
  });

  it("ignores a forged notification, and a replayed one activates once", async () => {
    const who = await buyer(t, "replay@example.com");
    const invoice = await newInvoice(t, who);
    const row = await t.db.selectFrom("crypto_invoices").selectAll().where("uuid", "=", invoice.id).executeTakeFirstOrThrow();
    const body = { id: row.bitpay_invoice_id, status: "confirmed" };
    const forged = await t.post("/api/payments/bitpay/notify?secret=guessed", { json: body });
    expect(forged.status).toBe(403);
    // The notification is only a trigger: BitPay still says 'new', so nothing happens.
    expect((await t.post(`/api/payments/bitpay/notify?secret=${SANDBOX_SECRET}`, { json: body })).status).toBe(200);
    expect((await t.post("/api/subscription/active", { token: who.token })).body.data.subscription).toBeNull();

    await press(t, invoice.invoiceUrl, "Mark as paid");
    await Promise.all(
      Array.from({ length: 10 }, () => t.post(`/api/payments/bitpay/notify?secret=${SANDBOX_SECRET}`, { json: body })),
    );
    expect(await t.db.selectFrom("subscriptions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(1);
    expect(await t.db.selectFrom("transactions").select("id").where("user_id", "=", who.userId).execute()).toHaveLength(1);
  });

  it("an expired invoice activates nothing", async () => {
    const who = await buyer(t, "expired@example.com");
    const invoice = await newInvoice(t, who, 1, "9.99");
    const back = await press(t, invoice.invoiceUrl, "Let it expire");
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toContain(`/subscription/payment/1?crypto=${invoice.id}`);
    expect((await t.post("/api/subscription/active", { token: who.token })).body.data.subscription).toBeNull();
    const details = await t.get(`/api/payments/crypto/invoices/${invoice.id}`, { token: who.token });
    expect(details.body.data.invoice_details).toMatchObject({ status: "expired", paid: false });
  });

  it("records a late payment (and honours it) and a short one (visible, not activated)", async () => {
    const late = await buyer(t, "late@example.com");
    const lateInvoice = await newInvoice(t, late, 1, "9.99");
    await press(t, lateInvoice.invoiceUrl, "Pay late");
    const lateDetails = (await t.get(`/api/payments/crypto/invoices/${lateInvoice.id}`, { token: late.token })).body.data.invoice_details;
    expect(lateDetails).toMatchObject({ paid: true, exception_status: "paidLate" });
    expect((await t.post("/api/subscription/active", { token: late.token })).body.data.subscription).not.toBeNull();

    const short = await buyer(t, "short@example.com");
    const shortInvoice = await newInvoice(t, short, 1, "9.99");
    await press(t, shortInvoice.invoiceUrl, "Pay short");
    expect((await t.post("/api/subscription/active", { token: short.token })).body.data.subscription).toBeNull();
    const rows = await t.db.selectFrom("transactions").select(["status", "failure_message"]).where("user_id", "=", short.userId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe("Payment failed");
    expect(rows[0]!.failure_message).toMatch(/^Underpaid: \$\d+\.\d\d of \$9\.99 arrived/);
  });

  it("a short payment says what arrived and what is missing, and offers the rest while the invoice is open, or a refund (issue 21)", async () => {
    const who = await buyer(t, "short-history@example.com");
    const invoice = await newInvoice(t, who, 1, "9.99");
    await press(t, invoice.invoiceUrl, "Pay short");
    const details = (await t.get(`/api/payments/crypto/invoices/${invoice.id}`, { token: who.token })).body.data.invoice_details;
    expect(details).toMatchObject({ exception_status: "paidPartial", amount_paid: 5, discounted_price: 9.99, paid: false });
    const message = (await t.db.selectFrom("transactions").select("failure_message").where("user_id", "=", who.userId).executeTakeFirstOrThrow()).failure_message;
    expect(message).toBe(
      "Underpaid: $5.00 of $9.99 arrived; $4.99 is missing. Pay the rest on the BitPay invoice while it is open, or ask for your money back on the help page.",
    );

    const history = async () => (await t.post("/api/billing/transactions", { token: who.token, json: {} })).body.data.transactions[0];
    // The sandbox's 'Pay short' expires the invoice at once: nothing more can be paid on it.
    expect(await history()).toMatchObject({
      status: "Payment failed",
      amount: 5,
      underpayment: { invoice_id: invoice.id, paid: 5, due: 9.99, missing: 4.99, pay_url: null },
    });
    // Live BitPay keeps an underpaid invoice 'new' (taking the rest) until it expires: then its page is offered.
    await t.db.updateTable("crypto_invoices").set({ status: "new" }).where("uuid", "=", invoice.id).execute();
    expect((await history()).underpayment.pay_url).toBe(invoice.invoiceUrl);
    // Paid in full in the end: the plan runs, and nothing is offered any more.
    await t.db.updateTable("crypto_invoices").set({ activated_at: new Date().toISOString() }).where("uuid", "=", invoice.id).execute();
    expect((await history()).underpayment).toBeNull();
    // Another account's short payment is nobody else's.
    const other = await buyer(t, "short-other@example.com");
    expect((await t.post("/api/billing/transactions", { token: other.token, json: {} })).body.data.transactions).toEqual([]);
  });

  it("emails a renewal invoice 3 days before a crypto plan ends, once across two workers; paying it renews the plan", async () => {
    const who = await buyer(t, "renewal@example.com");
    const invoice = await newInvoice(t, who, 1, "9.99");
    await press(t, invoice.invoiceUrl, "Mark as paid");
    const before = (await t.post("/api/subscription/active", { token: who.token })).body.data.subscription;
    try {
      t.clock.advanceDays(26);
      // Not due yet: more than 3 days left.
      expect(await createDueRenewalInvoices(t.api.crypto!)).toBe(0);
      t.clock.advanceDays(2);
      // A second instance on the same database runs the job at the same time.
      const second = await startApi(kind, { databaseUrl: t.config.databaseUrl });
      try {
        second.clock.advanceDays(28);
        await Promise.all([createDueRenewalInvoices(t.api.crypto!), createDueRenewalInvoices(second.api.crypto!)]);
      } finally {
        await second.close();
      }
      const renewals = await t.db.selectFrom("crypto_invoices").selectAll().where("user_id", "=", who.userId).where("kind", "=", "renewal").execute();
      expect(renewals).toHaveLength(1);
      // Every due plan got one renewal invoice, whichever worker made it.
      const all = await t.db.selectFrom("crypto_invoices").select("subscription_id").where("kind", "=", "renewal").execute();
      expect(new Set(all.map((r) => r.subscription_id)).size).toBe(all.length);
      expect((await t.mailbox(who.email)).filter((m) => /renewal invoice/i.test(m.subject))).toHaveLength(1);
      const mail = (await t.mailbox(who.email)).find((m) => /renewal invoice/i.test(m.subject))!;
      expect(mail.text).toContain(`/subscription/bitpay-pay-due-invoice/${renewals[0]!.uuid}`);

      const due = await t.get(`/api/payments/crypto/due-invoice/${renewals[0]!.uuid}`);
      expect(due.body.data).toMatchObject({ kind: "renewal", title: "1 Month", discounted_price: 9.99, paid: false });
      const pay = await t.post("/api/payments/crypto/due-invoice/pay", { json: { current_invoice_id: renewals[0]!.uuid } });
      expect(pay.status, pay.text).toBe(200);
      await press(t, pay.body.data.invoiceUrl, "Mark as paid");
      const after = (await t.post("/api/subscription/active", { token: who.token })).body.data.subscription;
      expect(after.id).toBe(before.id);
      expect(Date.parse(after.sub_exp_date) - Date.parse(before.sub_exp_date)).toBeGreaterThan(27 * DAY);
      const again = await t.post("/api/payments/crypto/due-invoice/pay", { json: { current_invoice_id: renewals[0]!.uuid } });
      expect(again.status).toBe(409);
      expect(again.body.message).toBe("This invoice is already paid.");
    } finally {
      t.clock.reset();
    }
  });

  it("answers 'No invoice data found' for an unknown due invoice", async () => {
    const res = await t.get("/api/payments/crypto/due-invoice/00000000-0000-4000-8000-000000000000");
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("No invoice data found");
  });
});
