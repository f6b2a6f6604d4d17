/*
 * The one rule for free text that reaches an email or a page (names, messages, device details, codes;
 * docs/decisions/043). Refused, or stripped where the text comes from someone we cannot refuse
 * (a provider's display name, a browser's User-Agent, a name typed on Stripe's page):
 *   - C0 controls U+0000–U+001F, DEL and the C1 controls U+007F–U+009F: line breaks that start new
 *     lines (or headers) in an email, escapes, NUL;
 *   - the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
 *     U+202A–U+202E, U+2066–U+2069), which make 'Laptop\u202Eexe.txt' read as something else;
 *   - the line and paragraph separators U+2028 and U+2029.
 * A multi-line field (the contact form's message) keeps its line breaks and tabs (\n, \r, \t) and
 * nothing else of these. The portal has the same rule in app/schemas/text.ts; a unit test keeps them equal.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const SINGLE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const MULTI_LINE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

export interface TextKind {
  /** Line breaks (\n, \r) and tabs are allowed. */
  multiline?: boolean;
}

/** Whether the text holds a character the rule refuses. */
export function hasControlCharacters(text: string, kind: TextKind = {}): boolean {
  return (kind.multiline ? MULTI_LINE : SINGLE_LINE).test(text);
}

/** The message of a refusal: 'Remove the control characters from the {label}.' */
export function controlCharactersMessage(label: string): string {
  return `Remove the control characters from the ${label}.`;
}

/**
 * The text without what the rule refuses, for text we cannot send back. Single-line: a run of line breaks
 * and tabs becomes one space (so 'Ann\r\nLee' is 'Ann Lee', not 'AnnLee') and the rest goes; multi-line:
 * line breaks (\r\n, \r, U+2028, U+2029) become \n, tabs stay, the rest goes. The ends are trimmed.
 */
export function stripControlCharacters(text: string, kind: TextKind = {}): string {
  const all = new RegExp((kind.multiline ? MULTI_LINE : SINGLE_LINE).source, "g");
  const spaced = kind.multiline
    ? text.replace(/\r\n?|[\u0085\u2028\u2029]/g, "\n")
    : text.replace(/[\t\n\v\f\r\u0085\u2028\u2029]+/g, " ");
  return spaced.replace(all, "").trim();
}
