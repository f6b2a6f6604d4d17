import { z } from "zod";
import { invalidRequest } from "./errors";
import type { Metadata } from "./objects";

/*
 * Request parameters. Form bodies (bracket notation, parsed by qs) carry only strings, objects and
 * arrays; the tokenizer's JSON bodies may carry numbers and booleans too. These schemas take both,
 * and parse() turns the first problem into Stripe's 400 answer.
 */

/** qs turns `a[25]=x` (index above its array limit) into an object with numeric keys: make it an array. */
function asArray(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const entries = Object.entries(value);
  if (entries.length === 0 || !entries.every(([key]) => /^\d+$/.test(key))) return value;
  return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) => item);
}

export const zInt = z.union([z.number().int(), z.string().trim().regex(/^-?\d+$/, "Invalid integer").transform(Number)]);

export const zDecimal = z.union([
  z.number(),
  z.string().trim().regex(/^-?\d+(\.\d+)?$/, "Invalid decimal").transform(Number),
]);

export const zBool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);

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

/** Parses request parameters; the first problem becomes a 400 invalid_request_error naming the parameter. */
export function parse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue ? paramName(issue.path) : "";
  if (!issue) throw invalidRequest("Invalid request.");
  if (issue.input === undefined) {
    throw invalidRequest(`Missing required param: ${param}.`, { param, code: "parameter_missing" });
  }
  if (issue.input === "") {
    throw invalidRequest(`You passed an empty string for '${param}'. We assume empty values are an attempt to unset a parameter; however '${param}' cannot be unset. You should remove '${param}' from your request or supply a non-empty value.`, {
      param,
      code: "parameter_invalid_empty",
    });
  }
  throw invalidRequest(`Invalid ${param || "request"}: ${issue.message}`, { param, code: "parameter_invalid" });
}

/** Exactly one of several parameters (Stripe's "You may only specify one of these parameters"). */
export function onlyOneOf(values: Record<string, unknown>): void {
  const given = Object.entries(values).filter(([, v]) => v !== undefined && v !== null);
  if (given.length > 1) {
    throw invalidRequest(`You may only specify one of these parameters: ${given.map(([k]) => k).join(", ")}.`, {
      param: given[1]?.[0],
    });
  }
}
