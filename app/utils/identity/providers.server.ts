import { type AppleSettings, type GoogleSettings, portalConfig, type ProviderName } from "../../config.server";

// Where each identity provider lives and our client there come from the configuration (app/config.server.ts):
// live credentials, or the in-process OpenID sandbox's published test clients. Off: 404.

export type { AppleSettings, GoogleSettings, ProviderName };
export type AuthMethod = "GOOGLE" | "APPLE";

export function googleSettings(): GoogleSettings {
  const google = portalConfig().identity.google;
  if (!google) throw new Response("Not Found", { status: 404 });
  return google;
}

export function appleSettings(): AppleSettings {
  const apple = portalConfig().identity.apple;
  if (!apple) throw new Response("Not Found", { status: 404 });
  return apple;
}

export function callbackUrl(provider: ProviderName) {
  return `${portalConfig().publicUrl}/auth/${provider}/callback`;
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
