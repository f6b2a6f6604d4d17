import { createElement, type ReactElement, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it } from "vitest";
import { i18nFor, translatorFor } from "~/i18n/i18n.server";
import type { Language } from "~/i18n/languages";
import { type PageLanguage, PageLanguageProvider } from "~/i18n/page-language";
import { formattersFor } from "~/i18n/use-formatters";
import { type Tax, taxIncluded, taxOf } from "~/features/tax/tax";
import { TaxLines } from "~/features/tax/tax-lines";

/** The provider with its children given as createElement's argument. */
const LanguageProvider = PageLanguageProvider as (props: { value: PageLanguage; children?: ReactNode }) => ReactElement;

/** Rendered as a page in `language` renders it (entry.server's providers). */
function render(element: ReactElement, language: Language = "en"): string {
  return renderToStaticMarkup(
    createElement(I18nextProvider, { i18n: i18nFor(language) }, createElement(LanguageProvider, { value: { language, catalogueUrl: "" } }, element)),
  );
}

const words = (language: Language) => ({ t: translatorFor(language), money: formattersFor(language).money, language });

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
    expect(taxIncluded(germany, words("en"))).toBe("including VAT 19 % (Germany): $13.66");
    expect(taxIncluded(reverse, words("en"))).toBe("VAT reverse charged");
    expect(taxIncluded(null, words("en"))).toBeNull();
    // Another language words the same facts: its own name for VAT and the country (issue 36).
    expect(taxIncluded(germany, words("de"))).toBe("inkl. USt. 19 % (Deutschland): 13,66 $");
    expect(taxIncluded(reverse, words("fr"))).toBe("Autoliquidation de la TVA");
  });

  it("adds 'Net price' and the tax line to a summary, and nothing without tax", () => {
    const lines = render(createElement("dl", null, createElement(TaxLines, { taxed: { net_cents: 7188, tax: germany, amount_cents: 8554 } })));
    expect(lines).toContain("<dt>Net price</dt><dd>$71.88</dd>");
    expect(lines).toContain("<dt>VAT 19 % (Germany)</dt><dd>$13.66</dd>");
    expect(render(createElement(TaxLines, { taxed: { net_cents: 7188, tax: null, amount_cents: 7188 } }))).toBe("");
    const reversed = render(createElement(TaxLines, { taxed: { net_cents: 7188, tax: reverse, amount_cents: 7188 } }));
    expect(reversed).toContain("<dt>VAT reverse charged</dt><dd>$0.00</dd>");
    // In German: the catalogue's term and Intl's money.
    expect(render(createElement("dl", null, createElement(TaxLines, { taxed: { net_cents: 7188, tax: germany, amount_cents: 8554 } })), "de")).toContain(
      "<dt>Nettopreis</dt><dd>71,88 $</dd>",
    );
  });
});
