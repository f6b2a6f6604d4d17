import Stripe from "stripe";
import type { ApiConfig } from "../../platform/config";

/*
 * The one Stripe SDK instance of the API: live keys when STRIPE_SECRET_KEY is set, else the Stripe
 * sandbox on its loopback port. The product's Stripe code is the same either way.
 */

export interface StripeSetup {
  stripe: Stripe;
  mode: "live" | "sandbox";
  /** For the browser: Stripe.js (live) or the sandbox's inline card form. */
  publishableKey: string;
  /** Verifies webhook signatures. */
  webhookSecret: string;
}

/** The SDK retries idempotent requests itself (with our keys) on network errors and 5xx. */
const MAX_NETWORK_RETRIES = 2;

export function liveStripe(config: ApiConfig): StripeSetup | null {
  const { secretKey, publishableKey, webhookSecret, apiVersion } = config.stripe;
  if (!secretKey || !publishableKey || !webhookSecret) return null;
  return {
    stripe: new Stripe(secretKey, {
      // biome-ignore lint: pinned in configuration; the SDK types only its own version.
      apiVersion: apiVersion as any,
      maxNetworkRetries: MAX_NETWORK_RETRIES,
      timeout: config.stripe.timeoutMs,
      appInfo: { name: "vpn-account-portal" },
    }),
    mode: "live",
    publishableKey,
    webhookSecret,
  };
}

export function sandboxStripe(
  config: ApiConfig,
  sandbox: { port: number; secretKey: string; publishableKey: string; webhookSecret: string },
): StripeSetup {
  return {
    stripe: new Stripe(sandbox.secretKey, {
      host: "127.0.0.1",
      port: sandbox.port,
      protocol: "http",
      // biome-ignore lint: as above.
      apiVersion: config.stripe.apiVersion as any,
      maxNetworkRetries: MAX_NETWORK_RETRIES,
      timeout: config.stripe.timeoutMs,
    }),
    mode: "sandbox",
    publishableKey: sandbox.publishableKey,
    webhookSecret: sandbox.webhookSecret,
  };
}

/** A card refused by the gateway (declined, insufficient funds, expired, wrong number ...). */
export function isCardError(error: unknown): error is Stripe.errors.StripeCardError {
  return error instanceof Stripe.errors.StripeCardError;
}

/** A request the gateway refused as malformed or about a missing object. */
export function isInvalidRequest(error: unknown): error is Stripe.errors.StripeInvalidRequestError {
  return error instanceof Stripe.errors.StripeInvalidRequestError;
}

/**
 * The gateway failed or did not answer (5xx, rate limit, connection, timeout): the payment's outcome is
 * unknown to us until Stripe's webhook says it — it may have gone through.
 */
export function isGatewayFailure(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error instanceof Stripe.errors.StripeRateLimitError
  );
}

export type { Stripe };
