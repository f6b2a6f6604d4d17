import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// No English in a component (issue 36): what a customer reads comes from the catalogue (app/locales).
// This reads every .tsx of app/ and fails on text in JSX, on a prose attribute (a label, a title, an
// aria-label, a placeholder...), on a string written as a child expression, and on a page title given as
// text. Names that are the same in every language (brands, protocols) may stand alone.

/** Texts that are names, not words to translate. */
const NAMES = new Set([
  "VPN", "PayPal", "Google", "Apple", "Apple Pay", "Google Pay", "WireGuard", "OpenVPN", "IKEv2", "BitPay", "Stripe",
  "Visa", "Mastercard", "QR", "PDF", "CSV", "JSON", "ID", "IP", "OK",
]);

/** Attributes whose text a person reads or hears. */
const PROSE_ATTRIBUTES = new Set([
  "aria-label", "aria-description", "aria-roledescription", "aria-valuetext", "aria-placeholder", "title", "placeholder", "alt",
  "label", "heading", "description", "message", "text", "summary", "caption", "legend", "hint", "confirmLabel", "cancelLabel",
  "submitLabel", "pendingLabel", "buttonLabel", "linkText", "emptyText", "tooltip",
]);

/** Files still waiting for their words to move to the catalogue (issue 36): this list only shrinks. */
const PENDING = new Set<string>(
  // PENDING-START
  [
  ],
  // PENDING-END
);

function tsxFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return tsxFiles(file);
    return file.endsWith(".tsx") ? [file] : [];
  });
}

const hasWords = (text: string) => /[A-Za-z]{2,}/.test(text) && !NAMES.has(text.trim());

/** Where a file has English of its own: line and text. */
function englishIn(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${JSON.stringify(text.trim())}`);
  const isString = (node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral =>
    ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);

  /** Strings in a child expression that would be shown: not those handed to a call (t('key'), a formatter). */
  const shownStrings = (node: ts.Node) => {
    if (isString(node)) {
      if (hasWords(node.text)) report(node, node.text);
      return;
    }
    if (ts.isTemplateExpression(node)) {
      const text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(" ");
      if (hasWords(text)) report(node, text);
      return;
    }
    if (ts.isCallExpression(node) || ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node) || ts.isJsxFragment(node)) return;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind !== ts.SyntaxKind.PlusToken && node.operatorToken.kind !== ts.SyntaxKind.QuestionQuestionToken && node.operatorToken.kind !== ts.SyntaxKind.BarBarToken && node.operatorToken.kind !== ts.SyntaxKind.AmpersandAmpersandToken) return;
    if (ts.isElementAccessExpression(node) || ts.isPropertyAccessExpression(node)) return;
    ts.forEachChild(node, shownStrings);
  };

  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasWords(node.text)) report(node, node.text);
    if (ts.isJsxAttribute(node) && node.initializer) {
      const name = node.name.getText(source);
      const value = node.initializer;
      if (PROSE_ATTRIBUTES.has(name)) {
        if (isString(value) && hasWords(value.text)) report(value, value.text);
        if (ts.isJsxExpression(value) && value.expression) shownStrings(value.expression);
      }
    }
    if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) shownStrings(node.expression);
    if (ts.isCallExpression(node) && node.expression.getText(source) === "pageMeta" && node.arguments[0] && isString(node.arguments[0])) {
      report(node.arguments[0], node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("English in components", () => {
  const files = tsxFiles("app").sort();

  it("has none outside the files still waiting for the catalogue", () => {
    const found = files.filter((file) => !PENDING.has(file)).flatMap(englishIn);
    expect(found).toEqual([]);
  });

  it("lists as waiting only files that still have English (remove a file once it has none)", () => {
    const done = [...PENDING].filter((file) => englishIn(file).length === 0);
    expect(done).toEqual([]);
  });
});
