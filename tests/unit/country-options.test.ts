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

describe("the country options in the page's language (issue 36)", () => {
  it("names every country of the list once with Intl, sorted in the language, English unchanged", () => {
    const english = [...countryOptionsHtml("DE").matchAll(/<option value=([A-Z]{2})( selected)?>([^<]*)/g)];
    expect(english.find((o) => o[1] === "DE")?.[3]).toBe("Germany");
    const german = [...countryOptionsHtml("DE", "de").matchAll(/<option value=([A-Z]{2})( selected)?>([^<]*)/g)];
    expect(german.map((o) => o[1]).sort()).toEqual(COUNTRIES.map((c) => c.code).sort());
    expect(german.filter((o) => o[2]).map((o) => o[1])).toEqual(["DE"]);
    expect(german.find((o) => o[1] === "DE")?.[3]).toBe("Deutschland");
    const names = german.map((o) => o[3]!);
    expect(names).toEqual([...names].sort(new Intl.Collator("de-DE").compare));
    expect(countryOptionsHtml("ES", "es")).toContain("<option value=ES selected>España");
    expect(countryOptionsHtml("FR", "fr")).toContain("<option value=DE>Allemagne");
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
