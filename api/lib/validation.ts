import { z } from "zod";

/*
 * Building blocks for request schemas. Strings are trimmed (passwords excepted: they are compared
 * exactly as typed), emails lower-cased, nothing is coerced from another type: a number where a
 * string is expected is a 422, not a silent conversion. null counts as missing.
 */

const isMissing = (input: unknown) => input === undefined || input === null;

/** A required text field: 'The {label} field is required.' when missing or blank. */
export function requiredText(label: string, opts: { max?: number; trim?: boolean } = {}) {
  const { max = 255, trim = true } = opts;
  const required = `The ${label} field is required.`;
  const base = z.string({
    error: (issue) => (isMissing(issue.input) ? required : `The ${label} field must be text.`),
  });
  return (trim ? base.trim() : base)
    .min(1, { error: required, abort: true })
    .max(max, { error: `The ${label} field must not be longer than ${max} characters.`, abort: true });
}

/** Required email: trimmed, lower-cased, 'Please enter a valid email address' when malformed. */
export function emailField() {
  return requiredText("email", { max: 254 })
    .toLowerCase()
    .pipe(z.email({ error: "Please enter a valid email address" }));
}

/** Required password, never trimmed. */
export function passwordField(label = "password") {
  return requiredText(label, { max: 1024, trim: false });
}

/** Optional text: trimmed; blank, null or missing become undefined. */
export function optionalText(label: string, max = 255) {
  return z
    .string({ error: `The ${label} field must be text.` })
    .trim()
    .max(max, { error: `The ${label} field must not be longer than ${max} characters.` })
    .nullish()
    .transform((v) => (v ? v : undefined));
}

/** A body schema: an object (unknown keys dropped). */
export function body<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape, { error: "The request body must be a JSON object or form data." });
}
