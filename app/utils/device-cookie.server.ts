import crypto from "node:crypto";
import { portalConfig } from "../config.server";
import { portalCookieName } from "./cookies.server";

/*
 * The device cookie (issue 22, docs/decisions/035): a long-lived random key of this browser, httpOnly,
 * SameSite=Lax, Secure behind https. The portal forwards it to the API (X-Device-Key), which keeps only
 * its sha256 per account, so that a sign-in from a browser the account has not used before is emailed.
 * It is set with the session cookie at sign-in (never on a shared public page).
 */

const KEY = /^[A-Za-z0-9_-]{43}$/;
/** 400 days: the longest a browser keeps a cookie. */
const MAX_AGE_SECONDS = 400 * 86_400;

function cookieName(): string {
  return portalCookieName("__device", portalConfig().secureCookies);
}

/** Keys made for requests that came without one: the same key is forwarded and then set. */
const fresh = new WeakMap<Request, string>();

function cookieKey(request: Request): string | null {
  const name = cookieName();
  for (const part of (request.headers.get("Cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (KEY.test(value)) return value;
  }
  return null;
}

/** This browser's device key: its cookie's, or a new one (the same for the rest of this request). */
export function deviceKeyFor(request: Request): string {
  const existing = cookieKey(request);
  if (existing) return existing;
  let key = fresh.get(request);
  if (!key) {
    key = crypto.randomBytes(32).toString("base64url");
    fresh.set(request, key);
  }
  return key;
}

/** Adds the device cookie to a sign-in's answer when the browser has none yet (or a bad one). */
export function appendDeviceCookie(headers: Headers, request: Request): void {
  if (cookieKey(request)) return;
  const secure = portalConfig().secureCookies ? "; Secure" : "";
  headers.append("Set-Cookie", `${cookieName()}=${deviceKeyFor(request)}; Max-Age=${MAX_AGE_SECONDS}; Path=/; HttpOnly; SameSite=Lax${secure}`);
}
