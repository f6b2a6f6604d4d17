import { describe, expect, it } from "vitest";
import { normaliseVatNumber } from "../../api/billing/countries";
import { viesVatChecker } from "../../api/billing/billing-details";
import { renderBillingPdf } from "../../api/billing/pdf";
import { formatDocumentNumber } from "../../api/payments/document-numbers";
import { pdfText } from "../support/pdf-text";
import { databases, type TestApi, useApi } from "./harness";
import { GOOD, customer, newKey, paymentMethod } from "./payment-support";

// Invoices a business can file (issue 35, first part; docs/decisions/060): gap-free INV numbers under
// a parallel burst of payments, the billing details (VAT numbers: format, the sandbox's stand-in of
// VIES), the invoice's copy of them, its PDF read back by pdftotext, and a refund's credit note.

async function buyByCard(t: TestApi, who: { token: string; email: string }, planId = 1) {
  const res = await t.post("/api/payments/card", {
    token: who.token,
    json: { type: "new-card", paymentMethodId: await paymentMethod(t, GOOD), planId, email: who.email, idempotency_key: newKey() },
  });
  expect(res.status, res.text).toBe(200);
}

type Row = { id: number; payment_gateway: string; invoice_number: string | null; credit_note_number: string | null; status: string };
async function history(t: TestApi, token: string): Promise<Row[]> {
  const res = await t.post("/api/billing/transactions", { token, json: { per_page: 50 } });
  expect(res.status, res.text).toBe(200);
  return res.body.data.transactions;
}

const putDetails = (t: TestApi, token: string, json: Record<string, unknown>) => t.request("PUT", "/api/account/billing-details", { token, json });

async function download(t: TestApi, token: string, path: string) {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/pdf");
  return { headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("invoice units", () => {
  it("numbers documents per series and year with six digits", () => {
    expect(formatDocumentNumber("INV", 2026, 123)).toBe("INV-2026-000123");
    expect(formatDocumentNumber("CN", 2027, 7)).toBe("CN-2027-000007");
  });

  it("prints names and addresses in Latin, Greek and Cyrillic scripts as typed, the same every time", async () => {
    const content = {
      title: "Invoice",
      infoTitle: "Invoice INV-2026-000001",
      date: new Date("2026-03-05T10:00:00Z"),
      facts: [["Invoice number", "INV-2026-000001"]] as [string, string][],
      seller: { name: "VPN Test GmbH", lines: ["Teststraße 1"] },
      buyer: { name: "Ελένη Παπαδοπούλου", lines: ["Дмитрий Иванов", "ул. Ленина 5, Москва", "Łódź, Čeština, Ærø, İstanbul"] },
      items: [{ description: "VPN plan: 1 Year", net: "€1.00", vatRate: "–", vat: "$0.00", total: "$1.00" }],
      totals: [["Total (USD)", "$1.00"]] as [string, string][],
      notes: [],
      lang: "en" as const,
      labels: { seller: "Seller", billTo: "Bill to", description: "Description", net: "Net", vatRate: "VAT rate", vat: "VAT", total: "Total" },
    };
    const pdf = await renderBillingPdf(content);
    const text = pdfText(pdf);
    for (const words of ["Ελένη Παπαδοπούλου", "Дмитрий Иванов", "ул. Ленина 5, Москва", "Łódź, Čeština, Ærø, İstanbul", "Teststraße 1", "€1.00"]) {
      expect(text).toContain(words);
    }
    expect(text).not.toContain("?");
    expect((await renderBillingPdf(content)).equals(pdf)).toBe(true);
  });

  it("normalises EU VAT numbers to their country's prefix and format", () => {
    expect(normaliseVatNumber("DE", "de 123 456 789")).toBe("DE123456789");
    expect(normaliseVatNumber("DE", "123456789")).toBe("DE123456789");
    expect(normaliseVatNumber("DE", "DE12345678")).toBeNull();
    expect(normaliseVatNumber("AT", "ATU12345678")).toBe("ATU12345678");
    expect(normaliseVatNumber("GR", "EL123456789")).toBe("EL123456789");
    expect(normaliseVatNumber("NL", "NL123456789B01")).toBe("NL123456789B01");
    expect(normaliseVatNumber("FR", "FR 12 345678901")).toBe("FR12345678901");
    expect(normaliseVatNumber("US", "123456789")).toBeNull();
  });

  it("asks VIES's REST API with a timeout and keeps a number unchecked when VIES cannot answer", async () => {
    const asked: string[] = [];
    const warnings: string[] = [];
    const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const answer = (body: unknown, status = 200) =>
      (async (url: string | URL | Request, init?: RequestInit) => {
        asked.push(String(url));
        expect(init?.signal).toBeInstanceOf(AbortSignal);
        return new Response(JSON.stringify(body), { status });
      }) as typeof fetch;
    expect(await viesVatChecker(logger, answer({ isValid: true })).check("DE", "DE123456789")).toBe(true);
    expect(asked.at(-1)).toBe("https://ec.europa.eu/taxation_customs/vies/rest-api/ms/DE/vat/123456789");
    expect(await viesVatChecker(logger, answer({ isValid: false, userError: "INVALID" })).check("GR", "EL123456789")).toBe(false);
    expect(asked.at(-1)).toBe("https://ec.europa.eu/taxation_customs/vies/rest-api/ms/EL/vat/123456789");
    expect(await viesVatChecker(logger, answer({ isValid: false, userError: "MS_UNAVAILABLE" })).check("DE", "DE123456789")).toBeNull();
    expect(await viesVatChecker(logger, answer({}, 503)).check("DE", "DE123456789")).toBeNull();
    const failing = (async () => {
      throw new Error("timeout");
    }) as typeof fetch;
    expect(await viesVatChecker(logger, failing).check("DE", "DE123456789")).toBeNull();
    expect(warnings).toHaveLength(3);
  });
});

describe.each(databases({ postgres: "a burst of payments taking invoice numbers at once: the counter row's lock, the upsert on both dialects" }))("invoices ($name)", (kind) => {
  const t = useApi(kind);

  it("gives a parallel burst of payments consecutive invoice numbers, without gaps or duplicates", async () => {
    const buyers = await Promise.all(Array.from({ length: 12 }, (_, i) => customer(t, `burst-${i}@example.com`)));
    await Promise.all(buyers.map((who) => buyByCard(t, who)));
    // The first test of this file's fresh database: these are its only invoices.
    const rows = await t.db.selectFrom("invoices").select(["number", "net_cents", "vat_rate", "vat_cents", "amount_cents"]).execute();
    expect(rows).toHaveLength(12);
    const year = t.clock.now().getUTCFullYear();
    const numbers = rows.map((row) => row.number).sort();
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => formatDocumentNumber("INV", year, i + 1)));
    // Buyers without billing details (no country known) pay no VAT: net = total, no VAT line.
    for (const row of rows) expect(row).toMatchObject({ net_cents: row.amount_cents, vat_rate: null, vat_cents: 0 });
    const counter = await t.db.selectFrom("document_counters").selectAll().where("series", "=", "INV").execute();
    expect(counter).toEqual([{ series: "INV", year, value: 12 }]);
  }, 90_000);

  it("saves billing details; checks a VAT number's format and, in sandbox mode, its registration", async () => {
    const who = await customer(t, "details@example.com");
    const empty = await t.get("/api/account/billing-details", { token: who.token });
    expect(empty.status).toBe(200);
    expect(empty.body.data.billing_details).toBeNull();
    expect(empty.body.data.countries).toContainEqual({ code: "DE", name: "Germany", eu: true });
    expect(empty.body.data.countries).toContainEqual({ code: "US", name: "United States", eu: false });

    const missing = await putDetails(t, who.token, { country: "", name: " " });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.fields.country).toEqual(["Please choose your country."]);
    expect(missing.body.errors.fields.name).toEqual(["Please enter the name for your invoices."]);

    const unregistered = await putDetails(t, who.token, { country: "DE", name: "Müller GmbH", vat_number: "DE000000000" });
    expect(unregistered.status).toBe(422);
    expect(unregistered.body.errors.fields.vat_number).toEqual(["This VAT number is not valid."]);
    const badFormat = await putDetails(t, who.token, { country: "DE", name: "Müller GmbH", vat_number: "DE12345" });
    expect(badFormat.status).toBe(422);
    expect(badFormat.body.errors.fields.vat_number[0]).toMatch(/^This is not a VAT number of Germany: it starts with DE/);
    // Nothing was saved by a refused request.
    expect((await t.get("/api/account/billing-details", { token: who.token })).body.data.billing_details).toBeNull();

    const saved = await putDetails(t, who.token, { country: "de", name: "Müller GmbH", address: "Straße 5\r\n50667 Köln", vat_number: "de 123 456 789" });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.message).toBe("Billing details saved.");
    expect(saved.body.data).toMatchObject({
      country: "DE",
      country_name: "Germany",
      name: "Müller GmbH",
      address: "Straße 5\n50667 Köln",
      vat_number: "DE123456789",
      vat_number_status: "valid",
    });

    // Outside the EU a VAT number does not apply: it is ignored, not stored.
    const us = await putDetails(t, who.token, { country: "US", name: "Pat Payer", vat_number: "DE123456789" });
    expect(us.status).toBe(200);
    expect(us.body.data).toMatchObject({ country: "US", address: null, vat_number: null, vat_number_status: null });
    expect((await putDetails(t, who.token, { country: "XX", name: "Pat" })).body.errors.fields.country).toEqual(["Please choose your country."]);
    expect((await t.request("PUT", "/api/account/billing-details", { json: { country: "DE", name: "x" } })).status).toBe(401);
  });

  it("prints the billing details as they were on the invoice (read back by pdftotext), and a refund's credit note", async () => {
    const who = await customer(t, "jose@example.com");
    const saved = await putDetails(t, who.token, { country: "DE", name: "José Müller", address: "Straße 5\n50667 Köln", vat_number: "DE123456789" });
    expect(saved.status, saved.text).toBe(200);
    await buyByCard(t, who, 6);
    // Changed afterwards: the invoice already made keeps what it was made with.
    expect((await putDetails(t, who.token, { country: "FR", name: "Ελένη Παπαδοπούλου" })).status).toBe(200);

    const [paid] = await history(t, who.token);
    expect(paid!.invoice_number).toMatch(/^INV-\d{4}-\d{6}$/);
    expect(paid!.credit_note_number).toBeNull();
    const invoice = await download(t, who.token, `/api/invoice/${paid!.id}/stripe`);
    expect(invoice.headers.get("x-invoice-number")).toBe(paid!.invoice_number);
    const text = pdfText(invoice.bytes);
    for (const words of ["Invoice", "José Müller", "Straße 5", "50667 Köln", "Germany", "VAT number: DE123456789", "jose@example.com"]) {
      expect(text).toContain(words);
    }
    expect(text).toContain(paid!.invoice_number);
    // The seller, from SELLER_* (the sandbox's stand-in here).
    expect(text).toContain(t.config.seller.name);
    expect(text).toContain(`VAT number: ${t.config.seller.vatId}`);
    // The line and the amounts: a German business with a valid VAT number is reverse charged (0 %, no VAT), with the note.
    expect(text).toMatch(/VPN plan: 2 Years\s+\$107\.76\s+0 ?%\s+\$0\.00\s+\$107\.76/);
    expect(text).toMatch(/Net\s+\$107\.76/);
    expect(text).toMatch(/VAT reverse charged\s+\$0\.00/);
    expect(text).toMatch(/Total \(USD\)\s+\$107\.76/);
    expect(text.replace(/\s+/g, " ")).toContain("VAT reverse charged: the recipient accounts for the VAT (Article 196, Council Directive 2006/112/EC).");
    expect(text).toMatch(/Payment method\s+Card/);
    expect(text).toMatch(/Date of supply\s+\d{2} \w+, \d{4}/);
    expect(text).not.toContain("Ελένη");
    // The same invoice renders the same text every time.
    expect(pdfText((await download(t, who.token, `/api/invoice/${paid!.id}/stripe`)).bytes)).toBe(text);

    // No credit note before a refund.
    expect((await t.get(`/api/credit-note/${paid!.id}/stripe`, { token: who.token })).status).toBe(404);
    const refunded = await t.post(`/api/billing/transactions/${paid!.id}/refund`, { token: who.token, json: {} });
    expect(refunded.status, refunded.text).toBe(200);
    const [after] = await history(t, who.token);
    const year = t.clock.now().getUTCFullYear();
    expect(after!.credit_note_number).toBe(formatDocumentNumber("CN", year, 1));
    const note = await download(t, who.token, `/api/credit-note/${paid!.id}/stripe`);
    expect(note.headers.get("x-credit-note-number")).toBe(after!.credit_note_number);
    const noteText = pdfText(note.bytes);
    expect(noteText).toContain("Credit note");
    expect(noteText).toContain(after!.credit_note_number);
    expect(noteText).toMatch(new RegExp(`For invoice\\s+${paid!.invoice_number}`));
    expect(noteText).toContain("José Müller");
    expect(noteText).toMatch(/Total credited \(USD\)\s+-\$107\.76/);
    // A second refund post makes no second credit note; anybody else gets 404.
    expect((await t.post(`/api/billing/transactions/${paid!.id}/refund`, { token: who.token, json: {} })).status).toBe(200);
    expect(await t.db.selectFrom("credit_notes").select("number").execute()).toEqual([{ number: after!.credit_note_number }]);
    const other = await customer(t, "someone-else@example.com");
    const theirs = await t.get(`/api/credit-note/${paid!.id}/stripe`, { token: other.token });
    expect(theirs.status).toBe(404);
    expect(theirs.body.message).toBe("Credit note not found.");
  }, 60_000);

  it("keeps the numbers of invoices made before the gap-free series", async () => {
    const who = await customer(t, "legacy@example.com");
    await buyByCard(t, who);
    const [row] = await history(t, who.token);
    // As migration 0025 found them: an older number, none of the copied columns.
    await t.db.updateTable("invoices").set({ number: "VPN-000042", net_cents: null, vat_cents: null, plan_title: null, buyer_email: null, period_start: null, period_end: null, payment_method: null }).where("transaction_id", "=", row!.id).execute();
    const text = pdfText((await download(t, who.token, `/api/invoice/${row!.id}/stripe`)).bytes);
    expect(text).toContain("VPN-000042");
    expect(text).toContain("legacy@example.com");
    expect(text).toMatch(/Total \(USD\)\s+\$9\.99/);
    // The next invoice continues the series where it was.
    const year = t.clock.now().getUTCFullYear();
    const last = await t.db.selectFrom("document_counters").select("value").where("series", "=", "INV").where("year", "=", year).executeTakeFirstOrThrow();
    const next = await customer(t, "legacy-next@example.com");
    await buyByCard(t, next);
    expect((await history(t, next.token))[0]!.invoice_number).toBe(formatDocumentNumber("INV", year, Number(last.value) + 1));
  }, 60_000);
});
