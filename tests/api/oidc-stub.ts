/**
 * A tiny OpenID issuer for tests: serves `/{google,apple}/.well-known/openid-configuration` and
 * `/{google,apple}/jwks` on a loopback port, for keys generated here (Google RS256, Apple ES256),
 * and signs ID tokens with them. Point the API at it with GOOGLE_ISSUER / APPLE_ISSUER (honoured in
 * sandbox mode too), e.g. `useApi(kind, { env: stub.env })`.
 */
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, exportJWK, generateKeyPair } from "jose";
import { listen } from "./harness";

export type StubProvider = "google" | "apple";

export const SANDBOX_AUDIENCE: Record<StubProvider, string> = {
  google: "sandbox-google-client",
  apple: "sandbox.apple.client",
};

interface ProviderKeys {
  alg: "RS256" | "ES256";
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** Another key of the same type, NOT published (for bad signatures). */
  rogueKey: CryptoKey;
}

export interface SignOptions {
  /** Sign with the unpublished key (same kid): a bad signature. */
  rogue?: boolean;
  /** Another kid in the header. */
  kid?: string;
  /** Leave out a claim set by default (iss, aud, exp, iat, jti, sub, email, email_verified). */
  omit?: string[];
}

export interface OidcStub {
  baseUrl: string;
  issuer(provider: StubProvider): string;
  /** GOOGLE_ISSUER and APPLE_ISSUER for loadApiConfig. */
  env: Record<string, string>;
  /**
   * An ID token from `provider` for the sandbox client: iss, aud, iat, exp (+10 min), jti (random,
   * as real providers' tokens carry one), sub, email and email_verified (true; "true" for Apple) by
   * default; `claims` overrides or adds.
   */
  sign(provider: StubProvider, claims?: JWTPayload & Record<string, unknown>, opts?: SignOptions): Promise<string>;
  /** How many times each path was fetched. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

async function providerKeys(alg: "RS256" | "ES256", kid: string): Promise<ProviderKeys> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const rogue = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg, use: "sig" };
  return { alg, kid, privateKey: pair.privateKey, publicJwk, rogueKey: rogue.privateKey };
}

export async function startOidcStub(): Promise<OidcStub> {
  const keys: Record<StubProvider, ProviderKeys> = {
    google: await providerKeys("RS256", "google-key-1"),
    apple: await providerKeys("ES256", "apple-key-1"),
  };
  const hits = new Map<string, number>();
  let baseUrl = "";
  const server = await listen((req, res) => {
    const path = (req.url ?? "").split("?")[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const match = /^\/(google|apple)\/(\.well-known\/openid-configuration|jwks)$/.exec(path);
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const provider = match[1] as StubProvider;
    const issuer = `${baseUrl}/${provider}`;
    const body =
      match[2] === "jwks"
        ? { keys: [keys[provider].publicJwk] }
        : {
            issuer,
            authorization_endpoint: `${issuer}/auth`,
            token_endpoint: `${issuer}/token`,
            jwks_uri: `${issuer}/jwks`,
            id_token_signing_alg_values_supported: [keys[provider].alg],
          };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  baseUrl = `http://127.0.0.1:${server.port}`;
  const issuer = (provider: StubProvider) => `${baseUrl}/${provider}`;

  return {
    baseUrl,
    issuer,
    env: { GOOGLE_ISSUER: issuer("google"), APPLE_ISSUER: issuer("apple") },
    hits,
    async sign(provider, claims = {}, opts = {}) {
      const k = keys[provider];
      const now = Math.floor(Date.now() / 1000);
      const defaults: Record<string, unknown> = {
        iss: issuer(provider),
        aud: SANDBOX_AUDIENCE[provider],
        iat: now,
        exp: now + 600,
        jti: `${provider}-jti-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`,
        sub: `${provider}-sub-${Math.random().toString(36).slice(2)}`,
        email: "someone@example.com",
        email_verified: provider === "apple" ? "true" : true,
      };
      const payload: Record<string, unknown> = { ...defaults, ...claims };
      for (const name of opts.omit ?? []) delete payload[name];
      for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
      return new SignJWT(payload as JWTPayload)
        .setProtectedHeader({ alg: k.alg, kid: opts.kid ?? k.kid, typ: "JWT" })
        .sign(opts.rogue ? k.rogueKey : k.privateKey);
    },
    close: () => server.close(),
  };
}
