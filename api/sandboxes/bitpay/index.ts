import type { Database } from "../../platform/db";
import type { Clock } from "../../platform/clock";
import { listenOnLoopback } from "../../platform/loopback";
import { createBrowserRouter } from "./browser";
import { Notifier } from "./notifications";
import { SerialQueue } from "./queue";
import { createRestApp } from "./rest";
import { SandboxService } from "./service";
import { SandboxStore } from "./store";

/*
 * The crypto sandbox: a stateful stand-in for the subset of BitPay's REST API that the product uses
 * (POS facade invoices), with an invoice page whose buttons decide what the buyer's wallet does, so
 * that the product's real BitPay client runs offline and in every test. State lives in the database
 * (bitpay_sandbox_invoices); time is the product's business clock. See README.md beside this file.
 */

export const BITPAY_SANDBOX_TOKEN = "bitpay-sandbox-token";
/** The secret the product's notification route expects from this sandbox: published, so it is accepted only in sandbox mode. */
export const BITPAY_SANDBOX_NOTIFICATION_SECRET = "bitpay-sandbox-notification-secret";

export interface BitPaySandboxOptions {
  db: Database;
  clock: Clock;
  publicUrl: string; // the portal's origin; the invoice page is `${publicUrl}/dev/bitpay/invoice/${id}`
  /** Delivers a notification to the product: `url` is the invoice's notificationURL as given, `body` the exact JSON text BitPay would POST. Awaited. */
  deliverNotification(url: string, body: string): Promise<void>;
  logger?: Pick<Console, "info" | "warn" | "error">;
}

export interface BitPaySandbox {
  /** The REST subset (POST /invoices, GET /invoices/:id), served on its own loopback port: the product's client uses `http://127.0.0.1:${port}/` as baseUrl. */
  restApp: import("express").Express;
  listen(): Promise<{ port: number; close(): Promise<void> }>;
  /** Browser pages under /dev/bitpay/... on the portal's origin; other paths go to next(). Mount it as `app.use((req, res, next) => sandbox.browserRouter(req, res, next))`. */
  browserRouter: import("express").Router;
  /** Expires every `new` invoice whose expirationTime (invoiceTime + 15 minutes, business clock) has passed, with its notification. Safe to call twice. */
  advance(): Promise<void>;
}

export function createBitPaySandbox(opts: BitPaySandboxOptions): BitPaySandbox {
  const logger = opts.logger ?? console;
  const store = new SandboxStore(opts.db);
  const notifier = new Notifier(store, { deliver: opts.deliverNotification, logger });
  const service = new SandboxService(store, new SerialQueue(), notifier, opts.clock, opts.publicUrl.replace(/\/+$/, ""));
  const restApp = createRestApp({ service, token: BITPAY_SANDBOX_TOKEN, logger });
  const browserRouter = createBrowserRouter({ service, logger });

  async function advanceNow(): Promise<void> {
    await notifier.retryFailed();
    await service.expireDue();
  }
  // One advance at a time in this process, so its notifications arrive in order; other instances
  // are kept from expiring an invoice twice by the compare-and-set.
  let advancing: Promise<void> = Promise.resolve();

  return {
    restApp,
    browserRouter,

    async listen() {
      return listenOnLoopback(restApp);
    },

    advance() {
      const run = advancing.then(advanceNow);
      advancing = run.catch(() => undefined);
      return run;
    },
  };
}
