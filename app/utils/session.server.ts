import { createCookieSessionStorage } from "@remix-run/node";
import { portalCookieName } from "./cookies.server";
import { portalConfig } from "../config.server";

type SessionData = { token: string };

let storage: ReturnType<typeof createStorage> | undefined;

function createStorage() {
  const env = portalConfig();
  return createCookieSessionStorage<SessionData>({
    cookie: {
      name: portalCookieName("__session", env.secureCookies),
      httpOnly: true,
      sameSite: "lax",
      path: "/",
      secure: env.secureCookies,
      secrets: env.sessionSecrets,
      // The API token expires on its own schedule; the cookie lives as long (30 days) so a browser restart keeps you signed in.
      maxAge: 60 * 60 * 24 * 30,
    },
  });
}

function sessionStorage() {
  storage ??= createStorage();
  return storage;
}

async function getSession(request: Request) {
  return sessionStorage().getSession(request.headers.get("Cookie"));
}

export async function getSessionToken(request: Request): Promise<string | null> {
  const session = await getSession(request);
  const token = session.get("token");
  return typeof token === "string" && token.length > 0 ? token : null;
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
