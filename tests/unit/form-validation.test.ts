import { parseWithZod } from "@conform-to/zod/v4";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as schemas from "~/schemas/index.server";
import { DeleteAccountSchema } from "~/schemas/account-deletion";
import { LoginSchema } from "~/schemas/login";
import { translatorFor } from "~/i18n/i18n.server";
import { validateForm } from "~/utils/client-validation";

function form(entries: Record<string, string>) {
  const data = new FormData();
  for (const [key, value] of Object.entries(entries)) data.set(key, value);
  return data;
}

const cases: Array<[string, Record<string, string>, Record<string, string[]> | null]> = [
  ["both empty", { email: "", password: "" }, { "": ["User and password"] }],
  ["nothing posted", {}, { "": ["User and password"] }],
  ["email missing", { email: "", password: "secret" }, { email: ["Email is required"] }],
  ["email malformed", { email: "nope", password: "secret" }, { email: ["Please enter a valid email address"] }],
  ["email with spaces", { email: "a b@c.de", password: "secret" }, { email: ["Please enter a valid email address"] }],
  ["password missing", { email: "a@b.co", password: "" }, { password: ["Password is required"] }],
  ["valid", { email: " a@b.co ", password: "secret" }, null],
];

describe("login schema: the browser and the server agree", () => {
  it.each(cases)("%s", (_name, entries, expected) => {
    const server = parseWithZod(form(entries), { schema: LoginSchema });
    const browser = validateForm(form(entries), LoginSchema);
    expect(server.status).toBe(expected ? "error" : "success");
    expect(browser.status).toBe(expected ? "error" : "success");
    if (expected) {
      expect(server.status === "error" && server.error).toEqual(expected);
      expect(browser.status === "error" && browser.error).toEqual(expected);
    }
  });
});

const AUTH_REQUIRED = "Please enter the 6-digit authentication code or a recovery code";
const deleteCases: Array<[string, Record<string, string>, Record<string, string[]> | null]> = [
  ["password missing", { method: "password", password: "" }, { password: ["Please enter your password."] }],
  ["nothing posted", {}, { password: ["Please enter your password."] }],
  ["password given", { method: "password", password: " secret " }, null],
  ["code missing", { method: "code", code: "" }, { code: ["Please enter the 6-digit verification code"] }],
  ["code malformed", { method: "code", code: "12a456" }, { code: ["Please enter the 6-digit verification code"] }],
  ["code given", { method: "code", code: " 123456 " }, null],
  // Two-factor on (issue 33): an app code or a recovery code as well.
  ["authentication code missing", { method: "password", two_factor: "1", password: "secret" }, { authentication_code: [AUTH_REQUIRED] }],
  ["authentication code too short", { method: "password", two_factor: "1", password: "secret", authentication_code: "12345" }, { authentication_code: [AUTH_REQUIRED] }],
  ["both missing", { method: "password", two_factor: "1" }, { password: ["Please enter your password."], authentication_code: [AUTH_REQUIRED] }],
  ["app code given", { method: "password", two_factor: "1", password: "secret", authentication_code: "123 456" }, null],
  ["recovery code given", { method: "code", two_factor: "1", code: "123456", authentication_code: "abcde-fghjk" }, null],
  ["two-factor off", { method: "password", password: "secret", authentication_code: "" }, null],
];

describe("delete-account schema: the browser and the server agree", () => {
  it.each(deleteCases)("%s", (_name, entries, expected) => {
    const server = parseWithZod(form(entries), { schema: DeleteAccountSchema });
    const browser = validateForm(form(entries), DeleteAccountSchema);
    expect(server.status).toBe(expected ? "error" : "success");
    expect(browser.status).toBe(expected ? "error" : "success");
    if (expected) {
      expect(server.status === "error" && server.error).toEqual(expected);
      expect(browser.status === "error" && browser.error).toEqual(expected);
    }
  });
});

// Every form schema, not only the two above: for any mix of fields and values a form can post, the
// browser's check (validateForm, run as you type) and the server's (parseWithZod, in the action) say
// the same thing, field by field. The list of schemas is the actions' own door (index.server.ts), so a
// new schema is covered without editing this test.
describe("every form schema: the browser and the server agree on any input", () => {
  const FIELDS = [
    "email",
    "password",
    "confirmPassword",
    "password_confirmation",
    "current_password",
    "code",
    "verification_code",
    "recovery_code",
    "method",
    "agree_margeting",
    "agree_terms",
  ];
  const VALUES = [
    "",
    " ",
    "a@b.co",
    " A.B@Example.COM ",
    "nope",
    "a b@c.de",
    "123456",
    " 123456 ",
    "12345",
    "12a456",
    "1234567",
    "abcd-efgh-ijkl",
    "ABCD-EFGH",
    "password",
    "code",
    "on",
    "secret",
    "a-long-enough-password",
    "x".repeat(300),
    "ü€𝄞",
  ];
  const submission = fc.dictionary(fc.constantFrom(...FIELDS), fc.constantFrom(...VALUES), { maxKeys: 5 });

  it.each(Object.entries(schemas))("%s", (_name, schema) => {
    fc.assert(
      fc.property(submission, (entries) => {
        const server = parseWithZod(form(entries), { schema: schema as never });
        const browser = validateForm(form(entries), schema as never);
        expect(browser.status).toBe(server.status);
        expect(browser.status === "error" ? browser.error : null).toEqual(server.status === "error" ? server.error : null);
      }),
      { numRuns: 300, seed: 19 },
    );
  });
});

// 'Create configuration' on Manual setup (issue 34): the name's rule (1–40 characters as a person counts
// them, no control or bidirectional characters), a server, and a public key only when one is posted.
describe("WireGuard configuration schema: the browser and the server agree", () => {
  const KEY = "qFSWwz+yJYcGtzf9eE0qTNVz+yZ+LqMjsbLJrvZlZ3o=";
  const wireguardCases: Array<[string, Record<string, string>, Record<string, string[]> | null]> = [
    ["nothing posted", {}, { name: ["Please enter a name"], server: ["Please choose a server"] }],
    ["a name and the fastest server, no key (no JavaScript)", { name: " Home router ", server: "fastest" }, null],
    ["with the browser's public key", { name: "Home router", server: "de-fra-wg-001", public_key: KEY }, null],
    ["forty characters", { name: "x".repeat(40), server: "fastest" }, null],
    // As the API counts (UTF-16 units): 21 emoji outside the BMP are 42.
    ["21 emoji", { name: "👩".repeat(21), server: "fastest" }, { name: ["The name must not be longer than 40 characters"] }],
    ["41 characters", { name: "x".repeat(41), server: "fastest" }, { name: ["The name must not be longer than 40 characters"] }],
    ["a right-to-left override", { name: "Home\u202erouter", server: "fastest" }, { name: ["Remove the control characters from the name."] }],
    ["a tab", { name: "Home\trouter", server: "fastest" }, { name: ["Remove the control characters from the name."] }],
    ["a key of 31 bytes", { name: "Pi", server: "fastest", public_key: "qFSWwz+yJYcGtzf9eE0qTNVz+yZ+LqMjsbLJrvZlZw==" }, { public_key: ["The public key must be 32 bytes of base64."] }],
    ["a key that is not base64", { name: "Pi", server: "fastest", public_key: "not a key" }, { public_key: ["The public key must be 32 bytes of base64."] }],
  ];
  // The schema's messages are catalogue keys: what the customer reads is their English.
  const english = translatorFor("en");
  const shown = (error: Record<string, string[] | null> | null | undefined) =>
    Object.fromEntries(Object.entries(error ?? {}).map(([field, messages]) => [field, (messages ?? []).map((message) => english(message))]));
  it.each(wireguardCases)("%s", (_name, entries, expected) => {
    const server = parseWithZod(form(entries), { schema: schemas.WireGuardConfigSchema });
    const browser = validateForm(form(entries), schemas.WireGuardConfigSchema);
    expect(server.status).toBe(expected ? "error" : "success");
    expect(browser.status).toBe(expected ? "error" : "success");
    if (expected) {
      expect(server.status === "error" && shown(server.error)).toEqual(expected);
      expect(browser.status === "error" && shown(browser.error)).toEqual(expected);
    }
  });
});
