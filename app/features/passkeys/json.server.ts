import { writeFlow } from "~/utils/flow.server";
import { formErrorCookieHeader } from "~/utils/form-error.server";
import { PASSKEY_CONFIRM_FORM } from "./passkey-messages";

// The passkey resource routes answer the browser script in JSON (never cached).

const SECURITY_PAGE = "/account/security";

const MAX_JSON_BYTES = 64 * 1024;

/** A JSON answer, private and never stored. */
export function jsonAnswer(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Cache-Control", "private, no-store");
  return Response.json(body, { status: init.status ?? 200, headers });
}

/** A refusal the script shows: `error` for the person, `field` when it belongs to one. */
export function jsonError(status: number, error: string, field?: string): Response {
  return jsonAnswer(field ? { error, field } : { error }, { status: status >= 400 && status < 600 ? status : 400 });
}

/** The request's JSON object, or null when it is missing, too large or not an object. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown> | null> {
  const length = Number(request.headers.get("Content-Length") ?? "0");
  if (!Number.isFinite(length) || length > MAX_JSON_BYTES) return null;
  try {
    const text = await request.text();
    if (text.length > MAX_JSON_BYTES) return null;
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The API's 'confirm first' (code confirmation_required: the 5 minutes after 'Continue' are over, or
 * the confirmation was used): the 'Add a passkey' flow starts again, its form's alert saying why.
 * The script reloads the page's data when it sees `restart`.
 */
export async function restartAnswer(request: Request, message: string): Promise<Response> {
  const headers = new Headers();
  headers.append("Set-Cookie", await writeFlow(request, "passkeyAdd", undefined));
  headers.append("Set-Cookie", await formErrorCookieHeader(SECURITY_PAGE, message, { form: PASSKEY_CONFIRM_FORM }));
  return jsonAnswer({ error: message, restart: true }, { status: 403, headers });
}
