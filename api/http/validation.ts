import { regexes, z } from "zod";
import { controlCharactersMessage, hasControlCharacters, stripControlCharacters } from "../platform/text";
import { isCountryCode } from "../platform/countries";
import { LANGUAGES, type MessageKey, labelText, validationText } from "../platform/i18n";

/*
 * Building blocks for request schemas. Strings are trimmed (passwords excepted: they are compared
 * exactly as typed), emails lower-cased, nothing is coerced from another type: a number where a
 * string is expected is a 422, not a silent conversion. null counts as missing. Text refuses control
 * and bidirectional characters (platform/text.ts, docs/decisions/043): 422 'Remove the control
 * characters from the {label}.' (passwords excepted, and names from a provider, which are cleaned).
 */

const isMissing = (input: unknown) => input === undefined || input === null;

/**
 * A message about a field, in English as always, remembered with its key and the label's Text so that the
 * error envelope can write it in the request's language (docs/decisions/064). A label the resources do not
 * have keeps the message English.
 */
function labelled(english: string, key: MessageKey, label: string, vars: Record<string, string | number> = {}): string {
  const labelT = labelText(label);
  return labelT ? validationText(english, key, { label: labelT, ...vars }) : english;
}

/** A message quoted for a description: 'text', or "text" when it holds an apostrophe. */
const quote = (message: string) => (message.includes("'") ? `"${message}"` : `'${message}'`);

/** How HTML forms and JSON clients may send a 1/0 flag (see parseFlag), for the OpenAPI document. */
const FLAG_SCHEMA = {
  oneOf: [
    { enum: [0, 1] },
    { type: "boolean" as const },
    { enum: ["0", "1", "true", "false", "on", "off", "yes", "no"] },
  ],
};

/**
 * The check of every free-text field: no control or bidirectional characters (platform/text.ts), line
 * breaks and tabs allowed when `multiline`. For `.refine(...withoutControlCharacters(label))`.
 */
export function withoutControlCharacters(label: string, opts: { multiline?: boolean; message?: string } = {}) {
  return [
    (value: string) => !hasControlCharacters(value, { multiline: opts.multiline }),
    { error: opts.message ?? labelled(controlCharactersMessage(label), "validation:controlCharacters", label) },
  ] as const;
}

/**
 * A required text field: 'The {label} field is required.' (or `required`) when missing or blank;
 * control characters refused unless `controls: "allow"` (a password: compared, never shown).
 */
export function requiredText(label: string, opts: { max?: number; trim?: boolean; required?: string; controls?: "refuse" | "allow" } = {}) {
  const { max = 255, trim = true } = opts;
  const required = opts.required ?? labelled(`The ${label} field is required.`, "validation:required", label);
  const mustBeText = labelled(`The ${label} field must be text.`, "validation:mustBeText", label);
  const base = z.string({
    error: (issue) => (isMissing(issue.input) ? required : mustBeText),
  });
  const text = (trim ? base.trim() : base)
    .min(1, { error: required, abort: true })
    .max(max, { error: labelled(`The ${label} field must not be longer than ${max} characters.`, "validation:tooLong", label, { max }), abort: true });
  return opts.controls === "allow" ? text : text.refine(...withoutControlCharacters(label));
}

export const INVALID_EMAIL = "Please enter a valid email address";

/**
 * An email as the API accepts it, for the OpenAPI document: zod's email pattern with the blanks that
 * trimming removes around it (so not `format: email`, which refuses them).
 */
export const EMAIL_INPUT_PATTERN = `^\\s*${regexes.email.source.replace(/^\^|\$$/g, "")}\\s*$`;
export const EMAIL_REQUIRED = "Email is required";

/**
 * Required email: trimmed, lower-cased, 'Please enter a valid email address' when malformed or
 * longer than 254 characters. `required` replaces 'The email field is required.' (the code and
 * sign-up endpoints use 'Email is required').
 */
export function emailField(opts: { required?: string } = {}) {
  const required = opts.required ?? "The email field is required.";
  const base = z.string({ error: (issue) => (isMissing(issue.input) ? required : "The email field must be text.") });
  return base
    .trim()
    .min(1, { error: required, abort: true })
    .max(254, { error: INVALID_EMAIL, abort: true })
    .toLowerCase()
    .pipe(z.email({ error: INVALID_EMAIL }))
    .meta({
      description: `Trimmed and lower-cased. Missing: ${quote(required)}; malformed or over 254 characters: ${quote(INVALID_EMAIL)}.`,
      override: { type: "string", pattern: EMAIL_INPUT_PATTERN, maxLength: 254, minLength: undefined },
    });
}

export const CODE_FORMAT = "Please enter the 6-digit verification code";

/** A 6-digit code (text; trimmed): 'Please enter the 6-digit verification code' otherwise. */
export function codeField() {
  return z
    .string({ error: CODE_FORMAT })
    .trim()
    .regex(/^\d{6}$/, { error: CODE_FORMAT })
    .meta({
      description: `The 6-digit code from the email (trimmed). Otherwise 422 ${quote(CODE_FORMAT)}.`,
      override: { pattern: "^\\s*\\d{6}\\s*$" },
    });
}

/**
 * A 1/0 flag as HTML forms and JSON clients send it: 1, "1", true, "true", "on", "yes" are 1;
 * 0, "0", false, "false", "off", "no" are 0; missing, null or "" is undefined; anything else null.
 */
export function parseFlag(value: unknown): 0 | 1 | undefined | null {
  if (value === undefined || value === null || value === "") return undefined;
  if (value === 1 || value === true) return 1;
  if (value === 0 || value === false) return 0;
  if (typeof value === "string") {
    const v = value.trim().toLowerCase();
    if (["1", "true", "on", "yes"].includes(v)) return 1;
    if (["0", "false", "off", "no"].includes(v)) return 0;
  }
  return null;
}

/** An optional 1/0 flag (see parseFlag); missing is 0. */
export function flagField(label: string) {
  const invalid = labelled(`The ${label} field must be 1 or 0.`, "validation:mustBeFlag", label);
  return z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      const flag = parseFlag(value);
      if (flag === null) {
        ctx.addIssue({ code: "custom", message: invalid });
        return z.NEVER;
      }
      return flag ?? 0;
    })
    .meta({ override: { ...FLAG_SCHEMA, default: 0 } });
}

/** A flag that must be 1 (consent): `message` otherwise. */
export function acceptedFlag(message: string) {
  return z
    .unknown()
    .refine((v) => parseFlag(v) === 1, { error: message })
    .meta({ description: `Must be 1 (also "1", true, "on"): ${quote(message)}.`, override: FLAG_SCHEMA });
}

/** Required password, never trimmed. */
export function passwordField(label = "password") {
  return requiredText(label, { max: 1024, trim: false, controls: "allow" }).meta({
    description: "Compared exactly as sent (not trimmed).",
    override: { minLength: undefined },
  });
}

/** Optional text: trimmed, control characters refused; blank, null or missing become undefined. */
export function optionalText(label: string, max = 255) {
  return z
    .string({ error: labelled(`The ${label} field must be text.`, "validation:mustBeText", label) })
    .trim()
    .max(max, { error: labelled(`The ${label} field must not be longer than ${max} characters.`, "validation:tooLong", label, { max }), abort: true })
    .refine(...withoutControlCharacters(label))
    .nullish()
    .transform((v) => (v ? v : undefined))
    .meta({ override: { anyOf: undefined, type: ["string", "null"], maxLength: max } });
}

/**
 * Optional text that comes from someone the sender cannot correct (a provider's display name): its
 * control characters are stripped rather than refused (a line break becomes a space), then it is
 * trimmed; blank, null or missing become undefined.
 */
export function cleanedText(label: string, max = 255) {
  return z
    .string({ error: labelled(`The ${label} field must be text.`, "validation:mustBeText", label) })
    .overwrite((value) => stripControlCharacters(value))
    .max(max, { error: labelled(`The ${label} field must not be longer than ${max} characters.`, "validation:tooLong", label, { max }) })
    .nullish()
    .transform((v) => (v ? v : undefined))
    .meta({ override: { anyOf: undefined, type: ["string", "null"], maxLength: max } });
}

export const COUNTRY_INVALID = "The country must be a two-letter ISO 3166-1 code, e.g. DE or US.";

/** A country: ISO 3166-1 alpha-2, any case; anything else 'The country must be a two-letter ISO 3166-1 code, …' (or `message`). */
export function countryField(message = COUNTRY_INVALID) {
  return z
    .string({ error: message })
    .trim()
    .toUpperCase()
    .refine((value) => isCountryCode(value), { error: message })
    .meta({ description: "ISO 3166-1 alpha-2", examples: ["DE"], override: { type: "string", minLength: 2, maxLength: 2 } });
}

/** A body schema: an object (unknown keys dropped). */
export function body<T extends z.ZodRawShape>(shape: T) {
  return z.object(shape, { error: "The request body must be a JSON object or form data." });
}

/** The optional device fields of every sign-in body (password, code, SSO, registration). */
export function deviceFields() {
  return {
    platform: optionalText("platform", 50).meta({
      override: { anyOf: undefined, type: ["string", "null"], maxLength: 50, default: "Web Browser", examples: ["Web Browser", "Desktop"] },
    }),
    device_os: optionalText("device os", 100),
    device_os_version: optionalText("device os version", 100),
    device_brand: optionalText("device brand", 100),
    device_model: optionalText("device model", 100),
  };
}

export const MIN_PASSWORD_LENGTH = 8;
export const PASSWORD_TOO_SHORT = "Password must be at least 8 characters";

/**
 * A new password and its confirmation (never trimmed). `required` when either is missing or empty,
 * 'Password must be at least 8 characters', and `mismatch` (on password_confirmation) when they differ.
 */
export function newPasswordFields(messages: { required: string; mismatch: string }) {
  const field = () =>
    z
      .string({ error: messages.required })
      .min(1, { error: messages.required, abort: true })
      .max(1024, { error: "The password must not be longer than 1024 characters.", abort: true });
  return {
    password: field()
      .min(MIN_PASSWORD_LENGTH, { error: PASSWORD_TOO_SHORT })
      .meta({
        description: `Not trimmed. Missing: ${quote(messages.required)}; shorter than 8: ${quote(PASSWORD_TOO_SHORT)}.`,
        override: { minLength: MIN_PASSWORD_LENGTH },
      }),
    password_confirmation: field().meta({ description: `Must equal password: ${quote(messages.mismatch)}.` }),
  };
}

/** Adds the "passwords differ" issue to a schema built with newPasswordFields(). */
export function passwordsMatch(mismatch: string) {
  return (value: { password?: unknown; password_confirmation?: unknown }, ctx: z.RefinementCtx) => {
    if (
      typeof value.password === "string" &&
      typeof value.password_confirmation === "string" &&
      value.password_confirmation !== "" &&
      value.password !== value.password_confirmation
    ) {
      ctx.addIssue({ code: "custom", path: ["password_confirmation"], message: mismatch });
    }
  };
}

/** GOOGLE or APPLE (any case): `The {label} must be GOOGLE or APPLE.` otherwise. */
export function linkTypeField(label: string) {
  const required = labelled(`The ${label} field is required.`, "validation:required", label);
  const invalid = labelled(`The ${label} must be GOOGLE or APPLE.`, "validation:linkType", label);
  return z
    .string({ error: (issue) => (isMissing(issue.input) ? required : invalid) })
    .trim()
    .toUpperCase()
    .pipe(z.enum(["GOOGLE", "APPLE"], { error: invalid }))
    .meta({
      description: "The identity provider, GOOGLE or APPLE, in any case (trimmed).",
      override: { type: "string", pattern: "^\\s*([Gg][Oo][Oo][Gg][Ll][Ee]|[Aa][Pp][Pp][Ll][Ee])\\s*$", examples: ["GOOGLE", "APPLE"] },
    });
}

/**
 * A whole number as a JSON number or as a string of `maxDigits` digits at most (form data, query
 * strings), blanks around it allowed; the string is not all zeros when `min` is 1.
 */
export function integerOrDigits(opts: { min: 0 | 1; maxDigits: number; max?: number }) {
  const digits = `\\d{1,${opts.maxDigits}}`;
  return {
    anyOf: [
      { type: "integer" as const, minimum: opts.min, ...(opts.max !== undefined ? { maximum: opts.max } : {}) },
      { type: "string" as const, pattern: opts.min === 1 ? `^\\s*(?!0+\\s*$)${digits}\\s*$` : `^\\s*${digits}\\s*$` },
    ],
  };
}

/** What idField accepts: a positive integer, or 1 to 15 digits (not all zeros) in a string. */
export const ID_SCHEMA = integerOrDigits({ min: 1, maxDigits: 15 });

/** A positive integer id, as a JSON number or a string of digits (form data). */
export function idField(label: string) {
  const required = labelled(`The ${label} field is required.`, "validation:required", label);
  const invalid = labelled(`The ${label} must be a number.`, "validation:mustBeNumber", label);
  return z.unknown().transform((value, ctx) => {
    if (isMissing(value) || value === "") {
      ctx.addIssue({ code: "custom", message: required });
      return z.NEVER;
    }
    const digits = typeof value === "string" && /^\s*\d{1,15}\s*$/.test(value);
    const n = typeof value === "number" ? value : digits ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1) {
      ctx.addIssue({ code: "custom", message: invalid });
      return z.NEVER;
    }
    return n;
  }).meta({ override: ID_SCHEMA });
}

export const LANGUAGE_REQUIRED = "The language field is required.";
export const LANGUAGE_INVALID = "The language must be one of en, de, fr, es.";

/** The account's language: exactly en, de, fr or es; 'The language must be one of en, de, fr, es.' otherwise. */
export function languageField() {
  return z
    .enum(LANGUAGES, { error: (issue) => (isMissing(issue.input) ? LANGUAGE_REQUIRED : LANGUAGE_INVALID) })
    .meta({
      description: `The account's language: en, de, fr or es. Missing: ${quote(LANGUAGE_REQUIRED)}; another value: ${quote(LANGUAGE_INVALID)}.`,
      examples: ["de"],
    });
}

/** An optional language (sign-up): as languageField; missing or null is undefined (the account gets English). */
export function optionalLanguageField() {
  return languageField()
    .nullish()
    .transform((v) => v ?? undefined)
    .meta({
      description: "The new account's language (en, de, fr, es): its emails and invoices are written in it. Missing: en.",
      override: { anyOf: undefined, type: ["string", "null"], enum: [...LANGUAGES, null], examples: ["de"] },
    });
}
