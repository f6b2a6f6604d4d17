import { createCookie, redirect } from "@remix-run/node";
import { importJWK, importPKCS8, SignJWT, type CryptoKey } from "jose";
import { Strategy } from "remix-auth/strategy";
import { IdentityError, randomToken } from "./common.server";
import { verifyIdToken } from "./id-token.server";
import type { AppleSettings, Discovery } from "./providers.server";

/**
 * Sign in with Apple. It differs from plain OAuth 2.0: with the name and email scopes it answers by a
 * cross-site POST (response_mode=form_post), sends the user's name only on the first authorization
 * (in a `user` form field, never in the ID token), and its client secret is an ES256 JWT we sign.
 */
export type AppleVerifyParams = { idToken: string; email: string; name: string | null; subject: string };

export type AppleClientSecret = () => Promise<string>;

/** The ES256 client secret Apple expects: iss = team id, sub = client id, aud = Apple, signed with the .p8 key. */
export async function createAppleClientSecret(options: {
  teamId: string;
  clientId: string;
  keyId: string;
  audience: string;
  privateKey: CryptoKey | Uint8Array;
}): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: options.keyId })
    .setIssuer(options.teamId)
    .setSubject(options.clientId)
    .setAudience(options.audience)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(options.privateKey);
}

/** Loads the signing key: the configured .p8 PEM when live; the sandbox publishes a test key. */
export async function appleSigningKey(settings: AppleSettings): Promise<CryptoKey | Uint8Array> {
  if (settings.privateKeyPem) return importPKCS8(settings.privateKeyPem, "ES256");
  const response = await fetch(`${settings.issuer}/developer-key.json`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`The Apple sandbox did not hand out its developer key (${response.status})`);
  return importJWK(await response.json(), "ES256");
}

export class AppleStrategy<User> extends Strategy<User, AppleVerifyParams> {
  name = "apple";

  private readonly stateCookie;

  constructor(
    private readonly options: {
      settings: AppleSettings;
      discovery: Discovery;
      redirectURI: string;
      /** Replaceable, so tests and key rotation can supply their own. */
      clientSecret: AppleClientSecret;
      nonceFor: (state: string) => string;
      secrets: string[];
      secure: boolean;
    },
    verify: Strategy.VerifyFunction<User, AppleVerifyParams>,
  ) {
    super(verify);
    // Apple's answer is a cross-site POST: over https the state cookie must be SameSite=None to come back.
    this.stateCookie = createCookie("__apple_state", {
      httpOnly: true,
      path: "/auth/apple",
      maxAge: 600,
      secrets: options.secrets,
      sameSite: options.secure ? "none" : "lax",
      secure: options.secure,
    });
  }

  async authenticate(request: Request): Promise<User> {
    const url = new URL(request.url);
    if (!url.pathname.endsWith("/callback")) throw await this.start();
    return this.callback(request);
  }

  private async start(): Promise<Response> {
    const { settings, discovery, redirectURI } = this.options;
    const state = randomToken();
    const authorize = new URL(discovery.authorization_endpoint);
    authorize.search = new URLSearchParams({
      response_type: "code",
      response_mode: "form_post",
      client_id: settings.clientId,
      redirect_uri: redirectURI,
      // Apple's scopes are "name email"; the sandbox, a plain OpenID provider, also wants "openid".
      scope: settings.mode === "live" ? "name email" : "openid name email",
      state,
      nonce: this.options.nonceFor(state),
    }).toString();
    return redirect(authorize.toString(), { headers: { "Set-Cookie": await this.stateCookie.serialize(state) } });
  }

  private async callback(request: Request): Promise<User> {
    const form = await request.formData().catch(() => new FormData());
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === "string" ? value : "";
    };
    const expectedState = (await this.stateCookie.parse(request.headers.get("Cookie"))) as string | null;
    const state = field("state");
    if (!expectedState || !state || expectedState !== state) {
      throw new IdentityError("auth.social.stateMismatch");
    }
    if (field("error")) throw IdentityError.fromProvider(field("error"));
    const code = field("code");
    if (!code) throw new IdentityError("auth.social.appleIncomplete");

    const { settings, discovery, redirectURI } = this.options;
    const response = await fetch(discovery.token_endpoint, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectURI,
        client_id: settings.clientId,
        client_secret: await this.options.clientSecret(),
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const tokens = (await response.json().catch(() => ({}))) as { id_token?: string; error?: string };
    if (!response.ok || !tokens.id_token) throw IdentityError.fromProvider(tokens.error ?? "server_error");

    const profile = await verifyIdToken(tokens.id_token, {
      issuer: settings.issuer,
      audience: settings.clientId,
      nonce: this.options.nonceFor(state),
    });
    return this.verify({ idToken: tokens.id_token, email: profile.email, subject: profile.subject, name: nameFromAppleUser(field("user")) });
  }
}

/** Apple's first-time `user` field: {"name":{"firstName":"…","lastName":"…"},"email":"…"}. */
export function nameFromAppleUser(raw: string): string | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as { name?: { firstName?: unknown; lastName?: unknown } };
    const parts = [parsed.name?.firstName, parsed.name?.lastName].filter((part): part is string => typeof part === "string" && part.trim() !== "");
    return parts.length ? parts.join(" ").trim() : null;
  } catch {
    return null;
  }
}
