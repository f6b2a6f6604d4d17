import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import * as portal from "~/schemas/text";
import { CouponSchema } from "~/schemas/checkout";
import { translatorFor } from "~/i18n/i18n.server";
import { SupportMessageSchema } from "~/schemas/support";
import * as api from "../../api/platform/text";

// The one rule for free text (review issue 30, docs/decisions/043): what it refuses, what it keeps, how it
// cleans what cannot be refused, and that the portal's copy (app/schemas/text.ts) is the API's.

const REFUSED = [
  ["NUL", "\u0000"],
  ["line feed", "\n"],
  ["carriage return", "\r"],
  ["tab", "\t"],
  ["escape", "\u001b"],
  ["DEL", "\u007f"],
  ["next line (C1)", "\u0085"],
  ["CSI (C1)", "\u009b"],
  ["Arabic letter mark", "\u061c"],
  ["left-to-right mark", "\u200e"],
  ["right-to-left mark", "\u200f"],
  ["line separator", "\u2028"],
  ["paragraph separator", "\u2029"],
  ["left-to-right embedding", "\u202a"],
  ["right-to-left override", "\u202e"],
  ["left-to-right isolate", "\u2066"],
  ["pop directional isolate", "\u2069"],
] as const;

const KEPT = ["Laptop", "Zoë’s ThinkPad", "José Álvarez", "שלום עולם", "مرحبا", "山田太郎", "👩‍💻 work", "O'Brien & Sons <3", "a\u00a0b", "x\u200dy"];

describe("the free-text rule (api/platform/text.ts)", () => {
  it.each(REFUSED)("refuses a %s in a single-line field", (_, character) => {
    expect(api.hasControlCharacters(`Lap${character}top`)).toBe(true);
  });

  it("keeps line breaks and tabs in a multi-line field, and refuses the rest", () => {
    for (const [, character] of REFUSED) {
      const allowed = character === "\n" || character === "\r" || character === "\t";
      expect(api.hasControlCharacters(`Hello${character}there`, { multiline: true }), JSON.stringify(character)).toBe(!allowed);
    }
    expect(api.hasControlCharacters("Line one\r\nLine two\n\tindented", { multiline: true })).toBe(false);
  });

  it.each(KEPT)("takes %j: letters of any script, emoji (with their joiners), punctuation", (text) => {
    expect(api.hasControlCharacters(text)).toBe(false);
    expect(api.stripControlCharacters(text)).toBe(text);
  });

  it("cleans what it cannot refuse: a run of line breaks and tabs becomes a space, the rest goes, the ends are trimmed", () => {
    expect(api.stripControlCharacters("Ann\r\nBcc: victim@example.com")).toBe("Ann Bcc: victim@example.com");
    expect(api.stripControlCharacters(" \u202eexe.txt\u202c ")).toBe("exe.txt");
    expect(api.stripControlCharacters("a\u0000b\tc\u0085d")).toBe("ab c d");
    expect(api.stripControlCharacters("\u2066\u2069")).toBe("");
    expect(api.stripControlCharacters("one\r\ntwo\rthree\u2028four\tfive\u0000", { multiline: true })).toBe("one\ntwo\nthree\nfour\tfive");
  });

  it("says what to do: 'Remove the control characters from the {label}.'", () => {
    expect(api.controlCharactersMessage("passkey name")).toBe("Remove the control characters from the passkey name.");
  });

  it("is the same rule in the portal (app/schemas/text.ts), character for character", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      if (portal.hasControlCharacters(text) !== api.hasControlCharacters(text)) throw new Error(`U+${code.toString(16)} single-line`);
      const multiline = { multiline: true };
      if (portal.hasControlCharacters(text, multiline) !== api.hasControlCharacters(text, multiline)) throw new Error(`U+${code.toString(16)} multi-line`);
      if (portal.stripControlCharacters(text) !== api.stripControlCharacters(text)) throw new Error(`U+${code.toString(16)} cleaned`);
    }
    expect(portal.controlCharactersMessage("coupon code")).toBe(api.controlCharactersMessage("coupon code"));
  });
});

describe("the portal's forms apply it", () => {
  const form = (entries: Record<string, string>) => {
    const data = new FormData();
    for (const [key, value] of Object.entries(entries)) data.set(key, value);
    return data;
  };

  it("the contact form refuses a direction override in the message and keeps its lines", () => {
    const refused = parseWithZod(form({ email: "a@example.com", message: "Invoice \u202efdp.exe" }), { schema: SupportMessageSchema });
    expect(refused.status === "error" && refused.error?.message).toEqual(["Remove the control characters from your message."]);
    const kept = parseWithZod(form({ email: "a@example.com", message: "Line one\r\nLine two\n\tthree" }), { schema: SupportMessageSchema });
    expect(kept.status).toBe("success");
  });

  it("the coupon form refuses a control character in the code", () => {
    const refused = parseWithZod(form({ code: "WELCOME\u000010" }), { schema: CouponSchema });
    // The schema's message is a catalogue key: the customer reads its English.
    const en = translatorFor("en");
    expect(refused.status === "error" && refused.error?.code?.map((message) => en(message))).toEqual(["Remove the control characters from the coupon code."]);
  });
});
