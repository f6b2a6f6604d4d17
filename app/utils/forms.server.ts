import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import type { $ZodType } from "zod/v4/core";
import { type ApiErrorCode, CODE_REFUSED } from "./api.server";

const MAX_FORM_BYTES = 64 * 1024;

/**
 * Reads a posted form. Malformed, oversized or non-form bodies become an empty form, so they get the
 * schema's messages instead of a 500.
 */
export async function readFormData(request: Request): Promise<FormData> {
  const length = Number(request.headers.get("Content-Length") ?? "0");
  if (length > MAX_FORM_BYTES) return new FormData();
  try {
    return await request.formData();
  } catch {
    return new FormData();
  }
}

/** Validates a form with its schema (the server's word is final). */
export function parseSubmission<Schema extends $ZodType>(formData: FormData, schema: Schema) {
  return parseWithZod(formData, { schema });
}

type Replyable = {
  reply(options?: { hideFields?: string[]; formErrors?: string[]; fieldErrors?: Record<string, string[]>; resetForm?: boolean }): unknown;
};

const SECRET_FIELDS = ["password", "confirmPassword", "password_confirmation", "code", "verification_code", "recovery_code", "authentication_code"];

/** The status of a refused form: the API's 4xx as it is; anything else (a 5xx, the API unreachable) 503. */
export function failureStatus(status: number): number {
  return status >= 400 && status < 500 ? status : 503;
}

/**
 * What an action answers when a form cannot go through: the field errors (`result`, for conform; none
 * without a submission) and, when the server refused it, its message (`serverError`, shown as a toast).
 * Secrets are never echoed back into the HTML (`hideFields` replaces the list for a form without
 * secrets). `fieldErrors` puts the API's refusal next to its fields. `form` names which of the page's
 * forms this belongs to. `errorAt` also puts `serverError` in the page, where it stays after the toast
 * has closed (issue 21): next to that field, or with "" in the form's alert (conform's form errors).
 */
export function formFailure(
  form: string,
  submission: Replyable | null,
  serverError: string | null = null,
  status = 400,
  options: { fieldErrors?: Record<string, string[]>; hideFields?: string[]; headers?: HeadersInit; errorAt?: string } = {},
) {
  const { hideFields = SECRET_FIELDS, headers, errorAt } = options;
  let { fieldErrors } = options;
  let formErrors: string[] | undefined;
  const inPage = serverError !== null && errorAt !== undefined && submission !== null;
  if (inPage && errorAt === "") formErrors = [serverError];
  else if (inPage) fieldErrors = { ...fieldErrors, [errorAt]: [serverError] };
  return data(
    {
      form,
      result: submission?.reply({ hideFields, ...(fieldErrors ? { fieldErrors } : {}), ...(formErrors ? { formErrors } : {}) }),
      serverError,
      serverErrorInPage: inPage,
    },
    { status: failureStatus(status), headers },
  );
}

/** Where a refused code's message goes: next to the code's field when the API refused the code itself, else in the form's alert. */
export function codeErrorAt(result: { code: ApiErrorCode | null }, field: string): string {
  return result.code && CODE_REFUSED.has(result.code) ? field : "";
}

export type FormFailure = { form: string; result: unknown; serverError: string | null; serverErrorInPage?: boolean };
