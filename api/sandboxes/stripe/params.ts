import { z } from "zod";
import { invalidRequest } from "./errors";
import type { Metadata } from "./objects";

/*
 * Request parameters. Form bodies (bracket notation, parsed by qs) carry only strings, objects and
 * arrays; the tokenizer's JSON bodies may carry numbers and booleans too. These schemas take both,
 * and parse() turns the first problem into Stripe's 400 answer, with Stripe's error codes.
 * Every schema is a strict object, and so is every hash inside it (z.strictObject at every depth;
 * tests/api/stripe-sandbox.test.ts walks them): as at Stripe, a parameter the endpoint does not declare
 * (a misspelt `emial`, `card[foo]`, `recurring[colour]`) is refused with parameter_unknown instead of
 * being ignored.
 */

/** qs turns `a[25]=x` (index above its array limit) into an object with numeric keys: make it an array. */
function asArray(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const entries = Object.entries(value);
  if (entries.length === 0 || !entries.every(([key]) => /^\d+$/.test(key))) return value;
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) => item);
}

const INVALID_INTEGER = "Invalid integer";
const INVALID_DECIMAL = "Invalid decimal";
const INVALID_BOOLEAN = "Invalid boolean";

export const zInt = z.union([z.number().int(), z.string().trim().regex(/^-?\d+$/).transform(Number)], { error: INVALID_INTEGER });

export const zDecimal = z.union([z.number(), z.string().trim().regex(/^-?\d+(\.\d+)?$/).transform(Number)], {
  error: INVALID_DECIMAL,
});

export const zBool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")], { error: INVALID_BOOLEAN });

/** ISO 4217 codes (Stripe's supported currencies are a subset; the sandbox does not narrow further). */
const CURRENCIES = new Set(Intl.supportedValuesOf("currency").map((code) => code.toLowerCase()));

/** A three-letter ISO currency code, lowercased; anything else is Stripe's "Invalid currency". */
export const zCurrency = z
  .string()
  .trim()
  .toLowerCase()
  .refine((code) => CURRENCIES.has(code), {
    error: (issue) =>
      `Invalid currency: ${String(issue.input)}. Stripe currently supports these currencies: ${[...CURRENCIES].join(", ")}`,
  });

/** An http(s) URL ({CHECKOUT_SESSION_ID} allowed); anything else is Stripe's url_invalid. */
export const zUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value.replace(/\{CHECKOUT_SESSION_ID\}/g, "x"));
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  }, { error: "Not a valid URL", params: { code: "url_invalid" } });

/** Text where an empty value means "none", as Stripe unsets a field sent empty. */
export const zText = z.union([z.string(), z.number()]).transform((v) => {
  const text = String(v);
  return text === "" ? null : text;
});

/** A required, non-empty id or value. */
export const zId = z.string().trim().min(1, "This value cannot be empty");

export const zMetadata = z.union([
  z.literal(""),
  z.record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v)),
  ),
]);
export type MetadataParam = z.output<typeof zMetadata>;

/** Stripe's metadata update: `""` clears all, a key sent empty is removed, others are set. */
export function applyMetadata(current: Metadata, update: MetadataParam | undefined): Metadata {
  if (update === undefined) return current;
  if (update === "") return {};
  const next = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === "") delete next[key];
    else next[key] = value;
  }
  return next;
}

export function zList<T extends z.ZodType>(item: T) {
  return z.preprocess(asArray, z.array(item));
}

export const zExpand = z.preprocess((v) => (typeof v === "string" ? [v] : asArray(v)), z.array(z.string())).optional();

/** The pagination parameters every list takes. */
export const zListParams = {
  limit: zInt.pipe(z.number().min(1).max(100)).optional(),
  starting_after: z.string().optional(),
  ending_before: z.string().optional(),
};

function paramName(path: readonly PropertyKey[]): string {
  const [first, ...rest] = path.map(String);
  return (first ?? "") + rest.map((part) => `[${part}]`).join("");
}

/** The value the client sent at `path` (before any transform). */
function sentAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key as string];
  }
  return value;
}

/** "a, b, or c" */
function oneOf(values: readonly unknown[]): string {
  const names = values.map(String);
  return names.length <= 2 ? names.join(" or ") : `${names.slice(0, -1).join(", ")}, or ${names.at(-1)}`;
}

function validationError(message: string, param: string, code?: string) {
  return invalidRequest(message, { param: param || undefined, code, validation: true });
}

/**
 * Parses request parameters. The first problem becomes Stripe's 400 invalid_request_error naming the
 * parameter, with Stripe's code where Stripe gives one: parameter_unknown (checked first, as Stripe does),
 * parameter_missing, parameter_invalid_empty, parameter_invalid_string_blank, parameter_invalid_integer.
 * An invalid value otherwise (an enum, a currency, a range) carries no code, as at Stripe.
 */
export function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const unknown = result.error.issues.find((issue) => issue.code === "unrecognized_keys");
  if (unknown?.code === "unrecognized_keys") {
    const param = paramName([...unknown.path, unknown.keys[0] ?? ""]);
    throw validationError(`Received unknown parameter: ${param}`, param, "parameter_unknown");
  }
  const issue = result.error.issues[0];
  if (!issue) throw validationError("Invalid request.", "");
  const param = paramName(issue.path);
  const sent = sentAt(input, issue.path);
  if (sent === undefined) {
    throw validationError(`Missing required param: ${param}.`, param, "parameter_missing");
  }
  if (sent === "") {
    throw validationError(
      `You passed an empty string for '${param}'. We assume empty values are an attempt to unset a parameter; however '${param}' cannot be unset. You should remove '${param}' from your request or supply a non-empty value.`,
      param,
      "parameter_invalid_empty",
    );
  }
  if (typeof sent === "string" && sent.trim() === "") {
    throw validationError(
      `You passed a blank string for '${param}'. You should remove '${param}' from your request or supply a non-blank value.`,
      param,
      "parameter_invalid_string_blank",
    );
  }
  const shown = typeof sent === "string" || typeof sent === "number" || typeof sent === "boolean" ? String(sent) : JSON.stringify(sent);
  switch (issue.code) {
    case "invalid_union":
      if (issue.message === INVALID_INTEGER) throw validationError(`Invalid integer: ${shown}`, param, "parameter_invalid_integer");
      if (issue.message === INVALID_DECIMAL) throw validationError(`Invalid decimal: ${shown}`, param);
      if (issue.message === INVALID_BOOLEAN) throw validationError(`Invalid boolean: ${shown}`, param);
      break;
    case "invalid_value":
      throw validationError(`Invalid ${param}: must be one of ${oneOf(issue.values)}`, param);
    case "invalid_type":
      if (issue.expected === "object" || issue.expected === "record") throw validationError("Invalid hash", param);
      if (issue.expected === "array") throw validationError("Invalid array", param);
      break;
    case "too_small":
      if (issue.origin === "number") throw validationError(`This value must be greater than or equal to ${issue.minimum}.`, param);
      break;
    case "too_big":
      if (issue.origin === "number") throw validationError(`This value must be less than or equal to ${issue.maximum}.`, param);
      break;
    case "custom":
      throw validationError(issue.message, param, typeof issue.params?.code === "string" ? issue.params.code : undefined);
  }
  throw validationError(`Invalid ${param || "request"}: ${issue.message}`, param);
}

/** Exactly one of several parameters (Stripe's "You may only specify one of these parameters"). */
export function onlyOneOf(values: Record<string, unknown>): void {
  const given = Object.entries(values).filter(([, v]) => v !== undefined && v !== null);
  if (given.length > 1) {
    throw invalidRequest(`You may only specify one of these parameters: ${given.map(([k]) => k).join(", ")}.`, {
      param: given[1]?.[0],
      code: "parameters_exclusive",
      validation: true,
    });
  }
}

/** An address parameter (a Customer's, a payment method's billing details, a tax calculation's). */
export const zAddress = z.strictObject({
  city: zText.optional(),
  country: zText.optional(),
  line1: zText.optional(),
  line2: zText.optional(),
  postal_code: zText.optional(),
  state: zText.optional(),
});
