import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "@remix-run/node";
import type { $ZodType } from "zod/v4/core";

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

type Replyable = { reply(options?: { hideFields?: string[]; formErrors?: string[]; resetForm?: boolean }): unknown };

const SECRET_FIELDS = ["password", "confirmPassword", "password_confirmation", "code", "verification_code"];

/**
 * What an action answers when a form cannot go through: the field errors (`result`, for conform) and,
 * when the server refused it, its message (`serverError`, shown as a toast). Secrets are never echoed
 * back into the HTML. `form` names which of the page's forms this belongs to.
 */
export function formFailure(form: string, submission: Replyable, serverError: string | null = null, status = 400) {
  return data(
    { form, result: submission.reply({ hideFields: SECRET_FIELDS }), serverError },
    { status: status >= 400 && status < 500 ? status : 503 },
  );
}

export type FormFailure = { form: string; result: unknown; serverError: string | null };
