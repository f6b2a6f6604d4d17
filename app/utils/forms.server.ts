import { parseWithZod } from "@conform-to/zod/v4";
import type { $ZodType } from "zod/v4/core";

const MAX_FORM_BYTES = 64 * 1024;

/**
 * Reads a posted form and validates it with the form's schema (the server's word is final).
 * Malformed, oversized or non-form bodies become an empty form, so they get the schema's messages
 * instead of a 500.
 */
export async function parseForm<Schema extends $ZodType>(request: Request, schema: Schema) {
  const formData = await readFormData(request);
  return { formData, submission: parseWithZod(formData, { schema }) };
}

export async function readFormData(request: Request): Promise<FormData> {
  const length = Number(request.headers.get("Content-Length") ?? "0");
  if (length > MAX_FORM_BYTES) return new FormData();
  try {
    return await request.formData();
  } catch {
    return new FormData();
  }
}
