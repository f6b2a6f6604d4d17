import { describe, expect, it } from "vitest";
import { DEFAULT_TAX_RATES, basisPointsOf, percentOf } from "../../api/platform/tax-rates";
import { taxTreatmentOf, taxedAmount, vatCents } from "../../api/payments/tax";
import { databases, type TestApi, useApi } from "./harness";
import { customer } from "./payment-support";

// Tax (issue 35, docs/decisions/061): the tax table, who is taxed how, and the quote that carries it.
// The payments that charge it are in tax-payments.test.ts.

const putDetails = (t: TestApi, token: string, json: Record<string, unknown>) => t.request("PUT", "/api/account/billing-details", { token, json });
const putCountry = (t: TestApi, token: string, country: unknown) => t.request("PUT", "/api/account/billing-country", { token, json: { country } });
const quote = (t: TestApi, json: Record<string, unknown>, token?: string) => t.post("/api/checkout/quote", { json, ...(token ? { token } : {}) });

describe("tax units", () => {
  it("holds every EU member state's standard rate in basis points, and nothing else", () => {
    expect(Object.keys(DEFAULT_TAX_RATES)).toHaveLength(27);
    expect(DEFAULT_TAX_RATES).toMatchObject({ DE: 1900, FR: 2000, AT: 2000, NL: 2100, ES: 2100, IT: 2200, LU: 1700, HU: 2700, FI: 2550 });
    expect(basisPointsOf("25.5")).toBe(2550);
    expect(basisPointsOf("19")).toBe(1900);
    expect(basisPointsOf("19.123")).toBeNull();
    expect(percentOf(2550)).toBe("25.5");
    expect(percentOf(1905)).toBe("19.05");
  });

  it("rounds VAT half-up on the cent", () => {
    expect(vatCents(999, 1900)).toBe(190); // 189.81
    expect(vatCents(250, 1900)).toBe(48); // 47.5 → 48
    expect(vatCents(10775, 2100)).toBe(2263); // 2262.75
  });

  it("taxes EU consumers at their country's rate, EU businesses by reverse charge, others not at all", () => {
    const consumer = taxTreatmentOf(DEFAULT_TAX_RATES, { country: "DE", vatNumber: null, vatNumberStatus: null });
    expect(taxedAmount(consumer, 1000)).toMatchObject({ country: "DE", taxCents: 190, totalCents: 1190 });
    for (const status of ["valid", "unchecked"] as const) {
      const business = taxTreatmentOf(DEFAULT_TAX_RATES, { country: "DE", vatNumber: "DE123456789", vatNumberStatus: status });
      expect(taxedAmount(business, 1000)).toMatchObject({ taxCents: 0, totalCents: 1000, tax: { reverse_charge: true, label: "VAT reverse charged" } });
    }
    const invalid = taxTreatmentOf(DEFAULT_TAX_RATES, { country: "DE", vatNumber: "DE000000000", vatNumberStatus: "invalid" });
    expect(taxedAmount(invalid, 1000).taxCents).toBe(190);
    expect(taxedAmount(taxTreatmentOf(DEFAULT_TAX_RATES, { country: "US", vatNumber: null, vatNumberStatus: null }), 1000)).toMatchObject({
      country: "US",
      tax: null,
      totalCents: 1000,
    });
    const nothingKnown = { country: null, vatNumber: null, vatNumberStatus: null };
    expect(taxedAmount(taxTreatmentOf(DEFAULT_TAX_RATES, nothingKnown), 1000)).toMatchObject({ country: null, tax: null, totalCents: 1000 });
    expect(taxedAmount(taxTreatmentOf(DEFAULT_TAX_RATES, nothingKnown, "FR"), 1000)).toMatchObject({ country: "FR", taxCents: 200 });
  });
});

describe.each(databases({ postgres: "the quote reads the billing details; the country-only save upserts on both dialects" }))("tax in the quote ($name)", (kind) => {
  const t = useApi(kind);

  it("quotes a visitor without a country as before: no VAT, net = amount", async () => {
    const res = await quote(t, { planId: 1, method: "card" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ country: null, net_cents: 999, net: 9.99, tax: null, amount_cents: 999, amount: 9.99 });
    expect(res.body.data.renewal).toMatchObject({ net_cents: 999, tax_cents: 0, amount_cents: 999, amount: 9.99 });
  });

  it("quotes Germany at 19 %, France at 20 %, the US at 0, for the country asked", async () => {
    const de = await quote(t, { planId: 1, method: "card", country: "de" });
    expect(de.status, de.text).toBe(200);
    expect(de.body.data).toMatchObject({
      country: "DE",
      net_cents: 999,
      tax: {
        country: "DE",
        country_name: "Germany",
        rate_basis_points: 1900,
        rate_percent: "19",
        label: "VAT 19 % (Germany)",
        amount_cents: 190,
        amount: 1.9,
        reverse_charge: false,
      },
      amount_cents: 1189,
      amount: 11.89,
    });
    expect(de.body.data.renewal).toMatchObject({ net_cents: 999, tax_cents: 190, amount_cents: 1189, amount: 11.89 });

    const fr = await quote(t, { planId: 5, method: "paypal", country: "FR" });
    expect(fr.status, fr.text).toBe(200);
    const net = fr.body.data.net_cents as number;
    expect(fr.body.data.tax).toMatchObject({ label: "VAT 20 % (France)", rate_basis_points: 2000, amount_cents: Math.floor((net * 2000 + 5000) / 10000) });
    expect(fr.body.data.amount_cents).toBe(net + fr.body.data.tax.amount_cents);

    const us = await quote(t, { planId: 1, method: "crypto", country: "US" });
    expect(us.body.data).toMatchObject({ country: "US", tax: null, amount_cents: 999 });
  });

  it("taxes the net after a coupon", async () => {
    const res = await quote(t, { planId: 1, method: "card", country: "DE", coupon: "WELCOME10" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ discount_amount_cents: 100, net_cents: 899, tax: { amount_cents: 171 }, amount_cents: 1070 });
  });

  it("refuses a country that is not an ISO code with a clear message (422)", async () => {
    for (const country of ["XX", "Germany", 49]) {
      const res = await quote(t, { planId: 1, method: "card", country });
      expect(res.status).toBe(422);
      expect(res.body.errors.fields.country).toEqual(["The country must be a two-letter ISO 3166-1 code, e.g. DE or US."]);
    }
    const who = await customer(t, "bad-country@example.com");
    const checkout = await t.get("/api/account/checkout?plan_id=1&country=ZZ", { token: who.token });
    expect(checkout.status).toBe(422);
    expect(checkout.body.errors.fields.country).toEqual(["The country must be a two-letter ISO 3166-1 code, e.g. DE or US."]);
  });

  it("taxes a signed-in account by its saved country, which `country` overrides for one answer", async () => {
    const who = await customer(t, "saved-country@example.com");
    expect((await putDetails(t, who.token, { country: "FR", name: "Jeanne Dupont" })).status).toBe(200);
    const saved = await quote(t, { planId: 1, method: "card" }, who.token);
    expect(saved.body.data).toMatchObject({ country: "FR", tax: { label: "VAT 20 % (France)", amount_cents: 200 }, amount_cents: 1199 });

    const checkout = await t.get("/api/account/checkout?plan_id=1", { token: who.token });
    expect(checkout.status, checkout.text).toBe(200);
    for (const q of checkout.body.data.quotes) expect(q).toMatchObject({ country: "FR", net_cents: 999, amount_cents: 1199 });

    const overridden = await t.get("/api/account/checkout?plan_id=1&country=US", { token: who.token });
    for (const q of overridden.body.data.quotes) expect(q).toMatchObject({ country: "US", tax: null, amount_cents: 999 });
    // The override answered one request only.
    expect((await quote(t, { planId: 1, method: "card" }, who.token)).body.data.country).toBe("FR");
    // `default_country` (the browser's, from the portal) yields to the saved country.
    const defaulted = await t.get("/api/account/checkout?plan_id=1&default_country=DE", { token: who.token });
    for (const q of defaulted.body.data.quotes) expect(q).toMatchObject({ country: "FR", amount_cents: 1199 });
  });

  it("taxes an account with no saved country for `default_country`, and `country` before it", async () => {
    const who = await customer(t, "default-country@example.com");
    const german = await t.get("/api/account/checkout?plan_id=1&default_country=DE", { token: who.token });
    expect(german.status, german.text).toBe(200);
    for (const q of german.body.data.quotes) expect(q).toMatchObject({ country: "DE", tax: { label: "VAT 19 % (Germany)", amount_cents: 190 }, amount_cents: 1189 });
    const chosen = await t.get("/api/account/checkout?plan_id=1&default_country=DE&country=FR", { token: who.token });
    for (const q of chosen.body.data.quotes) expect(q).toMatchObject({ country: "FR", amount_cents: 1199 });
    const refused = await t.get("/api/account/checkout?plan_id=1&default_country=ZZ", { token: who.token });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.fields.default_country).toEqual(["The country must be a two-letter ISO 3166-1 code, e.g. DE or US."]);
  });

  it("reverse charges an EU business with a valid VAT number, and refuses an unregistered one", async () => {
    const who = await customer(t, "business@example.com");
    const invalid = await putDetails(t, who.token, { country: "DE", name: "Müller GmbH", vat_number: "DE000000000" });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.fields.vat_number).toEqual(["This VAT number is not valid."]);

    expect((await putDetails(t, who.token, { country: "DE", name: "Müller GmbH", vat_number: "DE123456789" })).status).toBe(200);
    const res = await quote(t, { planId: 1, method: "card" }, who.token);
    expect(res.body.data).toMatchObject({
      country: "DE",
      net_cents: 999,
      tax: { country: "DE", rate_basis_points: 0, rate_percent: "0", label: "VAT reverse charged", amount_cents: 0, amount: 0, reverse_charge: true },
      amount_cents: 999,
    });
    expect(res.body.data.renewal).toMatchObject({ tax_cents: 0, amount_cents: 999 });
    // A German VAT number does not make a reverse charge in Austria: the consumer's rate there.
    const elsewhere = await quote(t, { planId: 1, method: "card", country: "AT" }, who.token);
    expect(elsewhere.body.data.tax).toMatchObject({ label: "VAT 20 % (Austria)", reverse_charge: false, amount_cents: 200 });
  });

  it("saves only the country from the checkout, keeping the rest; a changed country drops the VAT number", async () => {
    const fresh = await customer(t, "country-only@example.com");
    const bad = await putCountry(t, fresh.token, "XX");
    expect(bad.status).toBe(422);
    expect(bad.body.errors.fields.country).toEqual(["Please choose your country."]);

    const made = await putCountry(t, fresh.token, "nl");
    expect(made.status, made.text).toBe(200);
    expect(made.body.message).toBe("Country saved.");
    expect(made.body.data).toMatchObject({ country: "NL", country_name: "Netherlands", name: "", vat_number: null });
    expect((await quote(t, { planId: 1, method: "card" }, fresh.token)).body.data.tax).toMatchObject({ label: "VAT 21 % (Netherlands)" });

    const business = await customer(t, "country-change@example.com");
    await putDetails(t, business.token, { country: "DE", name: "Müller GmbH", address: "Straße 5", vat_number: "DE123456789" });
    const same = await putCountry(t, business.token, "DE");
    expect(same.body.data).toMatchObject({ country: "DE", name: "Müller GmbH", vat_number: "DE123456789", vat_number_status: "valid" });
    const moved = await putCountry(t, business.token, "FR");
    expect(moved.body.data).toMatchObject({ country: "FR", name: "Müller GmbH", address: "Straße 5", vat_number: null, vat_number_status: null });
  });
});
