/**
 * The identity sandbox over real HTTP: an Express app on an ephemeral loopback port with the
 * sandbox's router at its root, driven like a browser (manual redirects, a cookie jar) and like a
 * relying party (discovery, token requests, ID token checks with jose).
 */
import { createHash, randomBytes } from "node:crypto";
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import {
  type JWK,
  SignJWT,
  createRemoteJWKSet,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
} from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IdentitySandboxOptions, createIdentitySandbox } from "../../api/sandboxes/identity/identity";

const GOOGLE = { clientId: "sandbox-google-client", clientSecret: "sandbox-google-secret" };
const APPLE = { clientId: "sandbox.apple.client", teamId: "SANDBOXTEAM", keyId: "SANDBOXKEY" };
const OTHER_ORIGIN_CALLBACK = "https://portal.example.com/auth/apple/callback";
const PAGE_CSP = "default-src 'self'; script-src 'self' 'nonce-servernonce'; style-src 'self'; form-action 'self'";

let server: Server;
let baseUrl: string;
let close: () => Promise<void>;
let googleIssuer: string;
let appleIssuer: string;
let googleRedirect: string;
let appleRedirect: string;

async function startServer(bodyParsers: boolean) {
  const app = express();
  // The portal's server sends a strict page policy before any router; the sandbox replaces it.
  app.use((_req, res, next) => {
    res.setHeader("Content-Security-Policy", PAGE_CSP);
    next();
  });
  if (bodyParsers) {
    // A server that parses every body before the sandbox's router: oidc-provider still gets them.
    app.use(express.urlencoded({ extended: false }));
    app.use(express.json());
  }
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  googleRedirect = `${baseUrl}/auth/google/callback`;
  appleRedirect = `${baseUrl}/auth/apple/callback`;
  const options: IdentitySandboxOptions = {
    publicUrl: baseUrl,
    google: { ...GOOGLE, redirectUris: [googleRedirect] },
    apple: { ...APPLE, redirectUris: [appleRedirect, OTHER_ORIGIN_CALLBACK] },
  };
  const sandbox = await createIdentitySandbox(options);
  close = sandbox.close;
  app.use(sandbox.router);
  app.use((req, res) => {
    res.status(404).type("text/plain").send(`fell through: ${req.path}`);
  });
  googleIssuer = `${baseUrl}/dev/oidc/google`;
  appleIssuer = `${baseUrl}/dev/oidc/apple`;
}

async function stopServer() {
  await close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

// ---------------------------------------------------------------------------------------------
// A tiny browser: cookies by name and path, redirects followed by hand.

interface StoredCookie {
  value: string;
  path: string;
}

class Browser {
  private cookies = new Map<string, StoredCookie>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const cookie = [...this.cookies.entries()]
      .filter(([, c]) => target.pathname.startsWith(c.path))
      .map(([name, c]) => `${name}=${c.value}`)
      .join("; ");
    const headers = new Headers(init.headers);
    if (cookie) headers.set("cookie", cookie);
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) this.store(line);
    return res;
  }

  private store(line: string) {
    const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    let path = "/";
    let expired = value === "";
    for (const attribute of attributes) {
      const [key = "", val = ""] = attribute.split("=");
      if (key.toLowerCase() === "path") path = val;
      if (key.toLowerCase() === "expires" && new Date(val).getTime() < Date.now()) expired = true;
      if (key.toLowerCase() === "max-age" && Number(val) <= 0) expired = true;
    }
    if (expired) this.cookies.delete(name);
    else this.cookies.set(name, { value, path });
  }

  /** Follows GET redirects (303/302) until a non-redirect answer or a URL outside the server. */
  async follow(res: Response, from: string): Promise<{ res: Response; url: string }> {
    let url = from;
    let current = res;
    while (current.status >= 300 && current.status < 400) {
      const location = current.headers.get("location");
      if (!location) throw new Error("redirect without Location");
      url = new URL(location, url).href;
      if (url.startsWith(googleRedirect) || url.startsWith(appleRedirect)) return { res: current, url };
      current = await this.fetch(url);
    }
    return { res: current, url };
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

function random(bytes = 16) {
  return randomBytes(bytes).toString("base64url");
}

function form(values: Record<string, string>) {
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(values).toString(),
  } satisfies RequestInit;
}

function decodeEntities(value: string) {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The form_post page's form: its action and its hidden fields. */
function parseFormPost(html: string) {
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)) {
    fields[match[1] as string] = decodeEntities(match[2] as string);
  }
  return { action: action === undefined ? undefined : decodeEntities(action), fields };
}

async function discovery(issuer: string) {
  const res = await fetch(`${issuer}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown> & {
    issuer: string;
    authorization_endpoint: string;
    token_endpoint: string;
    jwks_uri: string;
  };
}

interface StartedSignIn {
  browser: Browser;
  interactionUrl: string;
  state: string;
  nonce: string;
  verifier: string;
}

async function startGoogle(browser = new Browser(), extra: Record<string, string> = {}): Promise<StartedSignIn> {
  const state = random();
  const nonce = random();
  const verifier = random(32);
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const url = new URL(`${googleIssuer}/auth`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: GOOGLE.clientId,
    redirect_uri: googleRedirect,
    scope: "openid email profile",
    state,
    nonce,
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...extra,
  }).toString();
  const res = await browser.fetch(url.href);
  expect(res.status).toBe(303);
  const interactionUrl = new URL(res.headers.get("location") ?? "", url).href;
  expect(interactionUrl.startsWith(`${googleIssuer}/interaction/`)).toBe(true);
  return { browser, interactionUrl, state, nonce, verifier };
}

async function startApple(browser = new Browser(), redirectUri = appleRedirect): Promise<StartedSignIn> {
  const state = random();
  const nonce = random();
  const url = new URL(`${appleIssuer}/auth`);
  url.search = new URLSearchParams({
    response_type: "code",
    response_mode: "form_post",
    client_id: APPLE.clientId,
    redirect_uri: redirectUri,
    scope: "openid name email",
    state,
    nonce,
  }).toString();
  const res = await browser.fetch(url.href);
  expect(res.status).toBe(303);
  const interactionUrl = new URL(res.headers.get("location") ?? "", url).href;
  expect(interactionUrl.startsWith(`${appleIssuer}/interaction/`)).toBe(true);
  return { browser, interactionUrl, state, nonce, verifier: "" };
}

async function submitSignIn(started: StartedSignIn, values: { email: string; name: string }) {
  const res = await started.browser.fetch(started.interactionUrl, form(values));
  expect(res.status).toBe(303);
  return started.browser.follow(res, started.interactionUrl);
}

async function appleDeveloperKey(): Promise<JWK> {
  const res = await fetch(`${appleIssuer}/developer-key.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as JWK;
}

async function appleClientSecret(
  privateJwk: JWK,
  overrides: { sub?: string; iss?: string; aud?: string; kid?: string; iat?: number; exp?: number } = {},
) {
  const key = await importJWK(privateJwk, "ES256");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: overrides.kid ?? privateJwk.kid ?? APPLE.keyId })
    .setIssuer(overrides.iss ?? APPLE.teamId)
    .setSubject(overrides.sub ?? APPLE.clientId)
    .setAudience(overrides.aud ?? appleIssuer)
    .setIssuedAt(overrides.iat ?? now)
    .setExpirationTime(overrides.exp ?? now + 600)
    .sign(key);
}

async function appleToken(code: string, clientSecret: string) {
  return fetch(`${appleIssuer}/token`, {
    ...form({
      grant_type: "authorization_code",
      code,
      redirect_uri: appleRedirect,
      client_id: APPLE.clientId,
      client_secret: clientSecret,
    }),
  });
}

async function appleSignIn(browser: Browser, values: { email: string; name: string }) {
  const started = await startApple(browser);
  const { res } = await submitSignIn(started, values);
  expect(res.status).toBe(200);
  const html = await res.text();
  return { started, res, html, post: parseFormPost(html) };
}

// ---------------------------------------------------------------------------------------------

describe.each([
  { name: "mounted before any body parser", bodyParsers: false },
  { name: "behind body parsers", bodyParsers: true },
])("identity sandbox, $name", ({ bodyParsers }) => {
  beforeAll(() => startServer(bodyParsers));
  afterAll(() => stopServer());

  describe("discovery and routing", () => {
    it("publishes a discovery document per stand-in with every endpoint under its issuer", async () => {
      for (const issuer of [googleIssuer, appleIssuer]) {
        const doc = await discovery(issuer);
        expect(doc.issuer).toBe(issuer);
        for (const key of ["authorization_endpoint", "token_endpoint", "jwks_uri"] as const) {
          expect(doc[key].startsWith(`${issuer}/`)).toBe(true);
        }
        expect(doc.response_types_supported).toEqual(["code"]);
        expect(doc.response_modes_supported).toContain("form_post");
        expect(doc.code_challenge_methods_supported).toContain("S256");
        expect(doc.grant_types_supported).toEqual(["authorization_code"]);
        expect(doc).not.toHaveProperty("pushed_authorization_request_endpoint");
        expect(doc).not.toHaveProperty("end_session_endpoint");
        const jwks = (await (await fetch(doc.jwks_uri)).json()) as { keys: JWK[] };
        expect(jwks.keys).toHaveLength(1);
        expect(jwks.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig" });
        expect(jwks.keys[0]).not.toHaveProperty("d");
      }
      const google = await discovery(googleIssuer);
      expect(google.scopes_supported).toEqual(expect.arrayContaining(["openid", "email", "profile"]));
      expect(google.userinfo_endpoint).toBe(`${googleIssuer}/me`);
      expect(google.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post"]);
      const apple = await discovery(appleIssuer);
      expect(apple.token_endpoint_auth_methods_supported).toEqual(["client_secret_post"]);
      expect(apple.scopes_supported).toEqual(expect.arrayContaining(["openid", "email", "name"]));
      expect(apple.userinfo_endpoint).toBeUndefined();
    });

    it("builds its URLs from the public URL, not from the Host or X-Forwarded-* headers", async () => {
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(
          `${googleIssuer}/.well-known/openid-configuration`,
          { headers: { host: "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" } },
          (res) => {
            let data = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (data += chunk));
            res.on("end", () => resolve(data));
          },
        );
        req.on("error", reject);
        req.end();
      });
      const doc = JSON.parse(body) as { issuer: string; authorization_endpoint: string };
      expect(doc.issuer).toBe(googleIssuer);
      expect(doc.authorization_endpoint).toBe(`${googleIssuer}/auth`);
      expect(body).not.toContain("evil.example");
    });

    it("passes every other path on to the next handler", async () => {
      for (const path of ["/", "/dev/mailbox", "/dev/oidc", "/dev/oidc/googlex/auth", "/auth/google/callback"]) {
        const res = await fetch(`${baseUrl}${path}`);
        expect(res.status).toBe(404);
        expect(await res.text()).toBe(`fell through: ${path}`);
      }
    });
  });

  describe("Google stand-in", () => {
    it("signs in through its own page and issues an ID token with email, email_verified and name", async () => {
      const started = await startGoogle();

      const page = await started.browser.fetch(started.interactionUrl);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("<title>Sign in to Google (sandbox)</title>");
      expect(html).toMatch(/sandbox/i);
      expect(html).toContain('<label for="email">Email</label>');
      expect(html).toMatch(/<input id="email" name="email" type="email"/);
      expect(html).toContain('<label for="name">Name</label>');
      expect(html).toMatch(/<input id="name" name="name" type="text"/);
      expect(html).toMatch(/<button type="submit"[^>]*>Continue<\/button>/);
      expect(html).toMatch(/<form method="post" action="\/dev\/oidc\/google\/interaction\/[^"]+"/);
      // No script and no inline style: it works without JavaScript under a strict policy.
      expect(html).not.toMatch(/<script|style=|<style/i);
      const csp = page.headers.get("content-security-policy") ?? "";
      expect(csp).not.toBe(PAGE_CSP);
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("form-action 'self'");
      const css = await started.browser.fetch(`${baseUrl}/dev/oidc/google/sandbox.css`);
      expect(css.status).toBe(200);
      expect(css.headers.get("content-type")).toMatch(/text\/css/);

      const { res, url } = await submitSignIn(started, { email: "Ada.Lovelace@Example.com", name: "Ada Lovelace" });
      expect([302, 303]).toContain(res.status);
      const callback = new URL(url);
      expect(`${callback.origin}${callback.pathname}`).toBe(googleRedirect);
      expect(callback.searchParams.get("state")).toBe(started.state);
      const code = callback.searchParams.get("code");
      expect(code).toBeTruthy();

      const doc = await discovery(googleIssuer);
      const token = await fetch(doc.token_endpoint, {
        ...form({
          grant_type: "authorization_code",
          code: code ?? "",
          redirect_uri: googleRedirect,
          client_id: GOOGLE.clientId,
          client_secret: GOOGLE.clientSecret,
          code_verifier: started.verifier,
        }),
      });
      expect(token.status).toBe(200);
      const tokens = (await token.json()) as { id_token: string; access_token: string; token_type: string };
      expect(tokens.token_type).toBe("Bearer");

      const { payload, protectedHeader } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(doc.jwks_uri)), {
        issuer: googleIssuer,
        audience: GOOGLE.clientId,
      });
      expect(protectedHeader.alg).toBe("RS256");
      expect(payload.nonce).toBe(started.nonce);
      expect(payload.sub).toBe("ada.lovelace@example.com");
      expect(payload.email).toBe("ada.lovelace@example.com");
      expect(payload.email_verified).toBe(true);
      expect(payload.name).toBe("Ada Lovelace");

      // The userinfo endpoint answers the same claims for the access token.
      const me = await fetch(`${googleIssuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({ email: "ada.lovelace@example.com", email_verified: true, name: "Ada Lovelace" });
    });

    it("accepts client_secret_basic and enforces the PKCE verifier", async () => {
      const started = await startGoogle();
      const { url } = await submitSignIn(started, { email: "basic@example.com", name: "Basic Person" });
      const code = new URL(url).searchParams.get("code") ?? "";
      const basic = Buffer.from(`${GOOGLE.clientId}:${GOOGLE.clientSecret}`).toString("base64");
      const token = (body: Record<string, string>) =>
        fetch(`${googleIssuer}/token`, { ...form(body), headers: { ...form(body).headers, authorization: `Basic ${basic}` } });

      const wrongVerifier = await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: googleRedirect,
        code_verifier: random(32),
      });
      expect(wrongVerifier.status).toBe(400);
      expect(((await wrongVerifier.json()) as { error: string }).error).toBe("invalid_grant");

      const second = await startGoogle();
      const again = await submitSignIn(second, { email: "basic@example.com", name: "Basic Person" });
      const ok = await token({
        grant_type: "authorization_code",
        code: new URL(again.url).searchParams.get("code") ?? "",
        redirect_uri: googleRedirect,
        code_verifier: second.verifier,
      });
      expect(ok.status).toBe(200);
      const idToken = ((await ok.json()) as { id_token: string }).id_token;
      expect(decodeJwt(idToken)).toMatchObject({ email: "basic@example.com", nonce: second.nonce, name: "Basic Person" });
    });

    it("refuses a wrong client secret", async () => {
      const started = await startGoogle();
      const { url } = await submitSignIn(started, { email: "x@example.com", name: "X" });
      const res = await fetch(`${googleIssuer}/token`, {
        ...form({
          grant_type: "authorization_code",
          code: new URL(url).searchParams.get("code") ?? "",
          redirect_uri: googleRedirect,
          client_id: GOOGLE.clientId,
          client_secret: "not-the-secret",
          code_verifier: started.verifier,
        }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
    });

    it("re-renders the page with the message and the typed values when the email is missing or invalid", async () => {
      const started = await startGoogle();
      for (const email of ["", "not-an-email", "a@b"]) {
        const res = await started.browser.fetch(started.interactionUrl, form({ email, name: "Typed <Name>" }));
        expect(res.status).toBe(400);
        const html = await res.text();
        expect(html).toContain("Please enter a valid email address");
        expect(html).toMatch(/aria-describedby="email-error"/);
        expect(html).toContain(`value="${email}"`);
        expect(html).toContain('value="Typed &lt;Name&gt;"');
        expect(res.headers.get("content-security-policy")).not.toBe(PAGE_CSP);
      }
      // The interaction is still usable afterwards.
      const { url } = await submitSignIn(started, { email: "fixed@example.com", name: "" });
      expect(new URL(url).searchParams.get("code")).toBeTruthy();
    });

    it("asks again on the next authorization and prefills login_hint", async () => {
      const browser = new Browser();
      const first = await startGoogle(browser);
      await submitSignIn(first, { email: "first@example.com", name: "First" });
      const second = await startGoogle(browser, { login_hint: "second@example.com" });
      const page = await browser.fetch(second.interactionUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('value="second@example.com"');
      const { url } = await submitSignIn(second, { email: "second@example.com", name: "Second" });
      const code = new URL(url).searchParams.get("code") ?? "";
      const token = await fetch(`${googleIssuer}/token`, {
        ...form({
          grant_type: "authorization_code",
          code,
          redirect_uri: googleRedirect,
          client_id: GOOGLE.clientId,
          client_secret: GOOGLE.clientSecret,
          code_verifier: second.verifier,
        }),
      });
      const body = await token.json();
      expect(token.status, JSON.stringify(body)).toBe(200);
      expect(decodeJwt((body as { id_token: string }).id_token)).toMatchObject({ sub: "second@example.com", name: "Second" });
    });

    it("sends the person back with access_denied when they cancel", async () => {
      const started = await startGoogle();
      const res = await started.browser.fetch(started.interactionUrl, form({ action: "cancel", email: "", name: "" }));
      const { url } = await started.browser.follow(res, started.interactionUrl);
      const callback = new URL(url);
      expect(callback.searchParams.get("error")).toBe("access_denied");
      expect(callback.searchParams.get("state")).toBe(started.state);
    });

    it("renders a plain error page for an unknown client or redirect_uri, never a stack trace", async () => {
      const cases = [
        { client_id: "unknown-client", redirect_uri: googleRedirect },
        { client_id: GOOGLE.clientId, redirect_uri: "https://attacker.example/cb" },
      ];
      for (const params of cases) {
        const url = `${googleIssuer}/auth?${new URLSearchParams({ response_type: "code", scope: "openid email", ...params })}`;
        const res = await fetch(url, { redirect: "manual" });
        expect(res.status).toBe(400);
        expect(res.headers.get("location")).toBeNull();
        expect(res.headers.get("content-type")).toMatch(/text\/html/);
        const html = await res.text();
        expect(html).toContain("Sign-in error (Google sandbox)");
        expect(html).toMatch(/invalid_client|invalid_redirect_uri/);
        expect(html).not.toMatch(/node_modules|\.js:\d+|\bat \w+ \(/);
        expect(html).not.toMatch(/<script|<style|style=/);
        expect(res.headers.get("content-security-policy")).not.toBe(PAGE_CSP);
      }
      const stale = await fetch(`${googleIssuer}/interaction/unknown-uid`);
      expect(stale.status).toBe(400);
      expect(await stale.text()).toContain("This sign-in has expired or was already completed.");
    });
  });

  describe("Apple stand-in", () => {
    it("publishes the developer's private key as a JWK with the key id", async () => {
      const jwk = await appleDeveloperKey();
      expect(jwk).toMatchObject({ kty: "EC", crv: "P-256", kid: APPLE.keyId, alg: "ES256" });
      expect(typeof jwk.d).toBe("string");
    });

    it("answers by form_post, sends `user` the first time only, and checks the ES256 client secret", async () => {
      const browser = new Browser();
      const started = await startApple(browser);

      const page = await browser.fetch(started.interactionUrl);
      expect(page.status).toBe(200);
      const pageHtml = await page.text();
      expect(pageHtml).toContain("<title>Sign in with Apple (sandbox)</title>");
      expect(pageHtml).toContain('<label for="email">Email</label>');
      expect(pageHtml).toContain('<label for="name">Name</label>');
      expect(pageHtml).toMatch(/<button type="submit"[^>]*>Continue<\/button>/);

      const { res } = await submitSignIn(started, { email: "Grace@Example.com", name: "Grace Brewster Hopper" });
      expect(res.status).toBe(200);
      const html = await res.text();
      const post = parseFormPost(html);
      expect(post.action).toBe(appleRedirect);
      expect(post.fields.state).toBe(started.state);
      expect(post.fields.code).toBeTruthy();
      expect(JSON.parse(post.fields.user ?? "null")).toEqual({
        name: { firstName: "Grace", lastName: "Brewster Hopper" },
        email: "grace@example.com",
      });

      // Without JavaScript: the noscript Continue button submits the same form.
      expect(html).toMatch(/<noscript>[\s\S]*<button[^>]*type="submit"[^>]*>Continue<\/button>[\s\S]*<\/noscript>/);
      // With JavaScript: the inline auto-submit script is allowed by its hash, nothing else inline.
      const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
      expect(script).toContain("submit()");
      const csp = res.headers.get("content-security-policy") ?? "";
      const hash = createHash("sha256").update(script).digest("base64");
      expect(csp).toMatch(new RegExp(`script-src [^;]*'sha256-${hash.replace(/[+/]/g, "\\$&")}'`));
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("nonce-servernonce");
      expect(csp).toMatch(/form-action 'self'[^;]* https:\/\/portal\.example\.com/);

      // Token request with a client_secret signed by the downloaded developer key.
      const developerKey = await appleDeveloperKey();
      const doc = await discovery(appleIssuer);
      const token = await appleToken(post.fields.code ?? "", await appleClientSecret(developerKey));
      expect(token.status).toBe(200);
      const tokens = (await token.json()) as { id_token: string };
      const { payload } = await jwtVerify(tokens.id_token, createRemoteJWKSet(new URL(doc.jwks_uri)), {
        issuer: appleIssuer,
        audience: APPLE.clientId,
      });
      expect(payload.nonce).toBe(started.nonce);
      expect(payload.sub).toBe("grace@example.com");
      expect(payload.email).toBe("grace@example.com");
      expect(payload.email_verified).toBe("true");
      expect(payload).not.toHaveProperty("name");

      // The code is single use.
      const reused = await appleToken(post.fields.code ?? "", await appleClientSecret(developerKey));
      expect(reused.status).toBe(400);
      expect(((await reused.json()) as { error: string }).error).toBe("invalid_grant");

      // The next authorization of that account, in the same browser or another, carries no `user`.
      const again = await appleSignIn(browser, { email: "grace@example.com", name: "Grace Hopper" });
      expect(again.post.fields.code).toBeTruthy();
      expect(again.post.fields.state).toBe(again.started.state);
      expect(again.post.fields).not.toHaveProperty("user");
      const second = await appleToken(again.post.fields.code ?? "", await appleClientSecret(developerKey));
      expect(second.status).toBe(200);
      const idToken = ((await second.json()) as { id_token: string }).id_token;
      expect(decodeJwt(idToken)).toMatchObject({ email: "grace@example.com", email_verified: "true", nonce: again.started.nonce });
      const elsewhere = await appleSignIn(new Browser(), { email: "GRACE@example.com", name: "G" });
      expect(elsewhere.post.fields.code).toBeTruthy();
      expect(elsewhere.post.fields).not.toHaveProperty("user");
      // Another account's first authorization does carry it.
      const newcomer = await appleSignIn(browser, { email: "alan@example.com", name: "Alan" });
      expect(JSON.parse(newcomer.post.fields.user ?? "null")).toEqual({
        name: { firstName: "Alan", lastName: "" },
        email: "alan@example.com",
      });
    });

    it("posts to a redirect URI on another origin and allows that origin as a form action", async () => {
      const browser = new Browser();
      const started = await startApple(browser, OTHER_ORIGIN_CALLBACK);
      const res = await browser.fetch(started.interactionUrl, form({ email: "other@example.com", name: "Other" }));
      const { res: page } = await browser.follow(res, started.interactionUrl);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(parseFormPost(html).action).toBe(OTHER_ORIGIN_CALLBACK);
      expect(page.headers.get("content-security-policy")).toContain("https://portal.example.com");
    });

    it("refuses a client secret with the wrong key, subject, issuer, audience or key id, or an expired or too long one", async () => {
      const developerKey = await appleDeveloperKey();
      const { privateKey } = await generateKeyPair("ES256", { extractable: true });
      const wrongKey = { ...(await exportJWK(privateKey)), kid: APPLE.keyId };
      const now = Math.floor(Date.now() / 1000);
      const secrets: Record<string, string> = {
        "wrong key": await appleClientSecret(wrongKey),
        "wrong sub": await appleClientSecret(developerKey, { sub: "some.other.client" }),
        "wrong iss": await appleClientSecret(developerKey, { iss: "OTHERTEAM" }),
        "wrong aud": await appleClientSecret(developerKey, { aud: "https://appleid.apple.com" }),
        "wrong kid": await appleClientSecret(developerKey, { kid: "OTHERKEY" }),
        expired: await appleClientSecret(developerKey, { iat: now - 7200, exp: now - 3600 }),
        "more than six months": await appleClientSecret(developerKey, { exp: now + 200 * 24 * 3600 }),
        "not a JWT": "sandbox-static-secret",
      };
      for (const [label, secret] of Object.entries(secrets)) {
        const res = await appleToken("some-code", secret);
        expect(res.status, label).toBe(401);
        const body = (await res.json()) as { error: string; error_description: string };
        expect(body.error, label).toBe("invalid_client");
        expect(body.error_description, label).toMatch(/client_secret/);
      }

      const missing = await fetch(`${appleIssuer}/token`, {
        ...form({ grant_type: "authorization_code", code: "x", redirect_uri: appleRedirect, client_id: APPLE.clientId }),
      });
      expect(missing.status).toBe(401);
      expect(((await missing.json()) as { error: string }).error).toBe("invalid_client");

      // A valid secret reaches oidc-provider, which judges the code.
      const valid = await appleToken("not-a-real-code", await appleClientSecret(developerKey));
      expect(valid.status).toBe(400);
      expect(((await valid.json()) as { error: string }).error).toBe("invalid_grant");
    });

    it("requires form_post when name or email is requested, as Apple does", async () => {
      const url = `${appleIssuer}/auth?${new URLSearchParams({
        response_type: "code",
        client_id: APPLE.clientId,
        redirect_uri: appleRedirect,
        scope: "openid name email",
        state: "s",
      })}`;
      const res = await fetch(url, { redirect: "manual" });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain("response_mode must be form_post");
      expect(html).toContain("Sign-in error (Apple sandbox)");
    });

    it("validates the email on its page too", async () => {
      const started = await startApple();
      const res = await started.browser.fetch(started.interactionUrl, form({ email: "nope", name: "N" }));
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain("Please enter a valid email address");
      expect(html).toContain("<title>Sign in with Apple (sandbox)</title>");
    });

    it("posts user_cancelled_authorize back when the person cancels", async () => {
      const started = await startApple();
      const res = await started.browser.fetch(started.interactionUrl, form({ action: "cancel" }));
      const { res: page } = await started.browser.follow(res, started.interactionUrl);
      expect(page.status).toBe(400);
      const post = parseFormPost(await page.text());
      expect(post.action).toBe(appleRedirect);
      expect(post.fields.error).toBe("user_cancelled_authorize");
      expect(post.fields.state).toBe(started.state);
    });
  });
});
