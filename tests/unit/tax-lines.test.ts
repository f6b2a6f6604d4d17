import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { type Tax, taxIncluded, taxOf } from "~/features/tax/tax";
import { TaxLines } from "~/features/tax/tax-lines";

// The portal's words for the API's tax (issue 35): the API's label and amounts as they are, nothing
// when there is no tax (a US buyer's page as before), and no arithmetic of its own.

const germany: Tax = {
  country: "DE",
  country_name: "Germany",
  rate_basis_points: 1900,
  rate_percent: "19",
  label: "VAT 19 % (Germany)",
  amount_cents: 1366,
  amount: 13.66,
  reverse_charge: false,
};
const reverse: Tax = { ...germany, rate_basis_points: 0, rate_percent: "0", label: "VAT reverse charged", amount_cents: 0, amount: 0, reverse_charge: true };

describe("the tax of an amount", () => {
  it("is the API's net and line, or nothing", () => {
    expect(taxOf({ net_cents: 7188, tax: germany, amount_cents: 8554 })).toEqual({ net_cents: 7188, tax: germany });
    expect(taxOf({ net_cents: 7188, tax: null, amount_cents: 7188 })).toBeNull();
    expect(taxOf(null)).toBeNull();
  });

  it("says what an amount includes, in the API's words", () => {
    expect(taxIncluded(germany)).toBe("including VAT 19 % (Germany): $13.66");
    expect(taxIncluded(reverse)).toBe("VAT reverse charged");
    expect(taxIncluded(null)).toBeNull();
  });

  it("adds 'Net price' and the tax line to a summary, and nothing without tax", () => {
    const lines = renderToStaticMarkup(createElement("dl", null, createElement(TaxLines, { taxed: { net_cents: 7188, tax: germany, amount_cents: 8554 } })));
    expect(lines).toContain("<dt>Net price</dt><dd>$71.88</dd>");
    expect(lines).toContain("<dt>VAT 19 % (Germany)</dt><dd>$13.66</dd>");
    expect(renderToStaticMarkup(createElement(TaxLines, { taxed: { net_cents: 7188, tax: null, amount_cents: 7188 } }))).toBe("");
    const reversed = renderToStaticMarkup(createElement(TaxLines, { taxed: { net_cents: 7188, tax: reverse, amount_cents: 7188 } }));
    expect(reversed).toContain("<dt>VAT reverse charged</dt><dd>$0.00</dd>");
  });
});
