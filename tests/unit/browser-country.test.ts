import { describe, expect, it } from "vitest";
import { countryFromAcceptLanguage, countryOfBrowser, countryOfLanguageTag, DEFAULT_COUNTRY } from "~/features/tax/browser-country";

// The checkout's pre-selected country (issue 35): the saved billing country, else the region of the
// browser's language (Accept-Language), else the United States.

const known = (code: string) => ["DE", "AT", "CH", "FR", "US", "GB", "TW", "SE", "NO", "GR", "BE"].includes(code);

describe("the country of the browser's language", () => {
  it("reads the region of a tag, with or without a script, and ignores a numeric region", () => {
    expect(countryOfLanguageTag("de-DE")).toBe("DE");
    expect(countryOfLanguageTag("de-at")).toBe("AT");
    expect(countryOfLanguageTag("de_CH")).toBe("CH");
    expect(countryOfLanguageTag("zh-Hant-TW")).toBe("TW");
    expect(countryOfLanguageTag("es-419")).toBeNull();
    expect(countryOfLanguageTag("en-US")).toBe("US");
  });

  it("takes a language said alone to the country it plainly belongs to; English alone is the United States", () => {
    expect(countryOfLanguageTag("de")).toBe("DE");
    expect(countryOfLanguageTag("fr")).toBe("FR");
    expect(countryOfLanguageTag("sv")).toBe("SE");
    expect(countryOfLanguageTag("nb")).toBe("NO");
    expect(countryOfLanguageTag("el")).toBe("GR");
    expect(countryOfLanguageTag("en")).toBe("US");
    // No one obvious country: no guess.
    expect(countryOfLanguageTag("es")).toBeNull();
    expect(countryOfLanguageTag("pt")).toBeNull();
    expect(countryOfLanguageTag("zh")).toBeNull();
    expect(countryOfLanguageTag("*")).toBeNull();
    expect(countryOfLanguageTag("")).toBeNull();
  });

  it("follows the header's preference order and weights", () => {
    expect(countryFromAcceptLanguage("de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7", known)).toBe("DE");
    expect(countryFromAcceptLanguage("de", known)).toBe("DE");
    expect(countryFromAcceptLanguage("en", known)).toBe("US");
    expect(countryFromAcceptLanguage("en-US,en;q=0.9", known)).toBe("US");
    expect(countryFromAcceptLanguage("en-GB", known)).toBe("GB");
    expect(countryFromAcceptLanguage("en;q=0.5, fr-FR", known)).toBe("FR");
    expect(countryFromAcceptLanguage("fr;q=0, de-AT", known)).toBe("AT");
    // A language with no country, then one with: the second decides.
    expect(countryFromAcceptLanguage("es, de-CH;q=0.8", known)).toBe("CH");
  });

  it("skips a region the checkout does not offer, and answers null when nothing fits", () => {
    expect(countryFromAcceptLanguage("xx-ZZ, fr", known)).toBe("FR");
    expect(countryFromAcceptLanguage("es-419", known)).toBeNull();
    expect(countryFromAcceptLanguage("", known)).toBeNull();
    expect(countryFromAcceptLanguage(null, known)).toBeNull();
    expect(countryFromAcceptLanguage("*", known)).toBeNull();
    expect(countryFromAcceptLanguage(";;;,,,q=1", known)).toBeNull();
  });
});

describe("the checkout's country when none is chosen or saved (tests/unit/checkout-loader.test.ts has the order)", () => {
  it("is the browser's, else the United States", () => {
    expect(countryOfBrowser("de-DE", known)).toBe("DE");
    expect(countryOfBrowser("en-GB", known)).toBe("GB");
    expect(countryOfBrowser("es", known)).toBe(DEFAULT_COUNTRY);
    expect(countryOfBrowser(null, known)).toBe("US");
  });
});
