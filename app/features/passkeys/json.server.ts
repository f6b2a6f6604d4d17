// The passkey resource routes answer the browser script in JSON (never cached).

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
