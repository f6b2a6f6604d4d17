import { cloneElement, createElement, type ReactElement, type ReactNode } from "react";

// A catalogue text with markup, as React elements: 'By paying you agree to the <terms>Terms of Service</terms>'
// with `components={{ terms: <Link to="/terms" /> }}`. What react-i18next's Trans does for the props the portal
// uses (t, i18nKey, values, count, components), without its general machinery: Trans builds its options, turns
// the text into an HTML tree with a general HTML parser, interpolates every text node a second time and clones
// through React.Children for each tag, some 30 to 50 µs of a page's CPU per use (the checkout's, issue 31). The
// texts' markup is only named tags around text, so a tag scanner does it; values go in after it, so they are
// never read as markup. tests/unit/trans.test.ts renders every catalogue text with markup, in every language,
// through both and compares the HTML.

/** Elements a text may use without a component for them (react-i18next's transKeepBasicHtmlNodesFor). */
const BASIC_ELEMENTS = new Set(["br", "strong", "i", "p"]);

/** `<name>`, `</name>` or `<name/>`: the markup catalogue texts use. */
const TAG = /<(\/?)([A-Za-z0-9_-]+)\s*(\/?)>/g;

// `t` as useTranslation, translatorOf or translatorForPage give it; only its string form is used here.
// biome-ignore lint/suspicious/noExplicitAny: i18next's TFunction overloads are not assignable to a plain signature.
type Translate = (key: any, options?: any) => string;

export type TransProps = {
  t: Translate;
  i18nKey: string;
  /** The text's {{variables}}: always text, never markup (a name or an email with '<strong>' in it stays text). */
  values?: Record<string, string | number | null | undefined>;
  /** Picks the plural form, and fills {{count}}. */
  count?: number;
  /** The element each tag of the text becomes; the tag's content becomes its children. */
  components?: Record<string, ReactElement>;
};

/** Stands for the value of the same number in the translated text until its markup is read (a private-use character). */
const VALUE_MARK = /\uE000(\d+)\uE000/g;

export function Trans({ t, i18nKey, values, count, components }: TransProps): ReactNode {
  // The values go in after the markup is read: each becomes a mark in the text `t` gives, then itself in the text nodes.
  const marked: Record<string, unknown> = {};
  const filled: string[] = [];
  if (values) {
    for (const name in values) {
      const value = values[name];
      if (typeof value === "string" || typeof value === "number") {
        marked[name] = `\uE000${filled.length}\uE000`;
        filled.push(String(value));
      } else marked[name] = value;
    }
  }
  if (count !== undefined) marked.count = count;
  const text: string = t(i18nKey, values || count !== undefined ? marked : undefined);
  return nodesOf(text, components ?? NO_COMPONENTS, filled);
}

const NO_COMPONENTS: Record<string, ReactElement> = {};

type Open = { name: string; element: ReactElement | null; children: ReactNode[] };

/**
 * The text's nodes: its strings, and an element for each tag a component (or a basic element) stands for.
 * `values` replace their marks in the strings.
 */
export function nodesOf(text: string, components: Record<string, ReactElement>, values: readonly string[] = []): ReactNode[] {
  const fill = (part: string) => (values.length ? part.replace(VALUE_MARK, (_mark, index: string) => values[Number(index)] ?? "") : part);
  if (!text.includes("<")) return [fill(text)];
  const root: Open = { name: "", element: null, children: [] };
  const open: Open[] = [root];
  let at = 0;
  for (const match of text.matchAll(TAG)) {
    const [whole, closing, name, selfClosing] = match as unknown as [string, string, string, string];
    const element = Object.hasOwn(components, name) ? components[name]! : BASIC_ELEMENTS.has(name) ? createElement(name) : null;
    // A tag nothing stands for stays text, as written.
    if (!element) continue;
    const current = open[open.length - 1]!;
    if (match.index > at) current.children.push(fill(text.slice(at, match.index)));
    at = match.index + whole.length;
    if (selfClosing) {
      current.children.push(elementWith(element, [], current.children.length));
    } else if (!closing) {
      open.push({ name, element, children: [] });
    } else if (current.name === name && open.length > 1) {
      open.pop();
      const parent = open[open.length - 1]!;
      parent.children.push(elementWith(current.element!, current.children, parent.children.length));
    }
  }
  if (at < text.length) open[open.length - 1]!.children.push(fill(text.slice(at)));
  // A tag left open keeps what followed it.
  while (open.length > 1) {
    const unclosed = open.pop()!;
    const parent = open[open.length - 1]!;
    parent.children.push(elementWith(unclosed.element!, unclosed.children, parent.children.length));
  }
  return root.children;
}

/** The component's element with the tag's content as its children (its own, when the tag has none); keyed by place. */
function elementWith(element: ReactElement, children: ReactNode[], key: number): ReactElement {
  const own = (element.props as { children?: ReactNode }).children;
  if (children.length === 0) return cloneElement(element, { key }, own);
  return cloneElement(element, { key }, ...children);
}
