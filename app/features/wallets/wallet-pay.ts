import type { Wallet, WalletCause } from "~/utils/wallet-errors";

// The browser side of a wallet payment: the wallet's card becomes a PaymentMethod (Stripe.js live,
// the sandbox's tokenizer in sandbox mode), and only its id is posted to the portal's wallet route
// (app/routes/payments.wallet.ts), which calls the API with the session's token.

/** The portal's wallet payment route (POST, JSON). */
const WALLET_PAYMENT_PATH = "/payments/wallet";

/** A fresh random key per wallet sheet: a double submit of one approval is one payment. */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export type GatewayError = { type?: string; code?: string; message?: string };

/** The sandbox's stand-in for Stripe.js createPaymentMethod: a test card to a PaymentMethod id. */
export async function sandboxPaymentMethod(
  publishableKey: string,
  card: { number: string; expMonth?: number; expYear?: number },
): Promise<{ id: string } | { error: GatewayError }> {
  const year = card.expYear ?? new Date().getUTCFullYear() + 4;
  const response = await fetch("/dev/stripe/v1/payment_methods", {
    method: "POST",
    headers: { Authorization: `Bearer ${publishableKey}`, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      type: "card",
      "card[number]": card.number.replace(/\s+/g, ""),
      "card[exp_month]": String(card.expMonth ?? 12),
      "card[exp_year]": String(year),
      "card[cvc]": "123",
    }),
  });
  const answer = (await response.json().catch(() => null)) as { id?: string; error?: GatewayError } | null;
  if (response.ok && answer?.id) return { id: answer.id };
  return { error: answer?.error ?? { type: "api_error" } };
}

/** A wallet payment waiting for the bank's 3-D Secure challenge. */
export type WalletChallenge = { clientSecret: string; paymentIntent: string; subscription?: string; url: string | null };

export type WalletPayResult =
  | { ok: true }
  | { ok: false; requiresAction: WalletChallenge }
  | { ok: false; signedOut: string }
  | { ok: false; cause: WalletCause };

/** Posts the wallet payload; the route answers JSON (and sets the checkout's success state on a payment). */
export async function postWalletPayment(input: {
  planId: number;
  paymentTokenId: string;
  paymentSource: Wallet;
  idempotencyKey: string;
}): Promise<WalletPayResult> {
  let response: Response;
  try {
    response = await fetch(WALLET_PAYMENT_PATH, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({
        planId: input.planId,
        paymentTokenId: input.paymentTokenId,
        paymentSource: input.paymentSource,
        idempotency_key: input.idempotencyKey,
      }),
    });
  } catch (error) {
    return { ok: false, cause: { type: "thrown", error } };
  }
  // The session ended meanwhile: the portal sent us to sign in.
  if (response.redirected) return { ok: false, signedOut: response.url };
  const answer = (await response.json().catch(() => null)) as {
    ok?: boolean;
    message?: string;
    requires_action?: boolean;
    client_secret?: string;
    payment_intent?: string;
    subscription?: string;
    authentication_url?: string;
  } | null;
  if (response.ok && answer?.ok) return { ok: true };
  if (response.ok && answer?.requires_action && answer.client_secret && answer.payment_intent) {
    const challenge = { clientSecret: answer.client_secret, paymentIntent: answer.payment_intent, url: answer.authentication_url ?? null };
    return { ok: false, requiresAction: { ...challenge, ...(answer.subscription ? { subscription: answer.subscription } : {}) } };
  }
  return { ok: false, cause: { type: "answer", status: response.ok ? 500 : response.status, message: answer?.message } };
}

/** Finishes a wallet payment after its challenge: the API reads the outcome from the gateway. */
export async function completeWalletPayment(planId: number, challenge: WalletChallenge): Promise<{ ok: true } | { ok: false; message: string }> {
  try {
    const response = await fetch(WALLET_PAYMENT_PATH, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ planId, payment_intent: challenge.paymentIntent, ...(challenge.subscription ? { subscription: challenge.subscription } : {}) }),
    });
    const answer = (await response.json().catch(() => null)) as { ok?: boolean; message?: string } | null;
    if (response.ok && answer?.ok) return { ok: true };
    // Catalogue keys when the portal words it; the server's message is in the page's language already.
    return { ok: false, message: answer?.message || "payments.wallet.notCompleted" };
  } catch {
    return { ok: false, message: "payments.error.network" };
  }
}

/** After a payment the page itself shows 'Payment Successful!' (the route stored it in the checkout's flow cookie). */
export function showPaymentSuccessful(): void {
  window.location.assign(window.location.pathname);
}
