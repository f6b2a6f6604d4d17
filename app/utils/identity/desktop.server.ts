import type { Cookie } from "@remix-run/node";
import { createSealedCookie, portalCookieName } from "../cookies.server";
import { portalConfig } from "../../config.server";

export type DesktopHandoff = { token: string; code: string | null; provider: "google" | "apple" };

let cookie: Cookie | undefined;

const HANDOFF_SECONDS = 300;

/**
 * Carries the desktop session token from the callback to the hand-off page (5 minutes, this browser
 * only), sealed: the bearer token is not readable in the cookie. Path=/ as the `__Host-` prefix
 * requires on https.
 */
export function desktopHandoffCookie() {
  const env = portalConfig();
  cookie ??= createSealedCookie(portalCookieName("__desktop_handoff", env.secureCookies), {
    httpOnly: true,
    path: "/",
    maxAge: HANDOFF_SECONDS,
    ttlSeconds: HANDOFF_SECONDS,
    sameSite: "lax",
    secure: env.secureCookies,
    secrets: env.sessionSecrets,
  });
  return cookie;
}

/** The custom app-scheme URL carrying the URL-encoded session token (identity §2). */
export function appSchemeUrl(token: string) {
  return `${portalConfig().desktopAppScheme}://auth?token=${encodeURIComponent(token)}`;
}
