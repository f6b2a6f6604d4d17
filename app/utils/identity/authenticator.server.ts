import crypto from "node:crypto";
import { createCookie } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { CodeChallengeMethod, OAuth2RequestError, OAuth2Strategy } from "remix-auth-oauth2";
import type { ApiSchemas } from "../api.server";
import { portalConfig } from "../../config.server";
import { appleSigningKey, AppleStrategy, createAppleClientSecret } from "./apple-strategy.server";
import { displayName, IdentityError, type SocialProfile } from "./common.server";
import { IdTokenError, verifyIdToken } from "./id-token.server";
import { appleSettings, callbackUrl, discover, googleSettings, type ProviderName } from "./providers.server";

// remix-auth keeps no session (v4): these helpers start a provider flow with the intent it serves
// (sign in, connect to the signed-in account, or hand a token to the desktop app) and finish it.

/** The device fields of a desktop sign-in, as the API's sign-in body takes them. */
export type DeviceFields = Pick<
  ApiSchemas["ThirdPartyLoginRequest"],
  "device_os" | "device_brand" | "device_model" | "device_os_version"
>;
export type OAuthIntent =
  | { kind: "signin"; oldurl: string }
  | { kind: "connect" }
  | { kind: "desktop"; device: DeviceFields };

/**
 * The ID token's nonce is bound to the flow's state with our secret: the callback recomputes it from
 * the state the strategy has already matched against its cookie, so no extra storage is needed.
 */
function nonceFor(state: string) {
  return crypto.createHmac("sha256", portalConfig().sessionSecrets[0]!).update(`oidc-nonce:${state}`).digest("base64url");
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

// One authenticator; each provider's strategy is built (discovery, keys) when first used, so one
// provider being unreachable never blocks the other.
const authenticator = new Authenticator<SocialProfile>();
const strategies = new Map<ProviderName, Promise<void>>();

async function buildGoogle() {
  const env = portalConfig();
  const google = googleSettings();
  const discovery = await discover(google.issuer);
  authenticator.use(
    new GoogleStrategy<SocialProfile>(
      {
        cookie: { name: GOOGLE_STATE_COOKIE, path: "/auth/google", httpOnly: true, sameSite: "Lax", maxAge: 600, ...(env.secureCookies ? { secure: true as const } : {}) },
        clientId: google.clientId,
        clientSecret: google.clientSecret,
        authorizationEndpoint: discovery.authorization_endpoint,
        tokenEndpoint: discovery.token_endpoint,
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
}

async function buildApple() {
  const env = portalConfig();
  const apple = appleSettings();
  const discovery = await discover(apple.issuer);
  let signingKey: Promise<Awaited<ReturnType<typeof appleSigningKey>>> | undefined;
  authenticator.use(
    new AppleStrategy<SocialProfile>(
      {
        settings: apple,
        discovery,
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
}

async function strategyFor(provider: ProviderName) {
  let ready = strategies.get(provider);
  if (!ready) {
    ready = (provider === "google" ? buildGoogle() : buildApple()).catch((error: unknown) => {
      strategies.delete(provider);
      throw error;
    });
    strategies.set(provider, ready);
  }
  await ready;
  return authenticator;
}

let intentCookie: ReturnType<typeof createCookie> | undefined;
function oauthIntentCookie() {
  const env = portalConfig();
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

type StoredIntent = { state: string; intent: OAuthIntent };

/**
 * Sends the browser to the provider; the returned redirect also remembers what the flow is for,
 * bound to the flow's state so that another tab or site starting a flow cannot change its purpose.
 */
export async function startProviderFlow(provider: ProviderName, request: Request, intent: OAuthIntent): Promise<Response> {
  try {
    await (await strategyFor(provider)).authenticate(provider, request);
  } catch (thrown) {
    if (thrown instanceof Response && thrown.status >= 300 && thrown.status < 400) {
      const state = new URL(thrown.headers.get("Location") ?? "", "http://x").searchParams.get("state") ?? "";
      thrown.headers.append("Set-Cookie", await oauthIntentCookie().serialize({ state, intent } satisfies StoredIntent));
      return thrown;
    }
    throw thrown;
  }
  throw new IdentityError("auth.error.loginFailed");
}

async function readStoredIntent(request: Request): Promise<StoredIntent | null> {
  const value = (await oauthIntentCookie().parse(request.headers.get("Cookie"))) as StoredIntent | null;
  return value && typeof value === "object" && typeof value.state === "string" && value.intent ? value : null;
}

/** What the flow in this browser was started for, if it is still known. */
export async function readIntent(request: Request): Promise<OAuthIntent | null> {
  return (await readStoredIntent(request))?.intent ?? null;
}

/** The state the provider answered with: in the query (Google) or the posted form (Apple). */
async function answeredState(request: Request) {
  const fromQuery = new URL(request.url).searchParams.get("state");
  if (fromQuery || request.method !== "POST") return fromQuery ?? "";
  const form = await request.formData().catch(() => new FormData());
  const state = form.get("state");
  return typeof state === "string" ? state : "";
}

/** Completes the provider's answer: the verified profile and the intent, or an IdentityError. */
export async function finishProviderFlow(provider: ProviderName, request: Request) {
  const stored = await readStoredIntent(request);
  if (!stored?.state || stored.state !== (await answeredState(request.clone()))) {
    throw new IdentityError("auth.social.stateMismatch");
  }
  const intent = stored.intent;
  try {
    const profile = await (await strategyFor(provider)).authenticate(provider, request);
    return { profile, intent };
  } catch (error) {
    if (error instanceof IdentityError) throw error;
    if (error instanceof IdTokenError) throw new IdentityError(error.message);
    if (error instanceof OAuth2RequestError) throw IdentityError.fromProvider(error.code);
    if (error instanceof ReferenceError || error instanceof RangeError) {
      throw new IdentityError("auth.social.stateMismatch");
    }
    console.error(`${provider} sign-in failed:`, error instanceof Error ? error.message : error);
    throw new IdentityError("auth.error.loginFailed");
  }
}

/**
 * Set-Cookie values that forget a finished flow, so its state and PKCE verifier cannot be replayed.
 * remix-auth-oauth2 names its state cookies `<name>:<uuid>`, one per started flow.
 */
export async function clearFlowCookies(request: Request): Promise<string[]> {
  const googleStates = (request.headers.get("Cookie") ?? "")
    .split(";")
    .map((pair) => pair.trim().split("=")[0] ?? "")
    .filter((name) => name === GOOGLE_STATE_COOKIE || name.startsWith(`${GOOGLE_STATE_COOKIE}:`));
  // The same flags as when they were set (Secure over https; Apple's state is SameSite=None there).
  const { secureCookies } = portalConfig();
  const secure = secureCookies ? "; Secure" : "";
  return [
    await oauthIntentCookie().serialize("", { maxAge: 0 }),
    ...googleStates.map((name) => `${name}=; Path=/auth/google; Max-Age=0; HttpOnly; SameSite=Lax${secure}`),
    `__apple_state=; Path=/auth/apple; Max-Age=0; HttpOnly; SameSite=${secureCookies ? "None" : "Lax"}${secure}`,
  ];
}

export type FlowOutcome = { profile: SocialProfile; intent: OAuthIntent } | { error: string; intent: OAuthIntent | null };

let outcomeCookie: ReturnType<typeof createCookie> | undefined;
/**
 * Apple's answer is a cross-site POST, which carries no SameSite=Lax cookie — not the session. The
 * POST only verifies; its outcome rides this short-lived, same-site cookie to a GET of the same
 * callback, where the session is there to connect an account or go back to the right page.
 */
function flowOutcomeCookie() {
  const env = portalConfig();
  outcomeCookie ??= createCookie("__oauth_outcome", {
    httpOnly: true,
    path: "/auth",
    maxAge: 120,
    sameSite: "lax",
    secure: env.secureCookies,
    secrets: env.sessionSecrets,
  });
  return outcomeCookie;
}

export function stashFlowOutcome(outcome: FlowOutcome) {
  return flowOutcomeCookie().serialize(outcome);
}

export async function takeFlowOutcome(request: Request): Promise<{ outcome: FlowOutcome | null; clear: string }> {
  const outcome = (await flowOutcomeCookie().parse(request.headers.get("Cookie"))) as FlowOutcome | null;
  return { outcome: outcome && typeof outcome === "object" ? outcome : null, clear: await flowOutcomeCookie().serialize("", { maxAge: 0 }) };
}
