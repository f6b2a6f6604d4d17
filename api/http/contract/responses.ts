import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { ERROR_CODES } from "../../platform/errors";
import { ERROR_STATUS } from "../error-status";

/*
 * The envelopes (api/http/envelope.ts writes them) and the error answers that many routes share. Each
 * shared answer has an `id`, so the OpenAPI document lists it once under components.responses.
 */

export const SuccessEnvelope = z
  .looseObject({
    status: z.literal(true),
    success: z.literal(true),
    message: z.string(),
    data: z.unknown(),
  })
  .meta({ id: "SuccessEnvelope" });

/** The codes with their statuses, as the document lists them. */
const ERROR_CODES_DESCRIPTION = [
  "What happened, for the client to branch on (the message is for the person). The codes and their statuses:",
  ...ERROR_CODES.map((code) => `- \`${code}\` (${ERROR_STATUS[code].status}): ${ERROR_STATUS[code].description}`),
].join("\n");

export const ErrorEnvelope = z
  .object({
    status: z.literal(false),
    success: z.literal(false),
    message: z.string().meta({ description: "Plain English, fit to show to the user." }),
    errors: z.object({
      message: z.string(),
      code: z.enum(ERROR_CODES).meta({ description: ERROR_CODES_DESCRIPTION }),
      fields: z
        .record(z.string(), z.array(z.string()))
        .optional()
        .meta({ description: "Only on 422: messages per field." }),
    }),
  })
  .meta({ id: "ErrorEnvelope" });

/** The 200 answer of an enveloped route: the success envelope with `data` (and top-level extras). */
export function successSchema(data: z.ZodType, topLevel: Record<string, z.ZodType> = {}) {
  return z.intersection(SuccessEnvelope, z.looseObject({ ...topLevel, data }));
}

/** An error answer with the error envelope. */
export function errorResponse(
  description: string,
  extra: Omit<ZodOpenApiResponseObject, "description" | "content"> = {},
): ZodOpenApiResponseObject {
  return { description, ...extra, content: { "application/json": { schema: ErrorEnvelope } } };
}

const retryAfter = (description: string) =>
  z.object({ "Retry-After": z.int().meta({ description }) });

export const responses = {
  BadRequest: errorResponse("'The request body is not valid JSON.'", { id: "BadRequest" }),
  Unauthenticated: errorResponse("'Unauthenticated.'", {
    id: "Unauthenticated",
    headers: z.object({ "WWW-Authenticate": z.string() }),
  }),
  NotFound: errorResponse("'Not found.'", { id: "NotFound" }),
  MethodNotAllowed: errorResponse("Another method than the documented ones (OPTIONS too)", {
    id: "MethodNotAllowed",
    headers: z.object({ Allow: z.string().meta({ description: "The methods this path accepts" }) }),
  }),
  PayloadTooLarge: errorResponse("'The request body is too large.' (over 64 kB)", { id: "PayloadTooLarge" }),
  UnsupportedMediaType: errorResponse("A body that is neither JSON nor form data", { id: "UnsupportedMediaType" }),
  ValidationError: {
    id: "ValidationError",
    description: "Invalid fields; errors.fields lists messages per field, message is the first one",
    content: {
      "application/json": {
        schema: ErrorEnvelope,
        example: {
          status: false,
          success: false,
          message: "The email field is required.",
          errors: {
            message: "The email field is required.",
            code: "validation_failed",
            fields: { email: ["The email field is required."], password: ["The password field is required."] },
          },
        },
      },
    },
  } satisfies ZodOpenApiResponseObject,
  TooManyRequests: errorResponse("'Too many failed sign-in attempts. Please try again in N minutes.'", {
    id: "TooManyRequests",
    headers: retryAfter("Seconds until the window ends"),
  }),
  ServerError: errorResponse("'Something went wrong.'", { id: "ServerError" }),
  CodeRequestLimited: errorResponse(
    "'Please wait N seconds before requesting a new code.' (less than 30 s since the last send for this email and purpose) or 'Too many code requests. Please try again later.' (CODE_MAX_PER_EMAIL_PER_HOUR / CODE_MAX_PER_IP_PER_HOUR reached). Identical for emails with and without an account.",
    { id: "CodeRequestLimited", headers: retryAfter("Seconds to wait") },
  ),
  CodeRejected: errorResponse(
    "Validation (errors.fields), or the code is refused (also under errors.fields for the code field): 'Invalid verification code' (a wrong try; 5 allowed), 'This code has expired. Please request a new one.' (none, used or older than 300 s), 'Too many wrong attempts. Please request a new code.' (burnt after 5 wrong tries).",
    { id: "CodeRejected" },
  ),
} satisfies Record<string, ZodOpenApiResponseObject>;

/** A 429 with Retry-After that is not one of the shared ones. */
export function rateLimited(description: string): ZodOpenApiResponseObject {
  return errorResponse(description, { headers: retryAfter("Seconds until the window ends") });
}
