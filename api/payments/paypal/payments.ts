import type { Plan, User } from "../../platform/db/schema";
import { DomainError } from "../../platform/errors";

/** What the PayPal routes answer (the words where it quotes them). */
export const PAYPAL_MESSAGES = {
  paid: "Payment successful.",
  cancelled: "The PayPal payment was cancelled.",
  pending: "The payment was not completed.",
  notFound: "This PayPal payment was not found.",
  failed: "PayPal could not be reached. Please try again.",
  declined: "PayPal declined the payment. Please choose another way to pay in PayPal, or another payment method.",
  received: "Webhook received.",
  badSignature: "The webhook's signature is not valid.",
} as const;

export type PayPalKind = "order" | "subscription";

/** What the PayPal gateway needs; filled in by api/http/app.ts. */
export interface PayPalDeps {
  mode: "live" | "sandbox";
  clientId: string;
}

export interface StartPayPalCheckout {
  user: User;
  plan: Plan;
  couponCode?: string;
  returnPath: string;
  key: string;
}

export async function startPayPalCheckout(
  _deps: PayPalDeps,
  _input: StartPayPalCheckout,
): Promise<{ approve_url: string; paypal_id: string; kind: PayPalKind }> {
  throw new DomainError("provider_off", "Not found.");
}

export async function completePayPalCheckout(
  _deps: PayPalDeps,
  _input: { user: User; token?: string; subscriptionId?: string },
): Promise<{ status: "paid" | "pending" | "cancelled"; kind: PayPalKind; subscriptionId?: number }> {
  throw new DomainError("provider_off", "Not found.");
}

export async function cancelPayPalCheckout(
  _deps: PayPalDeps,
  _input: { user: User; token?: string; subscriptionId?: string },
): Promise<{ status: "cancelled"; kind: PayPalKind }> {
  throw new DomainError("provider_off", "Not found.");
}

export async function handlePayPalWebhook(_deps: PayPalDeps, _raw: string, _headers: Record<string, string | undefined>): Promise<void> {
  throw new DomainError("provider_off", "Not found.");
}
