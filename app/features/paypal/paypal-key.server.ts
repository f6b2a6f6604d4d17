import { createHash } from "node:crypto";

/**
 * The PayPal attempt's idempotency key, from the checkout page's key (one per rendering) and apart
 * from the card's and the hosted page's keys: the 'Continue to PayPal' form and PayPal's buttons of
 * one rendering open one order or subscription, however often they are pressed.
 */
export function paypalKey(pageKey: string): string {
  return pageKey ? createHash("sha256").update(`${pageKey}\npaypal`).digest("base64url") : "";
}
