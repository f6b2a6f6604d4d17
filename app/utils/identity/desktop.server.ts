import { createCookie } from "@remix-run/node";
import { getEnv } from "../env.server";

export type DesktopHandoff = { token: string; code: string | null; provider: "google" | "apple" };

let cookie: ReturnType<typeof createCookie> | undefined;

/** Carries the desktop session token from the callback to the hand-off page (5 minutes, this browser only). */
export function desktopHandoffCookie() {
  const env = getEnv();
  cookie ??= createCookie("__desktop_handoff", {
    httpOnly: true,
    path: "/desktop-app",
    maxAge: 300,
    sameSite: "lax",
    secure: env.secureCookies,
    secrets: env.sessionSecrets,
  });
  return cookie;
}

/** The custom app-scheme URL carrying the URL-encoded session token (identity §2). */
export function appSchemeUrl(token: string) {
  return `${getEnv().DESKTOP_APP_SCHEME}://auth?token=${encodeURIComponent(token)}`;
}
