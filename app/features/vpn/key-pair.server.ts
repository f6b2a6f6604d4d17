import { generateKeyPairSync } from "node:crypto";

// The key pair of a configuration made for a page without JavaScript (issue 34): made here, its public key
// registered with the API, its private key written once into the answer's configuration and then dropped.
// It is never stored, logged, or put in a cookie, the session or a toast.

export type KeyPair = { privateKey: string; publicKey: string };

/** base64url (a JWK's) to the standard base64 with padding that WireGuard writes. */
export function base64UrlToBase64(value: string): string {
  return Buffer.from(value, "base64url").toString("base64");
}

/** A fresh X25519 key pair as WireGuard writes keys (32 bytes each, base64), from node:crypto. */
export function serverKeyPair(): KeyPair {
  const { privateKey } = generateKeyPairSync("x25519");
  const jwk = privateKey.export({ format: "jwk" });
  if (!jwk.d || !jwk.x) throw new Error("node:crypto gave an X25519 key without its raw parts.");
  return { privateKey: base64UrlToBase64(jwk.d), publicKey: base64UrlToBase64(jwk.x) };
}
