import type { RequestHandler } from "express";
import type { TaxRates } from "../platform/tax-rates";
import type { Clock, OffsetStore } from "../platform/clock";
import type { Database } from "../platform/db";
import type { PasswordHasher } from "../identity/passwords";
import type { VpnServerFileEntry } from "../platform/vpn-servers-file";
// Type-only (erased from the bundle): tests drive the Stripe sandbox's fault switch through Api.stripeSandbox.
import type { StripeSandbox } from "../sandboxes/stripe";

export type { StripeSandbox };

/*
 * The one link between the product and its sandboxes (docs/decisions/024): what the composition root
 * (app.ts) needs from them, and the dynamic import that loads them in sandbox mode only. No product
 * module imports api/sandboxes statically (.dependency-cruiser.cjs); the build turns this import into
 * `import("./sandboxes.js")`, a bundle of its own beside build/server.js and build/api.js
 * (scripts/build-server.mjs), which therefore hold no sandbox code.
 */

interface SandboxGatewayOptions {
  db: Database;
  clock: Clock;
  /** The portal's public origin, for the sandbox's browser pages. */
  publicUrl: string;
  logger?: Pick<Console, "info" | "warn" | "error">;
}

/** A gateway's stand-in: a REST API on its own loopback port, browser pages under /dev, and what comes due. */
export interface SandboxGateway {
  listen(): Promise<{ port: number; close(): Promise<void> }>;
  /** Its pages under /dev/{stripe,bitpay,paypal}/...; other paths go to next(). */
  browserRouter: RequestHandler;
  /** Runs what has come due by the business clock (renewals, expiries), with their webhooks. */
  advance(): Promise<void>;
}

export interface SandboxKit {
  /** Creates the sandboxes' tables: their own idempotent migration set, recorded apart from the product's. */
  migrate(db: Database): Promise<void>;
  /** The demo account and the WELCOME10 coupon. */
  seed(db: Database, clock: Clock, passwords: PasswordHasher): Promise<void>;
  /** The test clock's offset in the database (sandbox mode's business time, shared by every instance). */
  clockStore(db: Database): OffsetStore;
  stripe: {
    create(
      opts: SandboxGatewayOptions & {
        /** Delivers a signed event (the exact JSON text and its Stripe-Signature) to the product's webhook handler. */
        deliverEvent(payload: string, signature: string): Promise<void>;
        /** STRIPE_SANDBOX_FAULTS as given (JSON): faults armed from the start. */
        sandboxFaults?: string;
        /** When a failed renewal is tried again, in days after the first failure (default [1, 3, 5, 7]). */
        retryDays?: readonly number[];
        /** The account's public business website, linked from the hosted invoice page. */
        businessUrl?: string;
        taxRates?: TaxRates;
      },
    ): StripeSandbox;
    /** The keys the product's Stripe client uses against the sandbox (published: sandbox mode only). */
    secretKey: string;
    publishableKey: string;
    webhookSecret: string;
  };
  bitpay: {
    create(
      opts: SandboxGatewayOptions & {
        /** Delivers a notification (the invoice's notificationURL and the exact JSON text) to the product. */
        deliverNotification(url: string, body: string): Promise<void>;
      },
    ): SandboxGateway;
    /** The API token the product's BitPay client sends to the sandbox, and the secret its notifications carry. */
    token: string;
    notificationSecret: string;
  };
  paypal: {
    create(
      opts: SandboxGatewayOptions & {
        /** Delivers a webhook to the product: the exact JSON text and PayPal's transmission headers. Awaited. */
        deliverWebhook(body: string, headers: Record<string, string>): Promise<void>;
      },
    ): SandboxGateway;
    /** The sandbox's published credentials (PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET, PAYPAL_WEBHOOK_ID in sandbox mode). */
    clientId: string;
    clientSecret: string;
    webhookId: string;
  };
  identity: {
    /** The OpenID provider standing in for Google and Apple, with the sandbox clients from the config. */
    create(opts: {
      publicUrl: string;
      google: { clientId: string; clientSecret: string; redirectUris: string[] };
      apple: { clientId: string; teamId: string; keyId: string; redirectUris: string[] };
    }): Promise<{ router: RequestHandler; close(): Promise<void> }>;
    /** Where each stand-in lives under the public URL. */
    googlePath: string;
    applePath: string;
  };
  vpn: {
    /** The seeded server list of sandbox mode without VPN_SERVERS_FILE. */
    servers: readonly VpnServerFileEntry[];
    /** The published node token ('sandbox-node-token'), accepted besides VPN_NODE_TOKENS in sandbox mode. */
    nodeToken: string;
  };
}

/** Loads the sandboxes (sandbox mode only: outside it nothing calls this, and the module is never read). */
export async function loadSandboxes(): Promise<SandboxKit> {
  const { sandboxKit } = await import("../sandboxes/index");
  return sandboxKit;
}
