import { PASSKEY_CLIENT_MESSAGES } from "./passkey-client-messages";

// The browser side of passkeys: @simplewebauthn/browser is loaded only when a passkey is used (a
// dynamic import), so pages pay nothing for it until then; sign-in uses the browser's own WebAuthn JSON
// methods where it has them, and never loads it there.

export function loadWebAuthn() {
  return import("@simplewebauthn/browser");
}

type PasskeyAssertion = (optionsJSON: PublicKeyCredentialRequestOptionsJSON, autofill: boolean) => Promise<unknown>;
let cancelPending: (() => void) | undefined;

/**
 * What asks the browser for a sign-in passkey and answers the AuthenticationResponseJSON. Current browsers
 * that offer passkeys in autofill also parse and serialise WebAuthn's JSON themselves
 * (parseRequestOptionsFromJSON, toJSON), so /login, whose autofill request starts with the page, loads
 * the library only where those are missing (older ones). A new request ends the pending one (the autofill request when
 * the button is pressed).
 */
export async function passkeyAssertion(): Promise<PasskeyAssertion> {
  const credential = window.PublicKeyCredential;
  if (typeof credential.parseRequestOptionsFromJSON === "function" && typeof credential.prototype.toJSON === "function") {
    return async (optionsJSON, autofill) => {
      cancelPending?.();
      const controller = new AbortController();
      cancelPending = () => controller.abort();
      const answer = await navigator.credentials.get({
        publicKey: credential.parseRequestOptionsFromJSON(optionsJSON),
        mediation: autofill ? "conditional" : "optional",
        signal: controller.signal,
      });
      return (answer as PublicKeyCredential).toJSON();
    };
  }
  const { startAuthentication, WebAuthnAbortService } = await loadWebAuthn();
  return (optionsJSON, autofill) => {
    cancelPending = () => WebAuthnAbortService.cancelCeremony();
    // biome-ignore lint/suspicious/noExplicitAny: the DOM's and SimpleWebAuthn's optionsJSON types differ only in name.
    return startAuthentication({ optionsJSON: optionsJSON as any, useBrowserAutofill: autofill });
  };
}

/** Ends a pending sign-in request (the page is left). */
export function cancelPasskeyRequest() {
  cancelPending?.();
  cancelPending = undefined;
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

/** What to tell the person when the browser's ceremony failed, a catalogue key (null: it was aborted on purpose). */
export function ceremonyError(error: unknown): string | null {
  const name = error instanceof Error ? error.name : "";
  const code = (error as { code?: string } | null)?.code;
  if (name === "AbortError" || code === "ERROR_CEREMONY_ABORTED") return null;
  if (name === "NotAllowedError") return PASSKEY_CLIENT_MESSAGES.cancelled;
  if (name === "InvalidStateError") return PASSKEY_CLIENT_MESSAGES.alreadyRegistered;
  return PASSKEY_CLIENT_MESSAGES.failed;
}
