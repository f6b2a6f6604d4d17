import crypto from "node:crypto";
import { type Cookie, type CookieOptions, createCookie } from "@remix-run/node";

// Cookie names and sealed (encrypted) cookies (docs/decisions/018-flow-cookies-and-caching.md).

/**
 * The name of one of the portal's own cookies: with secure cookies (an https PUBLIC_URL) it carries
 * the `__Host-` prefix, which browsers accept only with Secure, Path=/ and no Domain, so neither a
 * sibling subdomain nor a plain-http page can set or shadow it. Plain-http localhost keeps the name.
 */
export function portalCookieName(name: string, secure: boolean): string {
  return secure ? `__Host-${name.replace(/^_+/, "")}` : name;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = "v1";

/**
 * AES-256-GCM keys from the session secrets: HKDF-SHA256, with an info string of its own so that
 * these keys are never the HMAC keys that sign the session cookie. The first key seals, all open.
 */
export function sealingKeys(secrets: string[]): Buffer[] {
  if (secrets.length === 0) throw new Error("At least one secret is needed to seal cookies.");
  return secrets.map((secret) =>
    Buffer.from(crypto.hkdfSync("sha256", secret, "vpn-portal/sealed-cookie", "aes-256-gcm key v1", 32)),
  );
}

/**
 * Encrypts `value` (JSON) with an expiry inside: only this server can read it or make one, and the
 * cookie's name is authenticated too, so a sealed value cannot be moved to another cookie.
 */
export function seal(value: unknown, { keys, name, ttlSeconds, now = Date.now() }: SealOptions): string {
  const iv = crypto.randomBytes(IV_BYTES);
  const cipher = crypto.createCipheriv("aes-256-gcm", keys[0]!, iv);
  cipher.setAAD(Buffer.from(`${FORMAT}:${name}`));
  const plain = Buffer.from(JSON.stringify({ v: value, exp: now + ttlSeconds * 1000 }));
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return `${FORMAT}.${sealed.toString("base64url")}`;
}

/** The value sealed by `seal` under any of `keys`, or null (unreadable, altered, another cookie's, expired). */
export function unseal(text: unknown, { keys, name, now = Date.now() }: Omit<SealOptions, "ttlSeconds">): unknown {
  if (typeof text !== "string" || !text.startsWith(`${FORMAT}.`)) return null;
  const sealed = Buffer.from(text.slice(FORMAT.length + 1), "base64url");
  if (sealed.length < IV_BYTES + TAG_BYTES) return null;
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const body = sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES);
  for (const key of keys) {
    let plain: Buffer;
    try {
      const decipher = crypto.createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(Buffer.from(`${FORMAT}:${name}`));
      decipher.setAuthTag(tag);
      plain = Buffer.concat([decipher.update(body), decipher.final()]);
    } catch {
      continue; // another key's, or altered
    }
    try {
      const { v, exp } = JSON.parse(plain.toString("utf8")) as { v: unknown; exp: unknown };
      return typeof exp === "number" && exp > now ? v : null;
    } catch {
      return null;
    }
  }
  return null;
}

type SealOptions = { keys: Buffer[]; name: string; ttlSeconds: number; now?: number };

/**
 * A Remix Cookie whose value is sealed (encrypted and authenticated) instead of signed: a drop-in for
 * createCookie, and for createCookieSessionStorage's `cookie` option. `ttlSeconds` is the expiry kept
 * inside the value, checked by the server whatever the browser keeps; without `maxAge`/`expires` the
 * cookie itself is a session cookie.
 */
export function createSealedCookie(
  name: string,
  { secrets, ttlSeconds, ...options }: Omit<CookieOptions, "secrets" | "encode" | "decode"> & { secrets: string[]; ttlSeconds: number },
): Cookie {
  // Remix's unsigned cookie does the header work (attributes, parsing); the value it carries is sealed.
  const plain = createCookie(name, options);
  const keys = sealingKeys(secrets);
  return {
    name,
    // Stronger than signed (tampering is detected, and nothing is readable); Remix warns on false.
    isSigned: true,
    get expires() {
      return plain.expires;
    },
    async parse(cookieHeader, parseOptions) {
      return unseal(await plain.parse(cookieHeader, parseOptions), { keys, name });
    },
    async serialize(value, serializeOptions) {
      // "" is how a session storage clears the cookie (with an expiry in the past).
      return plain.serialize(value === "" ? "" : seal(value, { keys, name, ttlSeconds }), serializeOptions);
    },
  };
}
