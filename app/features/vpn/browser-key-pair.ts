// The key pair of a configuration made with JavaScript (issue 34): made in the browser, so that only its
// public key is sent; the private key stays in this page's memory until it is written into the file shown.
// X25519 through WebCrypto where the browser has it (Chrome 133, Firefox 130, Safari 17), else
// @noble/curves (audited, MIT), imported on demand so that it is a chunk only this page loads, and only
// in a browser that needs it.

export type KeyPair = { privateKey: string; publicKey: string };

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function base64UrlToBase64(value: string): string {
  const standard = value.replace(/-/g, "+").replace(/_/g, "/");
  return standard + "=".repeat((4 - (standard.length % 4)) % 4);
}

/** The pair through WebCrypto, or null when this browser has no X25519 there. */
async function webCryptoKeyPair(subtle: SubtleCrypto | null): Promise<KeyPair | null> {
  if (!subtle) return null;
  let pair: CryptoKeyPair;
  try {
    pair = (await subtle.generateKey({ name: "X25519" }, true, ["deriveBits"])) as CryptoKeyPair;
  } catch {
    return null;
  }
  const publicKey = new Uint8Array(await subtle.exportKey("raw", pair.publicKey));
  // The private key as a JWK ('d', base64url): every browser with X25519 exports it so.
  const jwk = await subtle.exportKey("jwk", pair.privateKey);
  if (publicKey.length !== 32 || !jwk.d) return null;
  return { privateKey: base64UrlToBase64(jwk.d), publicKey: toBase64(publicKey) };
}

/** The pair through @noble/curves (a random scalar from the browser's CSPRNG). */
async function nobleKeyPair(): Promise<KeyPair> {
  const { x25519 } = await import("@noble/curves/ed25519");
  const secret = x25519.utils.randomSecretKey();
  const publicKey = x25519.getPublicKey(secret);
  return { privateKey: toBase64(secret), publicKey: toBase64(publicKey) };
}

/**
 * A fresh X25519 key pair as WireGuard writes keys. `subtle` is the WebCrypto to try first (the page's own;
 * a test passes none to take the library's path).
 */
export async function browserKeyPair(subtle: SubtleCrypto | null = globalThis.crypto?.subtle ?? null): Promise<KeyPair> {
  return (await webCryptoKeyPair(subtle)) ?? (await nobleKeyPair());
}
