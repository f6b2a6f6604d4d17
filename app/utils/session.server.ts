import { createCookieSessionStorage } from "@remix-run/node";
import { portalCookieName } from "./cookies.server";
import { portalConfig } from "../config.server";

type SessionData = { token: string };

let storage: ReturnType<typeof createStorage> | undefined;

function createStorage() {
  const env = portalConfig();
  const name = portalCookieName("__session", env.secureCookies);
  return Object.assign(
    createCookieSessionStorage<SessionData>({
      cookie: {
        name,
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: env.secureCookies,
        secrets: env.sessionSecrets,
        // The API token expires on its own schedule; the cookie lives as long (30 days) so a browser restart keeps you signed in.
        maxAge: 60 * 60 * 24 * 30,
      },
    }),
    { cookieName: name, tokens: new Map<string, string | null>() },
  );
}

function sessionStorage() {
  storage ??= createStorage();
  return storage;
}

async function getSession(request: Request) {
  return sessionStorage().getSession(request.headers.get("Cookie"));
}

/**
 * How many session cookies' tokens are kept once read. Every signed-in page reads its cookie, and
 * reading one (its HMAC checked, base64 and JSON decoded) cost about as much as the rest of a page's
 * loader work (issue 31). The token is a function of the cookie's exact value and this process's secrets,
 * so a value already read needs no second check; a forged or altered value is a new value, checked.
 */
const KEPT_SESSION_COOKIES = 1000;

export async function getSessionToken(request: Request): Promise<string | null> {
  const { cookieName, tokens } = sessionStorage();
  const value = cookieValue(request.headers.get("Cookie"), cookieName);
  if (value === null) return null;
  const kept = tokens.get(value);
  if (kept !== undefined) {
    // Least recently used goes first: a Map keeps insertion order.
    tokens.delete(value);
    tokens.set(value, kept);
    return kept;
  }
  const session = await getSession(request);
  const raw = session.get("token");
  const token = typeof raw === "string" && raw.length > 0 ? raw : null;
  tokens.set(value, token);
  if (tokens.size > KEPT_SESSION_COOKIES) tokens.delete(tokens.keys().next().value!);
  return token;
}

/** The value of the cookie `name` in a Cookie header, or null. */
function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const pair of header.split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}

/** Set-Cookie value that stores a fresh session holding only this token. */
export async function commitTokenSession(request: Request, token: string): Promise<string> {
  const session = await getSession(request);
  session.set("token", token);
  return sessionStorage().commitSession(session);
}

export async function destroySessionCookie(request: Request): Promise<string> {
  const session = await getSession(request);
  return sessionStorage().destroySession(session);
}
