import crypto from "node:crypto";
import { createCookie } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { CodeChallengeMethod, OAuth2RequestError, OAuth2Strategy } from "remix-auth-oauth2";
import { getEnv } from "../env.server";
import { appleSigningKey, AppleStrategy, createAppleClientSecret } from "./apple-strategy.server";
import { displayName, IdentityError, type SocialProfile } from "./common.server";
import { IdTokenError, verifyIdToken } from "./id-token.server";
import { appleSettings, callbackUrl, discover, googleSettings, type ProviderName } from "./providers.server";

// remix-auth keeps no session (v4): these helpers start a provider flow with the intent it serves
// (sign in, connect to the signed-in account, or hand a token to the desktop app) and finish it.

export type DeviceFields = { device_os?: string; device_brand?: string; device_model?: string; device_os_version?: string };
export type OAuthIntent =
  | { kind: "signin"; oldurl: string }
  | { kind: "connect" }
  | { kind: "desktop"; device: DeviceFields };

/**
 * The ID token's nonce is bound to the flow's state with our secret: the callback recomputes it from
 * the state the strategy has already matched against its cookie, so no extra storage is needed.
 */
function nonceFor(state: string) {
  return crypto.createHmac("sha256", getEnv().sessionSecrets[0]!).update(`oidc-nonce:${state}`).digest("base64url");
}

class GoogleStrategy<User> extends OAuth2Strategy<User> {
  override name = "google";
  constructor(
    options: OAuth2Strategy.ConstructorOptions,
    verify: ConstructorParameters<typeof OAuth2Strategy<User>>[1],
    private readonly live: boolean,
  ) {
    super(options, verify);
  }
  protected override authorizationParams(params: URLSearchParams): URLSearchParams {
    params.set("nonce", nonceFor(params.get("state") ?? ""));
    // Real Google: let people with several accounts choose one (the sandbox always asks anyway).
    if (this.live) params.set("prompt", "select_account");
    return params;
  }
}

const GOOGLE_STATE_COOKIE = "__google_oauth";

let authenticator: Promise<Authenticator<SocialProfile>> | undefined;

async function buildAuthenticator() {
  const env = getEnv();
  const google = googleSettings();
  const apple = appleSettings();
  const [googleDiscovery, appleDiscovery] = await Promise.all([discover(google.issuer), discover(apple.issuer)]);
  const auth = new Authenticator<SocialProfile>();

  auth.use(
    new GoogleStrategy<SocialProfile>(
      {
        cookie: { name: GOOGLE_STATE_COOKIE, path: "/auth/google", httpOnly: true, sameSite: "Lax", maxAge: 600, ...(env.secureCookies ? { secure: true as const } : {}) },
        clientId: google.clientId,
        clientSecret: google.clientSecret,
        authorizationEndpoint: googleDiscovery.authorization_endpoint,
        tokenEndpoint: googleDiscovery.token_endpoint,
        redirectURI: callbackUrl("google"),
        scopes: ["openid", "email", "profile"],
        codeChallengeMethod: CodeChallengeMethod.S256,
      },
      async ({ tokens, request }) => {
        const state = new URL(request.url).searchParams.get("state") ?? "";
        const idToken = tokens.idToken();
        const profile = await verifyIdToken(idToken, { issuer: google.issuer, audience: google.clientId, nonce: nonceFor(state) });
        return { authMethod: "GOOGLE", idToken, email: profile.email, name: displayName(profile.name, profile.email) };
      },
      google.mode === "live",
    ),
    "google",
  );

  let signingKey: Promise<Awaited<ReturnType<typeof appleSigningKey>>> | undefined;
  auth.use(
    new AppleStrategy<SocialProfile>(
      {
        settings: apple,
        discovery: appleDiscovery,
        redirectURI: callbackUrl("apple"),
        nonceFor,
        secrets: env.sessionSecrets,
        secure: env.secureCookies,
        clientSecret: async () => {
          signingKey ??= appleSigningKey(apple).catch((error: unknown) => {
            signingKey = undefined;
            throw error;
          });
          return createAppleClientSecret({ teamId: apple.teamId, clientId: apple.clientId, keyId: apple.keyId, audience: apple.issuer, privateKey: await signingKey });
        },
      },
      async ({ idToken, email, name }) => ({ authMethod: "APPLE", idToken, email, name: displayName(name, email) }),
    ),
    "apple",
  );
  return auth;
}

function getAuthenticator() {
  authenticator ??= buildAuthenticator().catch((error: unknown) => {
    authenticator = undefined;
    throw error;
  });
  return authenticator;
}

let intentCookie: ReturnType<typeof createCookie> | undefined;
function oauthIntentCookie() {
  const env = getEnv();
  // Apple's callback is a cross-site POST: over https this cookie must be SameSite=None to come back.
  intentCookie ??= createCookie("__oauth_intent", {
    httpOnly: true,
    path: "/",
    maxAge: 600,
    secrets: env.sessionSecrets,
    sameSite: env.secureCookies ? "none" : "lax",
    secure: env.secureCookies,
  });
  return intentCookie;
}

/** Sends the browser to the provider; the returned redirect also remembers what the flow is for. */
export async function startProviderFlow(provider: ProviderName, request: Request, intent: OAuthIntent): Promise<Response> {
  try {
    await (await getAuthenticator()).authenticate(provider, request);
  } catch (thrown) {
    if (thrown instanceof Response && thrown.status >= 300 && thrown.status < 400) {
      thrown.headers.append("Set-Cookie", await oauthIntentCookie().serialize(intent));
      return thrown;
    }
    throw thrown;
  }
  throw new IdentityError("Login failed");
}

/** What the flow in this browser was started for, if it is still known. */
export async function readIntent(request: Request): Promise<OAuthIntent | null> {
  const value = (await oauthIntentCookie().parse(request.headers.get("Cookie"))) as OAuthIntent | null;
  return value && typeof value === "object" && "kind" in value ? value : null;
}

/** Completes the provider's answer: the verified profile and the intent, or an IdentityError. */
export async function finishProviderFlow(provider: ProviderName, request: Request) {
  const intent: OAuthIntent = (await readIntent(request)) ?? { kind: "signin", oldurl: "" };
  try {
    const profile = await (await getAuthenticator()).authenticate(provider, request);
    return { profile, intent };
  } catch (error) {
    if (error instanceof IdentityError) throw error;
    if (error instanceof IdTokenError) throw new IdentityError(error.message);
    if (error instanceof OAuth2RequestError) throw IdentityError.fromProvider(error.code);
    if (error instanceof ReferenceError || error instanceof RangeError) {
      throw new IdentityError("Your sign-in took too long or was started in another browser. Please try again.");
    }
    console.error(`${provider} sign-in failed:`, error instanceof Error ? error.message : error);
    throw new IdentityError("Login failed");
  }
}

/** Set-Cookie values that forget a finished flow. */
export async function clearFlowCookies(): Promise<string[]> {
  return [
    await oauthIntentCookie().serialize("", { maxAge: 0 }),
    `${GOOGLE_STATE_COOKIE}=; Path=/auth/google; Max-Age=0; HttpOnly; SameSite=Lax`,
    `__apple_state=; Path=/auth/apple; Max-Age=0; HttpOnly`,
  ];
}
