import { describe, expect, it, vi } from "vitest";
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

describe("the server's fast lookups (app/i18n/i18n.server.ts)", () => {
  // One test a language: each compares some 10,000 answers, and a loaded machine took 29 s for the four at once.
  for (const language of ["en", "de", "fr", "es"] as const) {
    it(`give every ${language} key exactly what i18next gives: as it is, with its variables, with every count, through t and a fixed namespace alike`, async () => {
      const { createInstance } = await import("i18next");
      const { CATALOGUES } = await import("~/i18n/catalogues.server");
      const { i18nOptions } = await import("~/i18n/config");
      const { i18nFor } = await import("~/i18n/i18n.server");
      const COUNTS = [0, 1, 2, 3, 5, 11, 21, 22, 101, 1_000_000, 1.5];
      const categories = new Intl.PluralRules(language);
      const firstOfCategory = new Map<string, number>();
      for (const count of COUNTS.filter(Number.isInteger)) if (!firstOfCategory.has(categories.select(count))) firstOfCategory.set(categories.select(count), count);
      const countsByCategory = [...firstOfCategory.values(), 1.5];
      const reference = createInstance();
      await reference.init(i18nOptions(language, CATALOGUES[language]));
      const served = i18nFor(language);
      const fixed = served.getFixedT(language, "common");
      const fixedReference = reference.getFixedT(language, "common");
      // The differences are collected and compared once at the end: an expect() for each of the some 40,000
      // answers was a quarter of the file's CPU time (10.8 s against 8.1 s; issue 31).
      const differences: string[] = [];
      let compared = 0;
      const same = (label: string, key: string, options?: Record<string, unknown>) => {
        compared++;
        const ours = served.t(key, options as never);
        const theirs = reference.t(key, options as never);
        if (ours !== theirs) differences.push(`${language} ${label}: ${JSON.stringify(ours)}, i18next ${JSON.stringify(theirs)}`);
        const oursFixed = fixed(key, options as never);
        const theirsFixed = fixedReference(key, options as never);
        if (oursFixed !== theirsFixed) differences.push(`${language} ${label} (fixed): ${JSON.stringify(oursFixed)}, i18next ${JSON.stringify(theirsFixed)}`);
      };
      for (const [namespace, entries] of Object.entries(CATALOGUES[language])) {
        for (const [key, text] of Object.entries(entries)) {
          same(`${namespace} ${key}`, key);
          // Its variables, as strings and as numbers; then one missing, and one more than it uses.
          const names = [...new Set([...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]!))].filter((name) => name !== "count");
          const strings = Object.fromEntries(names.map((name) => [name, `<${name} value>`]));
          same(`${key} with strings`, key, strings);
          same(`${key} with numbers`, key, Object.fromEntries(names.map((name, i) => [name, 1000 + i])));
          if (names.length) same(`${key} missing one`, key, Object.fromEntries(names.slice(1).map((name) => [name, "x"])));
          same(`${key} with an option it does not use`, key, { ...strings, joinArrays: "+" });
          same(`${key} as Trans asks`, key, { ...strings, context: undefined, defaultValue: "the default", count: undefined });
          // A plural's base key, with every count. A key without plural forms only picks the suffixed keys to
          // try by the count's plural category, and falls back to itself: one count of each category the
          // language has (and a fraction) takes every path the others would, at a third of the answers (issue 31).
          const base = key.replace(/_(zero|one|two|few|many|other)$/, "");
          for (const count of base === key ? countsByCategory : COUNTS) same(`${base} count ${count}`, base, { ...strings, count });
        }
      }
      // A text that is no key passes through as it is; with a default or variables i18next decides.
      same("no key", "Some message the API wrote.");
      same("no key, scoped", "PayPal", { lng: language, ns: "checkout" });
      same("no key, default", "No such key", { defaultValue: "A default" });
      same("no key, variables", "Hello {{name}}", { name: "you" });
      same("a context", "checkout.guarantee", { context: "male" });
      same("a boolean option", "checkout.guarantee", { returnObjects: true });
      same("a format", "error.badRequest.text", { status: 405, interpolation: { escapeValue: true } });
      expect(differences).toEqual([]);
      // Every key of the catalogue was asked (a catalogue that failed to load would compare nothing).
      expect(compared).toBeGreaterThan(Object.values(CATALOGUES[language]).reduce((sum, entries) => sum + Object.keys(entries).length, 0) * 6);
    });
  }

  it("answer what <Trans> asks without i18next: its count left undefined, its default, its namespaces", async () => {
    const { i18nFor } = await import("~/i18n/i18n.server");
    const served = i18nFor("en") as unknown as { translator: { translate: (...args: unknown[]) => unknown }; t: (key: string, options: object) => string };
    const translate = vi.spyOn(served.translator, "translate");
    try {
      // As react-i18next's Trans calls t for <Trans i18nKey values components /> (TransWithoutContext.js).
      const asTrans = (key: string, values: Record<string, string>) =>
        served.t(key, { context: undefined, count: undefined, ...values, defaultValue: key, ns: ["checkout"] });
      expect(asTrans("checkout.guarantee", {})).toContain("<terms>");
      expect(asTrans("checkout.terms.buys", { buys: "1 year", date: "March 5, 2027" })).toContain("March 5, 2027");
      expect(translate).not.toHaveBeenCalled();
    } finally {
      translate.mockRestore();
    }
  });
});
