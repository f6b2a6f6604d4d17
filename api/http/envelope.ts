import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import { DomainError, type ErrorCode, type FieldErrors } from "../platform/errors";
import { type Language, type Text, languageOf, localize, render } from "../platform/i18n";
import { statusOf } from "./error-status";

/*
 * Response envelopes.
 *   success: 200 {"status": true, "success": true, "message": "...", "data": ...}
 *   error:   4xx/5xx {"status": false, "success": false, "message": "Human text",
 *                     "errors": {"message": "Human text", "code": "email_taken", "fields"?: {"email": ["..."]}}}
 *   The code says what happened (api/platform/errors.ts); its status comes from api/http/error-status.ts.
 *   The messages are written in the request's language (Accept-Language: en, de, fr, es; docs/decisions/064)
 *   here, at the very end: English is what every layer wrote, exactly; another language renders the
 *   message's Text (its key and variables), and a message without one stays English.
 */

export interface SuccessBody<T> {
  status: true;
  success: true;
  message: string;
  data: T;
}

export interface ErrorBody {
  status: false;
  success: false;
  message: string;
  errors: { message: string; code: ErrorCode; fields?: FieldErrors };
}


/** The language of the request an answer goes to (its Accept-Language). */
export function requestLanguage(req: Pick<Request, "headers"> | undefined): Language {
  return languageOf(req?.headers["accept-language"]);
}

/**
 * 200 with the success envelope. `extra` adds top-level fields after `data` where a client reads
 * them there (registration's `token`). The message in the request's language.
 */
export function sendOk<T>(res: Response, data: T, message: string | Text = "OK", extra?: Record<string, unknown>): void {
  const lng = requestLanguage(res.req);
  const written = typeof message === "string" ? localize(message, lng) : render(lng, message);
  const body: SuccessBody<T> = { status: true, success: true, message: written, data };
  res.status(200).json(extra ? { ...extra, ...body } : body);
}

export function errorBody(code: ErrorCode, message: string, fields?: FieldErrors): ErrorBody {
  return {
    status: false,
    success: false,
    message,
    errors: fields ? { message, code, fields } : { message, code },
  };
}

/**
 * The error envelope with the code's status (`status` only where another library chose it), its messages
 * in the request's language: `text` is the message's own Text (a field message equal to the message uses it too).
 */
export function sendError(
  res: Response,
  code: ErrorCode,
  message: string,
  fields?: FieldErrors,
  status = statusOf(code),
  text?: Text,
): void {
  const lng = requestLanguage(res.req);
  const say = (english: string) => localize(english, lng, english === message ? text : undefined);
  const written = fields
    ? Object.fromEntries(Object.entries(fields).map(([name, list]) => [name, list.map(say)]))
    : undefined;
  res.status(status).json(errorBody(code, say(message), written));
}

/** Express 4 does not catch rejected promises; this forwards them to the error handler. */
export function asyncHandler(
  fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>,
): RequestHandler {
  return (req, res, next) => {
    fn(req, res, next).catch(next);
  };
}

const ACCEPTED_BODY_TYPES = ["application/json", "application/x-www-form-urlencoded"];

/**
 * Validates the request body with a zod schema. Throws unsupported_media_type (415) for a body in
 * another format and validation_failed (422) with per-field messages (the first one also as the
 * message) when the schema rejects it.
 */
export function parseBody<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  if (hasBody(req) && !req.is(ACCEPTED_BODY_TYPES)) {
    throw new DomainError("unsupported_media_type", "The request body must be JSON or form data.");
  }
  const result = schema.safeParse(req.body ?? {});
  if (result.success) return result.data;
  throw validationError(result.error);
}

/** validation_failed (422) with per-field messages (the first one also as the message). */
export function validationError(error: z.ZodError): DomainError {
  const fields: FieldErrors = {};
  let first: string | undefined;
  for (const issue of error.issues) {
    first ??= issue.message;
    const key = issue.path.length ? issue.path.map(String).join(".") : "body";
    const list = (fields[key] ??= []);
    if (!list.includes(issue.message)) list.push(issue.message);
  }
  return new DomainError("validation_failed", first ?? "The given data was invalid.", { fields });
}

function hasBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}
