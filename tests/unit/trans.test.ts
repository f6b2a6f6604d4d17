import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Trans as I18nextTrans } from "react-i18next";
import { describe, expect, it } from "vitest";
import { CATALOGUES } from "~/i18n/catalogues.server";
import { i18nFor } from "~/i18n/i18n.server";
import { LANGUAGES } from "~/i18n/languages";
import { Trans } from "~/i18n/trans";

// app/i18n/trans.tsx stands in for react-i18next's Trans: every catalogue text with markup, in every
// language, with its variables and plural forms, must come out as the same HTML through both.

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;
const TAG_NAME = /<\/?([A-Za-z0-9_-]+)\s*\/?>/g;

function markedTexts(language: (typeof LANGUAGES)[number]) {
  const keys = new Set<string>();
  for (const entries of Object.values(CATALOGUES[language])) {
    for (const [key, text] of Object.entries(entries)) if (TAG_NAME.test(text)) keys.add(key.replace(PLURAL_SUFFIX, ""));
    TAG_NAME.lastIndex = 0;
  }
  return [...keys];
}

function textOf(language: (typeof LANGUAGES)[number], key: string): string {
  for (const entries of Object.values(CATALOGUES[language])) {
    for (const suffix of ["", "_other", "_one"]) if (entries[`${key}${suffix}`] !== undefined) return entries[`${key}${suffix}`]!;
  }
  throw new Error(`No text for ${key}`);
}

describe("Trans (app/i18n/trans.tsx)", () => {
  for (const language of LANGUAGES) {
    it(`renders every ${language} text with markup as react-i18next's Trans does`, () => {
      const i18n = i18nFor(language);
      const keys = markedTexts(language);
      expect(keys.length).toBeGreaterThan(20);
      for (const key of keys) {
        const text = textOf(language, key);
        const names = new Set([...text.matchAll(TAG_NAME)].map((match) => match[1]!));
        // Each tag a component: a link with an attribute, so that what it wraps and where it goes both show.
        const components: Record<string, ReactElement> = {};
        for (const name of names) components[name] = createElement("a", { href: `/${name}`, className: name });
        const values: Record<string, string> = {};
        for (const match of text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)) if (match[1] !== "count") values[match[1]!] = `${match[1]} & "value's"`;
        const plural = Object.values(CATALOGUES[language]).some((entries) => `${key}_other` in entries || `${key}_one` in entries);
        for (const count of plural ? [0, 1, 2, 5] : [undefined]) {
          const props = { t: i18n.t, i18nKey: key, values, count, components };
          const expected = renderToStaticMarkup(createElement(I18nextTrans, { ...props, i18n }));
          expect(renderToStaticMarkup(createElement(Trans, props)), `${language} ${key} ${count ?? ""}`).toBe(expected);
        }
      }
    });
  }

  it("keeps a component's own children when its tag is empty, and leaves a tag nothing stands for as text", () => {
    const t = (key: string) => key;
    const own = renderToStaticMarkup(createElement(Trans, { t, i18nKey: "Wait <countdown></countdown> s", components: { countdown: createElement("span", null, "5") } }));
    expect(own).toBe("Wait <span>5</span> s");
    expect(renderToStaticMarkup(createElement(Trans, { t, i18nKey: "a <b>c</b> <strong>d</strong>" }))).toBe("a &lt;b&gt;c&lt;/b&gt; <strong>d</strong>");
    // A value that looks like markup is text, even a tag the text uses (react-i18next read it as one unless escaped).
    const i18n = i18nFor("en");
    const sent = renderToStaticMarkup(createElement(Trans, { t: i18n.t, i18nKey: "auth.signUp.codeSent", values: { email: "<strong>a@b.c</strong> & <x>" }, components: { strong: createElement("strong") } }));
    expect(sent).toContain("<strong>&lt;strong&gt;a@b.c&lt;/strong&gt; &amp; &lt;x&gt;</strong>");
  });
});
