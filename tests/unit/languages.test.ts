import { describe, expect, it } from "vitest";
import { languageOfCookieHeader, languageOfHeader, languageOfHeaders, onlyLanguageCookie } from "~/i18n/languages";
import { formatCents } from "~/utils/plans";
import { formatLongDate, formatShortDate } from "~/utils/dates";

// Choosing the page's language (issue 36): the lang cookie, then Accept-Language, then English.

describe("Accept-Language", () => {
  it.each([
    ["de-DE,de;q=0.9,en;q=0.8", "de"],
    ["fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7", "fr"],
    ["en-US,en;q=0.9", "en"],
    ["ja-JP, es;q=0.5", "es"],
    ["de;q=0.2, fr;q=0.8", "fr"],
    ["ES", "es"],
    ["*", "en"],
    ["de;q=0, fr;q=0.1", "fr"],
  ])("%s is %s", (header, language) => {
    expect(languageOfHeader(header)).toBe(language);
  });

  it("names none of ours: null, and the page is English", () => {
    expect(languageOfHeader("ja-JP, zh;q=0.9")).toBeNull();
    expect(languageOfHeader("")).toBeNull();
    expect(languageOfHeader("de;q=abc")).toBe("de");
    expect(languageOfHeaders({ acceptLanguage: "ja" })).toBe("en");
  });
});

describe("the lang cookie", () => {
  it("comes before Accept-Language, when it holds one of ours", () => {
    expect(languageOfHeaders({ cookie: "a=1; lang=fr", acceptLanguage: "de" })).toBe("fr");
    expect(languageOfHeaders({ cookie: "lang=xx", acceptLanguage: "de" })).toBe("de");
    expect(languageOfCookieHeader("__session=abc; lang=es")).toBe("es");
    expect(languageOfCookieHeader("language=de")).toBeNull();
  });

  it("alone still makes an anonymous visitor", () => {
    expect(onlyLanguageCookie("lang=de")).toBe(true);
    expect(onlyLanguageCookie("lang=de; __session=x")).toBe(false);
    expect(onlyLanguageCookie(undefined)).toBe(false);
  });
});

describe("formats", () => {
  it("keep the spec's in English and use each language's own elsewhere", () => {
    expect(formatCents(999)).toBe("$9.99");
    expect(formatCents(999, "en")).toBe("$9.99");
    expect(formatCents(123456, "de")).toBe("1.234,56\u00a0$");
    expect(formatCents(999, "fr")).toMatch(/^9,99\s\$US$/);
    expect(formatCents(999, "es")).toMatch(/^9,99\sUS\$$/);
    expect(formatLongDate("2027-03-05T10:00:00Z")).toBe("05 March, 2027");
    expect(formatLongDate("2027-03-05T10:00:00Z", "de")).toBe("05. März 2027");
    expect(formatLongDate("2027-03-05T10:00:00Z", "fr")).toBe("05 mars 2027");
    expect(formatLongDate("2027-03-05T10:00:00Z", "es")).toBe("05 de marzo de 2027");
    expect(formatShortDate("2027-03-05T10:00:00Z")).toBe("Mar 05, 2027");
  });
});

describe("the server's plain lookups (app/i18n/i18n.server.ts)", () => {
  it("give every key exactly what i18next gives, through t and a fixed namespace alike", async () => {
    const { createInstance } = await import("i18next");
    const { CATALOGUES } = await import("~/i18n/catalogues.server");
    const { i18nOptions } = await import("~/i18n/config");
    const { i18nFor } = await import("~/i18n/i18n.server");
    for (const language of ["en", "de", "fr", "es"] as const) {
      const reference = createInstance();
      await reference.init(i18nOptions(language, CATALOGUES[language]));
      const served = i18nFor(language);
      for (const [namespace, entries] of Object.entries(CATALOGUES[language])) {
        const fixed = served.getFixedT(language, "common");
        for (const key of Object.keys(entries)) {
          expect(served.t(key), `${language} ${key}`).toBe(reference.t(key));
          expect(fixed(key), `${language} ${namespace} ${key}`).toBe(reference.getFixedT(language, "common")(key));
        }
      }
      // A text that is no key passes through; variables still go to i18next.
      expect(served.t("Some message the API wrote.")).toBe("Some message the API wrote.");
      expect(served.t("error.badRequest.text", { status: 405 })).toBe(reference.t("error.badRequest.text", { status: 405 }));
    }
  });
});
