import { PASSKEY_CLIENT_MESSAGES } from "./passkey-messages";

// The browser side of passkeys: @simplewebauthn/browser is loaded only when a passkey is used (a
// dynamic import), so pages pay nothing for it until then.

export function loadWebAuthn() {
  return import("@simplewebauthn/browser");
}

/** Whether the browser offers passkeys in autofill (conditional mediation), asked without the library. */
export async function conditionalMediationAvailable(): Promise<boolean> {
  const credential = typeof window === "undefined" ? undefined : (window.PublicKeyCredential as { isConditionalMediationAvailable?: () => Promise<boolean> } | undefined);
  return typeof credential?.isConditionalMediationAvailable === "function" ? credential.isConditionalMediationAvailable() : false;
}

export function browserHasWebAuthn(): boolean {
  return typeof window !== "undefined" && typeof window.PublicKeyCredential === "function";
}

/** POSTs JSON to one of the portal's passkey routes (GETs without a body); the answer's JSON, or { error }. */
export async function postJson(url: string, body?: unknown, method: "GET" | "POST" = "POST"): Promise<{ ok: boolean; data: Record<string, unknown> }> {
  try {
    const response = await fetch(
      url,
      method === "GET"
        ? { headers: { Accept: "application/json" }, credentials: "same-origin", cache: "no-store" }
        : { method, headers: { "Content-Type": "application/json", Accept: "application/json" }, body: JSON.stringify(body ?? {}), credentials: "same-origin" },
    );
    const data = (await response.json().catch(() => ({ error: PASSKEY_CLIENT_MESSAGES.failed }))) as Record<string, unknown>;
    return { ok: response.ok, data };
  } catch {
    return { ok: false, data: { error: PASSKEY_CLIENT_MESSAGES.failed } };
  }
}

/** What to tell the person when the browser's ceremony failed (null: it was aborted on purpose). */
export function ceremonyError(error: unknown): string | null {
  const name = error instanceof Error ? error.name : "";
  const code = (error as { code?: string } | null)?.code;
  if (name === "AbortError" || code === "ERROR_CEREMONY_ABORTED") return null;
  if (name === "NotAllowedError") return PASSKEY_CLIENT_MESSAGES.cancelled;
  if (name === "InvalidStateError") return "This passkey is already registered.";
  return PASSKEY_CLIENT_MESSAGES.failed;
}
