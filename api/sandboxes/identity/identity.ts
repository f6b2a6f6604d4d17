/*
 * Identity sandbox (DESIGN §2): a real OpenID Connect provider (oidc-provider 9) served in-process
 * that stands in for Google and for Sign in with Apple while their credentials are not configured.
 *
 *   Google stand-in  {publicUrl}/dev/oidc/google   code flow, PKCE accepted, client_secret_post or
 *                                                    client_secret_basic, ID token with email,
 *                                                    email_verified: true and name.
 *   Apple stand-in   {publicUrl}/dev/oidc/apple    code flow answered by form_post (required when
 *                                                    name or email is asked for, as Apple does), the
 *                                                    client_secret is an ES256 JWT checked against the
 *                                                    developer key published at developer-key.json,
 *                                                    ID token with email and email_verified: "true" and
 *                                                    no name; the name comes once, in the form_post
 *                                                    `user` field, the first time an account authorizes
 *                                                    the client.
 *
 * Each stand-in has its own sign-in page (fields 'Email' and 'Name', button 'Continue') instead of
 * oidc-provider's development screens; consent is granted without another page. Everything lives in
 * memory and is new on every start (signing keys, cookie keys, developer key, accounts).
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import express, { type NextFunction, type Request, type Response } from "express";
import { type CryptoKey, type JWK, exportJWK, generateKeyPair } from "jose";
import Provider, {
  type Account,
  type Configuration,
  type Interaction,
  type KoaContextWithOIDC,
  interactionPolicy,
} from "oidc-provider";
import { z } from "zod";
import { verifyAppleClientSecret } from "./apple-client-secret";
import { SandboxStore, sandboxAdapter } from "./memory-adapter";
import {
  INVALID_EMAIL_MESSAGE,
  SANDBOX_STYLESHEET,
  type SandboxKind,
  renderErrorPage,
  renderSignInPage,
} from "./pages";

export interface IdentitySandboxOptions {
  /** The server's public origin, e.g. http://127.0.0.1:3100 (no trailing slash). */
  publicUrl: string;
  google: { clientId: string; clientSecret: string; redirectUris: string[] };
  apple: { clientId: string; teamId: string; keyId: string; redirectUris: string[] };
}

export interface IdentitySandbox {
  /** Serves everything under /dev/oidc/google and /dev/oidc/apple; every other path goes to next(). */
  router: express.Router;
  close(): Promise<void>;
}

/** Where each stand-in lives under the public URL. */
export const GOOGLE_SANDBOX_PATH = "/dev/oidc/google";
export const APPLE_SANDBOX_PATH = "/dev/oidc/apple";

/** The Apple stand-in's token request body limit (oidc-provider's own limit is 56 kB). */
const TOKEN_BODY_LIMIT = 56 * 1024;

interface SandboxAccount {
  email: string;
  name: string | undefined;
}

interface StandIn {
  kind: SandboxKind;
  issuer: string;
  /** The issuer's path: the mount point of everything this stand-in serves. */
  path: string;
  provider: Provider;
  accounts: Map<string, SandboxAccount>;
  store: SandboxStore;
  /** "clientId\naccountId" pairs that have authorized once (Apple's `user` field is sent only then). */
  authorizedBefore: Set<string>;
  /** The Content-Security-Policy of every response under `path`. */
  csp: string;
  clientName: string;
}

const emailSchema = z.email();

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

function origins(uris: string[]): string[] {
  const set = new Set<string>();
  for (const uri of uris) {
    try {
      set.add(new URL(uri).origin);
    } catch {
      // oidc-provider refuses the client with a clear message; nothing to allow here.
    }
  }
  return [...set];
}

/**
 * The sandbox's own pages need no script of their own; the form_post page's one inline script is
 * allowed by hash (oidc-provider appends 'sha256-…' to script-src when the header is present).
 * Forms may post back here and to the clients' redirect URIs (also the end of a redirect chain that
 * starts with a form post).
 */
function contentSecurityPolicy(redirectUris: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["form-action", "'self'", ...origins(redirectUris)].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

async function signingJwks(): Promise<{ keys: JWK[] }> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { keys: [{ ...jwk, kid: `sandbox-${randomBytes(6).toString("hex")}`, alg: "RS256", use: "sig" }] };
}

/** The login prompt fires on every authorization: the sandbox always asks who is signing in. */
function alwaysAskPolicy() {
  const policy = interactionPolicy.base();
  const login = policy.get("login");
  if (!login) throw new Error("oidc-provider's base policy has no login prompt");
  login.checks.add(
    new interactionPolicy.Check(
      "sandbox_sign_in",
      "the identity sandbox asks who is signing in on every authorization",
      (ctx: KoaContextWithOIDC) =>
        ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
  );
  return policy;
}

function splitName(name: string): { firstName: string; lastName: string } {
  const [firstName = "", ...rest] = name.trim().split(/\s+/);
  return { firstName, lastName: rest.join(" ") };
}

async function createStandIn(
  kind: SandboxKind,
  publicUrl: string,
  client: { clientId: string; clientSecret: string; redirectUris: string[]; tokenEndpointAuthMethod: string },
): Promise<StandIn> {
  const path = kind === "google" ? GOOGLE_SANDBOX_PATH : APPLE_SANDBOX_PATH;
  const issuer = `${publicUrl}${path}`;
  const issuerPath = new URL(issuer).pathname;
  const accounts = new Map<string, SandboxAccount>();
  const store = new SandboxStore();
  const authorizedBefore = new Set<string>();
  const csp = contentSecurityPolicy(client.redirectUris);
  const stylesheetHref = `${issuerPath}/sandbox.css`;

  const claims: Record<string, string[]> = {
    // `amr` (RFC 8176): whether the sandbox's page said a second factor was used (docs/decisions/017).
    openid: ["sub", "amr"],
    ...(kind === "google"
      ? { email: ["email", "email_verified"], profile: ["name"], name: ["name"] }
      : // Apple's scopes are `name` and `email`; its ID token never carries the name.
        { email: ["email", "email_verified", "is_private_email"], name: [] }),
  };

  const configuration: Configuration = {
    adapter: sandboxAdapter(store),
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        client_name: client.clientId,
        redirect_uris: client.redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: client.tokenEndpointAuthMethod,
      },
    ],
    jwks: await signingJwks(),
    cookies: {
      keys: [randomBytes(32).toString("base64url")],
      // Both stand-ins share one host: distinct names keep their cookies apart.
      names: {
        session: `_sandbox_${kind}_session`,
        interaction: `_sandbox_${kind}_interaction`,
        resume: `_sandbox_${kind}_interaction_resume`,
      },
      long: { httpOnly: true, sameSite: "lax" },
      short: { httpOnly: true, sameSite: "lax" },
    },
    scopes: ["openid"],
    claims,
    conformIdTokenClaims: false,
    responseTypes: ["code"],
    allowOmittingSingleRegisteredRedirectUri: false,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: kind === "google" },
      // Neither provider offers these to the portal; off, so every request goes through /auth.
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
    },
    clientAuthMethods: kind === "google" ? ["client_secret_basic", "client_secret_post"] : ["client_secret_post"],
    interactions: {
      policy: alwaysAskPolicy(),
      url: (_ctx, interaction) => `${issuer}/interaction/${interaction.uid}`,
    },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      if (!account) return undefined;
      const found: Account = {
        accountId: sub,
        claims: () =>
          kind === "google"
            ? { sub, email: account.email, email_verified: true, ...(account.name ? { name: account.name } : {}) }
            : { sub, email: account.email, email_verified: "true", is_private_email: "false" },
      };
      return found;
    },
    renderError: (ctx, out) => {
      ctx.set("Content-Security-Policy", csp);
      ctx.type = "html";
      ctx.body = renderErrorPage({
        kind,
        stylesheetHref,
        error: String(out.error),
        description: typeof out.error_description === "string" ? out.error_description : undefined,
      });
    },
    clientBasedCORS: () => false,
    // Seconds. Stated rather than defaulted (oidc-provider logs a notice for each default it uses).
    ttl: {
      AuthorizationCode: 300,
      AccessToken: 3600,
      IdToken: 3600,
      Interaction: 3600,
      Session: 24 * 3600,
      Grant: 24 * 3600,
    },
  };

  const provider = new Provider(issuer, configuration);
  // URLs are built from X-Forwarded-Host / -Proto, which the sandbox itself sets from publicUrl.
  provider.proxy = true;
  provider.on("server_error", (_ctx, error) => {
    console.error(`identity sandbox (${kind}): ${error.message}`);
  });

  if (kind === "apple") {
    // Sign in with Apple posts the person's name (and email) once, in a `user` form field, the
    // first time an account authorizes a client. The event fires before the response is rendered
    // and `out` is what the response mode renders.
    provider.on("authorization.success", (ctx, out) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (ctx.oidc.responseMode !== "form_post" || typeof out.code !== "string" || !accountId || !clientId) return;
      const key = `${clientId}\n${accountId}`;
      if (authorizedBefore.has(key)) return;
      authorizedBefore.add(key);
      const account = accounts.get(accountId);
      const scopes = new Set((ctx.oidc.params?.scope ?? "").split(" "));
      const user: { name?: { firstName: string; lastName: string }; email?: string } = {};
      if (scopes.has("name") && account?.name) user.name = splitName(account.name);
      if (scopes.has("email")) user.email = account?.email ?? accountId;
      if (Object.keys(user).length > 0) out.user = JSON.stringify(user);
    });
  }

  return { kind, issuer, path: issuerPath, provider, accounts, store, authorizedBefore, csp, clientName: client.clientId };
}

type ForwardableRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/**
 * oidc-provider parses bodies itself. When a body parser mounted before the sandbox has already
 * read the body, hand oidc-provider a replay of it rather than the consumed stream.
 */
function unconsumed(req: ForwardableRequest): IncomingMessage {
  if (req.readable || req.method === "GET" || req.method === "HEAD") return req;
  const { body } = req;
  if (!body || typeof body !== "object") return req;
  const type = req.headers["content-type"] ?? "";
  if (/^application\/x-www-form-urlencoded/i.test(type)) {
    return replayRequest(req, Buffer.from(toSearchParams(body).toString(), "utf8"));
  }
  if (/^application\/json/i.test(type)) return replayRequest(req, Buffer.from(JSON.stringify(body), "utf8"));
  return req;
}

function toSearchParams(body: object): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(body)) {
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return params;
}

/** Hands a request to oidc-provider, with the public URL (not the Host header) as its base. */
function providerHandler(standIn: StandIn, publicUrl: URL) {
  const callback = standIn.provider.callback();
  return (req: ForwardableRequest, res: ServerResponse) => {
    req.headers["x-forwarded-host"] = publicUrl.host;
    req.headers["x-forwarded-proto"] = publicUrl.protocol.slice(0, -1);
    // oidc-provider derives its mount path from originalUrl minus url; make it the issuer's path.
    req.originalUrl = `${standIn.path}${req.url ?? "/"}`;
    callback(unconsumed(req), res);
  };
}

function sendErrorPage(standIn: StandIn, res: Response, status: number, error: string, description: string) {
  res
    .status(status)
    .set("Cache-Control", "no-store")
    .type("html")
    .send(renderErrorPage({ kind: standIn.kind, stylesheetHref: `${standIn.path}/sandbox.css`, error, description }));
}

function firstString(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return "";
}

/** Creates the grant for what was asked (consent without a page) and returns its id. */
async function grantConsent(standIn: StandIn, details: Interaction, accountId: string): Promise<string> {
  const clientId = firstString(details.params.client_id);
  const grant = new standIn.provider.Grant({ accountId, clientId });
  const scope = firstString(details.params.scope);
  if (scope) grant.addOIDCScope(scope);
  return grant.save();
}

/**
 * Every sign-in starts a new provider session. Left alone, oidc-provider answers a sign-in as
 * another account than the browser's previous one with an extra logout page (a form_post to its
 * end-session endpoint); the sandbox asks who is signing in every time, so it ends the previous
 * session itself and detaches it from the interaction.
 */
async function startFreshSession(standIn: StandIn, details: Interaction): Promise<void> {
  const uid = details.session?.uid;
  if (!uid) return;
  const previous = await standIn.provider.Session.findByUid(uid);
  await previous?.destroy();
  details.session = undefined;
  details.grantId = undefined;
  await details.persist();
}

async function loadInteraction(
  standIn: StandIn,
  req: Request,
  res: Response,
): Promise<Interaction | undefined> {
  try {
    const details = await standIn.provider.interactionDetails(req, res);
    if (details.uid === req.params.uid) return details;
  } catch {
    // No interaction cookie, or the interaction expired: answered below.
  }
  sendErrorPage(
    standIn,
    res,
    400,
    "invalid_request",
    "This sign-in has expired or was already completed. Go back to the site you came from and start again.",
  );
  return undefined;
}

function interactionRoutes(standIn: StandIn): express.Router {
  const router = express.Router();
  const stylesheetHref = `${standIn.path}/sandbox.css`;
  const action = (uid: string) => `${standIn.path}/interaction/${encodeURIComponent(uid)}`;

  router.get("/interaction/:uid", async (req, res, next) => {
    try {
      const details = await loadInteraction(standIn, req, res);
      if (!details) return;
      res.set("Cache-Control", "no-store");
      res.type("html").send(
        renderSignInPage({
          kind: standIn.kind,
          action: action(details.uid),
          stylesheetHref,
          clientName: standIn.clientName,
          email: firstString(details.params.login_hint),
          name: "",
        }),
      );
    } catch (error) {
      next(error);
    }
  });

  router.post("/interaction/:uid", express.urlencoded({ extended: false, limit: "16kb" }), async (req, res, next) => {
    try {
      const details = await loadInteraction(standIn, req, res);
      if (!details) return;
      const body = (req.body ?? {}) as Record<string, unknown>;

      if (firstString(body.action) === "cancel") {
        // What each provider answers when the person backs out.
        const error = standIn.kind === "apple" ? "user_cancelled_authorize" : "access_denied";
        await standIn.provider.interactionFinished(
          req,
          res,
          { error, error_description: "The user cancelled the sign-in." },
          { mergeWithLastSubmission: false },
        );
        return;
      }

      const email = firstString(body.email).trim();
      const name = firstString(body.name).trim().slice(0, 100);
      if (email.length > 254 || !emailSchema.safeParse(email).success) {
        res.status(400).set("Cache-Control", "no-store");
        res.type("html").send(
          renderSignInPage({
            kind: standIn.kind,
            action: action(details.uid),
            stylesheetHref,
            clientName: standIn.clientName,
            email: firstString(body.email),
            name: firstString(body.name),
            mfa: firstString(body.mfa) !== "",
            emailError: INVALID_EMAIL_MESSAGE,
          }),
        );
        return;
      }

      const accountId = email.toLowerCase();
      standIn.accounts.set(accountId, { email: accountId, name: name || undefined });
      await startFreshSession(standIn, details);
      const grantId = await grantConsent(standIn, details, accountId);
      // RFC 8176 methods: the sandbox's page stands for a password, plus a second factor when ticked.
      const amr = firstString(body.mfa) !== "" ? ["pwd", "mfa"] : ["pwd"];
      await standIn.provider.interactionFinished(
        req,
        res,
        { login: { accountId, amr }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    } catch (error) {
      next(error);
    }
  });

  return router;
}

async function readBody(req: Request, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The request oidc-provider reads after the Apple check: the same request with its body replaced
 * (oidc-provider parses bodies itself; a stream keeps it on that path rather than its fallback for
 * bodies an upstream parser already consumed).
 */
function replayRequest(req: ForwardableRequest, body: Buffer): IncomingMessage {
  const headers: Record<string, string | string[] | undefined> = {
    ...req.headers,
    "content-length": String(body.length),
  };
  delete headers["transfer-encoding"];
  const replay = Readable.from([body], { objectMode: false });
  Object.assign(replay, {
    headers,
    rawHeaders: req.rawHeaders,
    method: req.method,
    url: req.url,
    originalUrl: req.originalUrl,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
    socket: req.socket,
    connection: req.socket,
    complete: true,
    aborted: false,
    trailers: {},
    rawTrailers: [],
  });
  return replay as unknown as IncomingMessage;
}

function invalidClient(res: Response, description: string) {
  res.status(401).set("Cache-Control", "no-store").json({ error: "invalid_client", error_description: description });
}

/**
 * In front of the Apple stand-in's token endpoint: verifies the ES256 client_secret JWT like Apple,
 * then swaps it for the static secret oidc-provider knows the client by.
 */
function appleTokenGuard(
  standIn: StandIn,
  apple: IdentitySandboxOptions["apple"],
  staticSecret: string,
  developerPublicKey: CryptoKey,
  forward: (req: IncomingMessage, res: ServerResponse) => void,
) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (!req.is("application/x-www-form-urlencoded")) {
        res.status(400).set("Cache-Control", "no-store").json({
          error: "invalid_request",
          error_description: "the token request must be application/x-www-form-urlencoded",
        });
        return;
      }
      let params: URLSearchParams;
      if (req.readable) {
        const raw = await readBody(req, TOKEN_BODY_LIMIT);
        if (!raw) {
          res.status(413).json({ error: "invalid_request", error_description: "the request body is too large" });
          return;
        }
        params = new URLSearchParams(raw.toString("utf8"));
      } else {
        // A body parser mounted before the sandbox already read it.
        params = toSearchParams((req.body ?? {}) as object);
      }

      if (req.headers.authorization !== undefined) {
        invalidClient(res, "Sign in with Apple takes client_id and client_secret in the request body");
        return;
      }
      const secrets = params.getAll("client_secret");
      if (secrets.length !== 1 || !secrets[0]) {
        invalidClient(res, "client_secret is required once: an ES256 JWT signed with the developer key");
        return;
      }
      if (params.get("client_id") !== apple.clientId) {
        invalidClient(res, "client_id is not a registered client");
        return;
      }
      const result = await verifyAppleClientSecret(secrets[0], {
        teamId: apple.teamId,
        clientId: apple.clientId,
        keyId: apple.keyId,
        audience: standIn.issuer,
        publicKey: developerPublicKey,
      });
      if (!result.ok) {
        invalidClient(res, result.reason);
        return;
      }
      params.set("client_secret", staticSecret);
      forward(replayRequest(req, Buffer.from(params.toString(), "utf8")), res);
    } catch (error) {
      next(error);
    }
  };
}

/** Apple answers an authorization request for name or email only by form_post, as the real one does. */
function appleResponseModeGuard(standIn: StandIn) {
  return (req: Request, res: Response, next: NextFunction) => {
    const scopes = firstString(req.query.scope).split(" ");
    const mode = firstString(req.query.response_mode);
    if ((scopes.includes("name") || scopes.includes("email")) && mode !== "form_post") {
      sendErrorPage(
        standIn,
        res,
        400,
        "invalid_request",
        "response_mode must be form_post when name or email scope is requested.",
      );
      return;
    }
    next();
  };
}

export async function createIdentitySandbox(options: IdentitySandboxOptions): Promise<IdentitySandbox> {
  const publicUrl = trimSlashes(options.publicUrl);
  const base = new URL(publicUrl);

  // The developer's Sign in with Apple key (what Apple lets a developer download once as a .p8).
  const developerKey = await generateKeyPair("ES256", { extractable: true });
  const developerPrivateJwk: JWK = {
    ...(await exportJWK(developerKey.privateKey)),
    kid: options.apple.keyId,
    alg: "ES256",
    use: "sig",
  };
  // What oidc-provider checks after the JWT has been verified; never leaves the process.
  const appleStaticSecret = randomBytes(32).toString("base64url");

  const google = await createStandIn("google", publicUrl, {
    clientId: options.google.clientId,
    clientSecret: options.google.clientSecret,
    redirectUris: options.google.redirectUris,
    tokenEndpointAuthMethod: "client_secret_post", // client_secret_basic is accepted as well
  });
  const apple = await createStandIn("apple", publicUrl, {
    clientId: options.apple.clientId,
    clientSecret: appleStaticSecret,
    redirectUris: options.apple.redirectUris,
    tokenEndpointAuthMethod: "client_secret_post",
  });

  const router = express.Router();
  for (const standIn of [google, apple]) {
    const sub = express.Router();
    const forward = providerHandler(standIn, base);

    sub.use((_req, res, next) => {
      // Replaces the server's page policy: these pages need their own (see contentSecurityPolicy).
      res.setHeader("Content-Security-Policy", standIn.csp);
      next();
    });
    sub.get("/sandbox.css", (_req, res) => {
      res.set("Cache-Control", "public, max-age=3600").type("css").send(SANDBOX_STYLESHEET);
    });
    sub.use(interactionRoutes(standIn));

    if (standIn.kind === "apple") {
      sub.get("/developer-key.json", (_req, res) => {
        res.set("Cache-Control", "no-store").json(developerPrivateJwk);
      });
      sub.get("/auth", appleResponseModeGuard(standIn));
      sub.post("/token", appleTokenGuard(standIn, options.apple, appleStaticSecret, developerKey.publicKey, forward));
    }

    sub.use((req: Request, res: Response) => forward(req, res));
    sub.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
      console.error(`identity sandbox (${standIn.kind}): ${error instanceof Error ? error.message : String(error)}`);
      if (res.headersSent) {
        res.end();
        return;
      }
      sendErrorPage(standIn, res, 500, "server_error", "The identity sandbox could not complete this request.");
    });

    router.use(standIn.path, sub);
  }

  return {
    router,
    async close() {
      for (const standIn of [google, apple]) {
        standIn.accounts.clear();
        standIn.store.clear();
        standIn.authorizedBefore.clear();
      }
    },
  };
}
