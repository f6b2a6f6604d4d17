import { randomBytes } from "node:crypto";

// ASCII order, so that ids made later sort later (lists break ties in `created` by id).
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

let lastMs = 0;
let sequence = 0;

function base62(value: number, width: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/** `length` random base62 characters (rejection sampling: no bias). */
export function randomToken(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/**
 * A Stripe-looking id: the prefix, then the time and a per-millisecond sequence (so ids of one
 * process sort in creation order), then random characters.
 */
export function newId(prefix: string, randomLength = 14): string {
  const ms = Date.now();
  if (ms === lastMs) sequence++;
  else {
    lastMs = ms;
    sequence = 0;
  }
  return prefix + base62(ms, 8) + base62(sequence % 3844, 2) + randomToken(randomLength);
}
