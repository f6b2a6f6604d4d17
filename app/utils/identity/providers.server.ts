import { getEnv } from "../env.server";

// Where each identity provider lives. Live: Google's and Apple's issuers with our credentials.
// Sandbox (sandbox mode only): the in-process OpenID provider (api/sandboxes/identity) at /dev/oidc/{google,apple},
// with its published test clients — the same strategy code runs against both. Off: 404.

export type ProviderName = "google" | "apple";
export type AuthMethod = "GOOGLE" | "APPLE";

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

export function googleSettings(): GoogleSettings {
  const env = getEnv();
  if (env.identity.google === "off") throw new Response("Not Found", { status: 404 });
  if (env.GOOGLE_CLIENT_ID) {
    return { mode: "live", issuer: env.GOOGLE_ISSUER, clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET ?? "" };
  }
  return {
    mode: "sandbox",
    issuer: `${env.publicUrl}/dev/oidc/google`,
    clientId: "sandbox-google-client",
    clientSecret: "sandbox-google-secret",
  };
}

export function appleSettings(): AppleSettings {
  const env = getEnv();
  if (env.identity.apple === "off") throw new Response("Not Found", { status: 404 });
  if (env.APPLE_CLIENT_ID) {
    return {
      mode: "live",
      issuer: env.APPLE_ISSUER,
      clientId: env.APPLE_CLIENT_ID,
      teamId: env.APPLE_TEAM_ID ?? "",
      keyId: env.APPLE_KEY_ID ?? "",
      privateKeyPem: env.APPLE_PRIVATE_KEY?.replace(/\\n/g, "\n"),
    };
  }
  return { mode: "sandbox", issuer: `${env.publicUrl}/dev/oidc/apple`, clientId: "sandbox.apple.client", teamId: "SANDBOXTEAM", keyId: "SANDBOXKEY" };
}

export function callbackUrl(provider: ProviderName) {
  return `${getEnv().publicUrl}/auth/${provider}/callback`;
}

export type Discovery = {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
};

const discoveries = new Map<string, Promise<Discovery>>();

/** The issuer's OpenID configuration, fetched once per process (a failed fetch is retried next time). */
export function discover(issuer: string): Promise<Discovery> {
  let pending = discoveries.get(issuer);
  if (!pending) {
    pending = fetch(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(5_000) })
      .then(async (response) => {
        if (!response.ok) throw new Error(`Discovery of ${issuer} answered ${response.status}`);
        return (await response.json()) as Discovery;
      })
      .catch((error: unknown) => {
        discoveries.delete(issuer);
        throw error;
      });
    discoveries.set(issuer, pending);
  }
  return pending;
}
