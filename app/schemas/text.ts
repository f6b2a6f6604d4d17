/*
 * The rule for free text that reaches an email or a page, as the API has it (api/platform/text.ts,
 * docs/decisions/043; tests/unit/free-text.test.ts keeps the two equal): no C0 or C1 control
 * characters, no bidirectional marks, embeddings, overrides or isolates, no U+2028/U+2029. A
 * multi-line field keeps its line breaks and tabs. The forms check it so that the message shows next
 * to the field without a round trip to the API; the API has the last word.
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

/** The fields whose refusal names them, and the catalogue key of each one's whole sentence (a language words it by its field). */
const CONTROL_CHARACTERS_KEYS = {
  "coupon code": "auth.text.controlCharacters.couponCode",
  name: "auth.text.controlCharacters.name",
  "passkey name": "auth.text.controlCharacters.passkeyName",
} as const;

/** The message of a refusal, 'Remove the control characters from the {label}.' in English: a catalogue key, translated where it is shown. */
export function controlCharactersMessage(label: keyof typeof CONTROL_CHARACTERS_KEYS): string {
  return CONTROL_CHARACTERS_KEYS[label];
}

/** The text without what the rule refuses (a run of line breaks and tabs becomes one space), trimmed: for text from a link. */
export function stripControlCharacters(text: string): string {
  return text.replace(/[\t\n\v\f\r\u0085\u2028\u2029]+/g, " ").replace(new RegExp(SINGLE_LINE.source, "g"), "").trim();
}
