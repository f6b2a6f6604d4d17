import { describe, expect, it } from "vitest";
import { chosenCountry } from "~/features/tax/checkout-country.server";
import { countryOptionsHtml } from "~/features/tax/country-form";
import { COUNTRIES } from "~/utils/countries.generated";

describe("the checkout's country options (one HTML string, issue 31)", () => {
  it("lists every country of the API's list once, in its order, with the chosen one selected", () => {
    const html = countryOptionsHtml("DE");
    const options = [...html.matchAll(/<option value=([A-Z]{2})( selected)?>([^<]*)/g)];
    expect(options.map((o) => o[1])).toEqual(COUNTRIES.map((c) => c.code));
    expect(options.filter((o) => o[2]).map((o) => o[1])).toEqual(["DE"]);
    // Unquoted values are valid HTML only for codes without spaces, quotes, = < > or `.
    for (const c of COUNTRIES) expect(c.code).toMatch(/^[A-Z]{2}$/);
  });

  it("escapes the names and selects nothing for a code not in the list", () => {
    const html = countryOptionsHtml("ZZ");
    expect(html).not.toContain("selected");
    expect(html).toContain(">Antigua &#38; Barbuda");
    expect(html).not.toMatch(/&(?!#\d+;)/);
  });
});

describe("the country chosen on a checkout", () => {
  it("is the flow's when the list has it, and passed over when it does not (an old cookie, a list that changed)", () => {
    expect(chosenCountry({ country: "FR" })).toBe("FR");
    expect(chosenCountry({ country: "ZZ" })).toBeNull();
    expect(chosenCountry({})).toBeNull();
    expect(chosenCountry(null)).toBeNull();
  });
});
