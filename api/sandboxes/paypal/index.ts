import type { Clock } from "../../platform/clock";
import type { Database } from "../../platform/db";
import { listenOnLoopback } from "../../platform/loopback";
import { createBrowserRouter } from "./browser";
import { createRestApp } from "./rest";
import { PayPalService } from "./service";
import { PayPalStore } from "./store";
import { Notifier } from "./webhooks";

/*
 * The PayPal sandbox: a stateful stand-in for the subset of PayPal's REST API that the product uses
 * (OAuth2 token, orders, captures and refunds, catalog products, billing plans, subscriptions, sale
 * refunds, webhook signature verification), with approval pages whose buttons decide what the buyer
 * does, so that the product's live PayPal code (the official SDK, pointed at it) runs offline and in
 * every test. State lives in the database (paypal_sandbox_objects); time is the business clock.
 * See README.md beside this file.
 */

/** The sandbox's published credentials: accepted only by the sandbox, so only in sandbox mode. */
export const PAYPAL_SANDBOX_CLIENT_ID = "paypal-sandbox-client-id";
export const PAYPAL_SANDBOX_CLIENT_SECRET = "paypal-sandbox-client-secret";
export const PAYPAL_SANDBOX_WEBHOOK_ID = "WH-SANDBOX-0000000000000000";
/** Signs the sandbox's webhooks; verify-webhook-signature checks them with it. */
const PAYPAL_SANDBOX_WEBHOOK_SECRET = "paypal-sandbox-webhook-signing-secret";

export interface PayPalSandboxOptions {
  db: Database;
  clock: Clock;
  /** The portal's origin: the approval pages are `${publicUrl}/dev/paypal/...`. */
  publicUrl: string;
  /** Delivers a webhook to the product: the exact JSON text and PayPal's transmission headers. Awaited. */
  deliverWebhook(body: string, headers: Record<string, string>): Promise<void>;
  logger?: Pick<Console, "info" | "warn" | "error">;
}

export interface PayPalSandbox {
  /** The REST subset, served on its own loopback port by listen(). */
  restApp: import("express").Express;
  /** REST on a loopback port: the product's SDK goes to `http://127.0.0.1:${port}` (api/payments/paypal/sdk-base-url.ts). */
  listen(): Promise<{ port: number; close(): Promise<void> }>;
  /** The approval pages under /dev/paypal/... on the portal's origin; other paths go to next(). */
  browserRouter: import("express").Router;
  /** Retries failed webhooks, then bills every ACTIVE subscription whose next_billing_time has come (business clock). Safe to call twice. */
  advance(): Promise<void>;
}

export function createPayPalSandbox(opts: PayPalSandboxOptions): PayPalSandbox {
  const logger = opts.logger ?? console;
  const publicUrl = opts.publicUrl.replace(/\/+$/, "");
  const store = new PayPalStore(opts.db);
  const notifier = new Notifier(store, { deliver: opts.deliverWebhook, logger });
  const service = new PayPalService(store, notifier, opts.clock, publicUrl, {
    webhookId: PAYPAL_SANDBOX_WEBHOOK_ID,
    secret: PAYPAL_SANDBOX_WEBHOOK_SECRET,
    certUrl: `${publicUrl}/dev/paypal/certs/sandbox`,
  });
  const restApp = createRestApp({
    service,
    credentials: {
      clientId: PAYPAL_SANDBOX_CLIENT_ID,
      clientSecret: PAYPAL_SANDBOX_CLIENT_SECRET,
      webhookId: PAYPAL_SANDBOX_WEBHOOK_ID,
      webhookSecret: PAYPAL_SANDBOX_WEBHOOK_SECRET,
    },
    logger,
  });
  const browserRouter = createBrowserRouter({ service, logger });

  async function advanceNow(): Promise<void> {
    await notifier.retryFailed();
    await service.renewDue();
  }
  // One advance at a time in this process, so that its webhooks arrive in order; other instances are
  // kept from billing a cycle twice by the compare-and-set.
  let advancing: Promise<void> = Promise.resolve();

  return {
    restApp,
    browserRouter,
    async listen() {
      const listening = await listenOnLoopback(restApp);
      service.restBase = `http://127.0.0.1:${listening.port}`;
      return listening;
    },
    advance() {
      const run = advancing.then(advanceNow);
      advancing = run.catch(() => undefined);
      return run;
    },
  };
}
