import * as z from "zod/mini";

// The typed field schemas every form schema is composed of. A field a form may leave out (the browser
// sends nothing for an empty one) parses to a string all the same, "" when absent, so that an action
// reads `submission.value.email` as a string without a `!`. The messages stay with each form's checks:
// the spec words them per form. Strings only (docs/decisions/002).

const text = z.optional(z.string());

/** An email: trimmed (each action lower-cases it for the API). */
export const emailField = z.pipe(text, z.transform((value) => value?.trim() ?? ""));

/** An emailed, authenticator, recovery or coupon code: trimmed. */
export const codeField = z.pipe(text, z.transform((value) => value?.trim() ?? ""));

/** A password: exactly as typed, never trimmed. */
export const passwordField = z.pipe(text, z.transform((value) => value ?? ""));

/** A checkbox or a hidden choice (agree_terms, method): its value, "" when absent. */
export const choiceField = z.pipe(text, z.transform((value) => value ?? ""));

/** A short free text (a passkey's name): trimmed. */
export const textField = z.pipe(text, z.transform((value) => value?.trim() ?? ""));
