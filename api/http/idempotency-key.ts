import type { Request } from "express";
import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { DomainError } from "../platform/errors";
import { errorResponse } from "./contract/responses";
import { optionalText } from "./validation";

/*
 * A payment's idempotency key, where clients put it: the `Idempotency-Key` header (Stripe's convention,
 * and the IETF httpapi draft's), or the body's `idempotency_key` (the portal's forms, which cannot set
 * headers). One key per payment either way; both at once must be the same key.
 */

export const IDEMPOTENCY_KEY_MESSAGES = {
  /** Neither the header nor the field (the portal's form lost its key). */
  missing: "Please reload the page and try again.",
  header: "The Idempotency-Key header must be 1 to 200 characters.",
  conflict: "The Idempotency-Key header and the idempotency_key field must be the same key.",
} as const;

const MAX = 200;

/** The header, documented on every payment route (`headers` of its declaration). */
export const idempotencyKeyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(MAX)
    .optional()
    .meta({
      description: `This payment's key (1 to ${MAX} characters), instead of or as well as the body's idempotency_key: posting again with the same key never pays twice. With both, they must be the same (else 400 '${IDEMPOTENCY_KEY_MESSAGES.conflict}').`,
      examples: ["9f6c1a52-3c1e-4d0b-9a57-0c5e2f1b7d44"],
    }),
});

/** The body's field: optional, since the header may carry the key instead. */
export function idempotencyKeyField(description: string) {
  return optionalText("idempotency key", MAX).meta({
    description: `${description} Or send it as the Idempotency-Key header; one of the two is required ('${IDEMPOTENCY_KEY_MESSAGES.missing}' under errors.fields.idempotency_key when neither is there).`,
  });
}

/** The body's optional field where a payment may go without a key (every post a new attempt). */
export function optionalIdempotencyKeyField(description: string) {
  return optionalText("idempotency key", MAX).meta({ description: `${description} Or send it as the Idempotency-Key header.` });
}

/** The 400 of a route that takes the key: a malformed body, or two keys that differ. */
export const idempotencyKeyBadRequest: ZodOpenApiResponseObject = errorResponse(
  `'The request body is not valid JSON.', or idempotency_key_conflict: '${IDEMPOTENCY_KEY_MESSAGES.conflict}'`,
  { id: "BadRequestOrKeyConflict" },
);

/** The key of this payment: the header's or the field's (the same one when both are sent). */
export function idempotencyKeyOf(req: Request, field: string | undefined, opts: { required: true }): string;
export function idempotencyKeyOf(req: Request, field: string | undefined, opts: { required: false }): string | undefined;
export function idempotencyKeyOf(req: Request, field: string | undefined, opts: { required: boolean }): string | undefined {
  const raw = req.get("Idempotency-Key");
  const header = raw?.trim();
  if (header !== undefined && (header.length < 1 || header.length > MAX)) {
    throw new DomainError("validation_failed", IDEMPOTENCY_KEY_MESSAGES.header);
  }
  if (header !== undefined && field !== undefined && header !== field) {
    throw new DomainError("idempotency_key_conflict", IDEMPOTENCY_KEY_MESSAGES.conflict);
  }
  const key = header ?? field;
  if (key === undefined && opts.required) {
    throw new DomainError("validation_failed", IDEMPOTENCY_KEY_MESSAGES.missing, { field: "idempotency_key" });
  }
  return key;
}
