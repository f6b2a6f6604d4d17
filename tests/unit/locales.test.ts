import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NAMESPACES } from "~/i18n/config";
import { LANGUAGES } from "~/i18n/languages";

// The catalogues (issue 36): every key in every language, the same variables in each, the plural forms
// each language's rules ask for, and keys unique across a tree's namespaces (the portal reaches any key
// from any namespace: app/i18n/config.ts). Both trees: the portal's (app/locales) and the API's
// (api/locales: emails, the PDF, the API's messages).

const TREES = ["app/locales", "api/locales"].filter((tree) => existsSync(tree));
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

type Tree = Record<string, Record<string, Record<string, string>>>;

function readTree(tree: string): Tree {
  const out: Tree = {};
  for (const language of LANGUAGES) {
    out[language] = {};
    const dir = path.join(tree, language);
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".json"))) {
      out[language]![file.replace(/\.json$/, "")] = flatten(JSON.parse(readFileSync(path.join(dir, file), "utf8")));
    }
  }
  return out;
}

/** Nested keys (the API's catalogues nest) as i18next reads them: `a.b.c`; a leaf that is no string stays as it is, for the test to refuse. */
function flatten(tree: Record<string, unknown>, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(tree)) {
    if (value && typeof value === "object" && !Array.isArray(value)) Object.assign(out, flatten(value as Record<string, unknown>, `${prefix}${key}.`));
    else out[`${prefix}${key}`] = value as string;
  }
  return out;
}

const variablesOf = (text: string) => [...text.matchAll(/\{\{\s*([\w.]+)\s*(?:,[^}]*)?\}\}/g)].map((match) => match[1]!).sort();
const baseOf = (key: string) => key.replace(PLURAL_SUFFIX, "");

describe.each(TREES)("%s", (tree) => {
  const catalogue = readTree(tree);
  const english = catalogue.en!;

  it("has the same namespaces in every language", () => {
    for (const language of LANGUAGES) expect(Object.keys(catalogue[language]!).sort(), language).toEqual(Object.keys(english).sort());
    if (tree === "app/locales") expect(Object.keys(english).sort()).toEqual([...NAMESPACES].sort());
  });

  it("holds only flat strings, no empty one", () => {
    for (const language of LANGUAGES)
      for (const [namespace, entries] of Object.entries(catalogue[language]!))
        for (const [key, value] of Object.entries(entries)) {
          expect(typeof value, `${language}/${namespace}: ${key}`).toBe("string");
          expect(value.trim(), `${language}/${namespace}: ${key}`).not.toBe("");
        }
  });

  it("has every key of English in every language, and no other", () => {
    for (const language of LANGUAGES) {
      for (const [namespace, entries] of Object.entries(english)) {
        const bases = (keys: string[]) => [...new Set(keys.map(baseOf))].sort();
        expect(bases(Object.keys(catalogue[language]![namespace] ?? {})), `${language}/${namespace}`).toEqual(bases(Object.keys(entries)));
      }
    }
  });

  it("keeps each key's variables the same in every language", () => {
    for (const [namespace, entries] of Object.entries(english)) {
      const englishVariables = new Map<string, string[]>();
      for (const [key, text] of Object.entries(entries)) englishVariables.set(baseOf(key), [...new Set([...(englishVariables.get(baseOf(key)) ?? []), ...variablesOf(text)])].sort());
      for (const language of LANGUAGES) {
        const variables = new Map<string, string[]>();
        for (const [key, text] of Object.entries(catalogue[language]![namespace] ?? {}))
          variables.set(baseOf(key), [...new Set([...(variables.get(baseOf(key)) ?? []), ...variablesOf(text)])].sort());
        for (const [base, expected] of englishVariables) {
          // A plural's singular may say the number in words ('one day'): `count` need not appear in every form.
          const without = (list: string[] = []) => list.filter((name) => name !== "count");
          expect(without(variables.get(base)), `${language}/${namespace}: ${base}`).toEqual(without(expected));
        }
      }
    }
  });

  it("has the plural forms each language's rules use (Intl.PluralRules, as i18next asks)", () => {
    for (const language of LANGUAGES) {
      const categories = new Intl.PluralRules(language).resolvedOptions().pluralCategories;
      for (const [namespace, entries] of Object.entries(catalogue[language]!)) {
        const plurals = new Set(Object.keys(entries).filter((key) => PLURAL_SUFFIX.test(key)).map(baseOf));
        for (const base of plurals)
          for (const category of categories) expect(entries, `${language}/${namespace}: ${base}_${category}`).toHaveProperty([`${base}_${category}`]);
      }
    }
  });

  it("names no Trans tag after an HTML void element (react-i18next would leave its words outside: '<link>' came out empty)", () => {
    const VOID = /<\/?(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)>/;
    for (const language of LANGUAGES)
      for (const [namespace, entries] of Object.entries(catalogue[language]!))
        for (const [key, text] of Object.entries(entries)) expect(VOID.test(text), `${language}/${namespace}: ${key}`).toBe(false);
  });

  it.runIf(tree === "app/locales")("names every key once across its namespaces (the portal reaches any key from any namespace)", () => {
    const seen = new Map<string, string>();
    for (const [namespace, entries] of Object.entries(english))
      for (const key of Object.keys(entries)) {
        expect(seen.get(key), `${key} is in ${seen.get(key)} and ${namespace}`).toBeUndefined();
        seen.set(key, namespace);
      }
  });
});

describe("app/i18n/catalogues.server.ts", () => {
  it("bundles every namespace of every language", () => {
    const source = readFileSync("app/i18n/catalogues.server.ts", "utf8");
    for (const language of LANGUAGES)
      for (const namespace of NAMESPACES) expect(source).toContain(`from "../locales/${language}/${namespace}.json"`);
  });
});
