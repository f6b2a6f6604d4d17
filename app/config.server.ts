// The portal's configuration: what its loaders, actions and cookies need, validated once at boot with the
// API's (server/config.ts, docs/decisions/025) and handed over before the first request. Nothing in app/
// reads the environment itself.

export type ProviderName = "google" | "apple";

/**
 * Where each identity provider lives. Live: Google's and Apple's issuers with our credentials. Sandbox
 * (sandbox mode only): the in-process OpenID provider at /dev/oidc/{google,apple} with its published
 * test clients; the same strategy code runs against both. Absent (null): the provider is off (404).
 */
export type GoogleSettings = { mode: "live" | "sandbox"; issuer: string; clientId: string; clientSecret: string };
export type AppleSettings = {
  mode: "live" | "sandbox";
  issuer: string;
  clientId: string;
  teamId: string;
  keyId: string;
  /** PEM of the .p8 key (live); in sandbox the key is downloaded from the sandbox, as a developer would. */
  privateKeyPem?: string;
};

export interface PortalConfig {
  /** Public origin of the portal, without a trailing slash (PUBLIC_URL, else http://localhost:PORT). */
  publicUrl: string;
  /** Where the loaders call the product API: API_URL, or this process over loopback when it embeds the API. */
  apiBaseUrl: string;
  embeddedApi: boolean;
  /** How long one API call may take before the page answers 503 (API_TIMEOUT_MS). */
  apiTimeoutMs: number;
  /** SESSION_SECRET, comma-separated: the first signs, all verify, so a secret can be rotated. */
  sessionSecrets: string[];
  /** Secure (and __Host-) cookies whenever the portal is served over https. */
  secureCookies: boolean;
  /** Sandbox mode (SANDBOX=true): integrations without credentials run on stand-ins, and a banner says so. */
  sandbox: boolean;
  /** The desktop app's URL scheme: sign-in hands it the session token as <scheme>://auth?token=… */
  desktopAppScheme: string;
  /** The sign-in providers that exist here, with their clients; null when off. */
  identity: { google: GoogleSettings | null; apple: AppleSettings | null };
  /**
   * Whether /help offers its contact form: the API has a support address (SUPPORT_EMAIL, or sandbox
   * mode's own). Off, the page says the form is unavailable.
   */
  supportForm: boolean;
}

let current: PortalConfig | undefined;

/**
 * Called once at boot, before the request handler exists: by server.ts through the build's entry module
 * (app/entry.server.tsx re-exports it, so the build's own copy of this module gets it), or by a test.
 */
export function setPortalConfig(config: PortalConfig): void {
  current = config;
}

export function portalConfig(): PortalConfig {
  if (!current) throw new Error("The portal's configuration was not set: server.ts sets it at boot (setPortalConfig).");
  return current;
}
