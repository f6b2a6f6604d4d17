import type { Express, Router } from "express";
import type { TaxRates } from "../../platform/tax-rates";
import type { Database } from "../../platform/db";
import type { Clock } from "../../platform/clock";
import { listenOnLoopback } from "../../platform/loopback";
import { dueRetries, dueSubscriptions, runDueRenewal, runDueRetry } from "./billing";
import { applyDueSchedulePhase } from "./plan-changes";
import { createBrowserRouter } from "./browser";
import { expireDueSessions } from "./checkout";
import { Runner } from "./context";
import { type FaultPlan, SandboxFaults } from "./faults";
import { IdempotencyKeys } from "./idempotency";
import { WriterLock } from "./lock";
import { Renderer } from "./render";
import { createRestApp } from "./rest";
import { SandboxStore } from "./store";
import { unixSeconds } from "./time";
import { Webhooks } from "./webhooks";

/*
 * The Stripe sandbox: a stateful stand-in for the subset of Stripe's API that the product uses, so
 * that the product's real Stripe code (the official SDK) runs offline and in every test. State lives
 * in the database (stripe_sandbox_objects); time is the product's business clock.
 * See README.md beside this file.
 */

export const SANDBOX_SECRET_KEY = "sk_test_sandbox";
export const SANDBOX_PUBLISHABLE_KEY = "pk_test_sandbox";
export const SANDBOX_WEBHOOK_SECRET = "whsec_sandbox";
export const SANDBOX_API_VERSION = "2026-10-28.endive";

export { SANDBOX_CARD_MESSAGE, TEST_CARDS } from "./cards";
export { type Fault, type FaultPlan, parseFaultPlan, SandboxFaults } from "./faults";

export interface StripeSandboxOptions {
  db: Database;
  clock: Clock;
  /** The portal's public origin, for the hosted pages' URLs (e.g. http://localhost:3000). */
  publicUrl: string;
  /** Delivers a signed webhook event to the product: payload is the exact JSON text, signature the Stripe-Signature header value. Awaited. */
  deliverEvent(payload: string, signature: string): Promise<void>;
  logger?: Pick<Console, "info" | "warn" | "error">;
  /** Faults armed from the start (STRIPE_SANDBOX_FAULTS): for tests that spawn a process. */
  faults?: FaultPlan;
  /** When a failed renewal is tried again: days after the first failure (default [1, 3, 5, 7]; fractions allowed). */
  retryDays?: readonly number[];
  /**
   * The account's public business website (Stripe: Settings → Public details → Website), linked from
   * the hosted invoice page so that the customer finds the way back after paying (default: publicUrl).
   */
  businessUrl?: string;
  /** Stripe Tax's EU rates for the stand-in (the product's tax table; default: the built-in one). */
  taxRates?: TaxRates;
}

/** Stripe's automatic collection, as the sandbox schedules it: 1, 3, 5 and 7 days after the first failure. */
export const DEFAULT_RETRY_DAYS: readonly number[] = [1, 3, 5, 7];

export interface StripeSandbox {
  /** The REST API (/v1/...). createApi serves it on its own loopback port; the SDK is pointed there. */
  restApp: Express;
  /** Browser-facing pages and endpoints under /dev/stripe/... (hosted checkout, hosted invoice, the inline card form's tokenizer); mounted on the portal's origin. Paths outside /dev/stripe go to next(). */
  browserRouter: Router;
  /** Starts restApp on 127.0.0.1 on an ephemeral port. */
  listen(): Promise<{ port: number; close(): Promise<void> }>;
  /** Runs what has come due by clock.now(): subscription renewals and cancellations at period end, each with its webhooks delivered (awaited) before it resolves. Safe to call twice (no double renewal). */
  advance(): Promise<void>;
  /** The fault switch for tests (faults.ts): failing or lost answers, webhooks held back. */
  faults: SandboxFaults;
}

/** A guard against a runaway loop (a daily plan left for years is a few thousand renewals). */
const MAX_RENEWALS_PER_ADVANCE = 10_000;

export function createStripeSandbox(opts: StripeSandboxOptions): StripeSandbox {
  const logger = opts.logger ?? console;
  const publicUrl = opts.publicUrl.replace(/\/+$/, "");
  const store = new SandboxStore(opts.db);
  const renderer = new Renderer(store);
  const faults = new SandboxFaults(opts.faults);
  if (opts.faults) logger.warn("Stripe sandbox: STRIPE_SANDBOX_FAULTS is set; the sandbox will fail requests on purpose.");
  const webhooks = new Webhooks(store, {
    deferred: () => faults.deferWebhooks,
    heldFor: () => faults.holdWebhooksMs,
    secret: SANDBOX_WEBHOOK_SECRET,
    apiVersion: SANDBOX_API_VERSION,
    deliver: opts.deliverEvent,
    logger,
  });
  const runner = new Runner(store, renderer, new WriterLock(store), webhooks, opts.clock, publicUrl, opts.taxRates);
  const idempotency = new IdempotencyKeys(store);
  const retryDays = [...(opts.retryDays ?? DEFAULT_RETRY_DAYS)].sort((a, b) => a - b);

  const restApp = createRestApp({
    store,
    renderer,
    runner,
    idempotency,
    faults,
    secretKeyPrefix: SANDBOX_SECRET_KEY,
    apiVersion: SANDBOX_API_VERSION,
    logger,
  });
  const browserRouter = createBrowserRouter({
    store,
    renderer,
    runner,
    clock: opts.clock,
    publishableKeyPrefix: SANDBOX_PUBLISHABLE_KEY,
    businessUrl: opts.businessUrl ?? publicUrl,
    logger,
  });

  async function advanceNow(): Promise<void> {
    await webhooks.retryFailed();
    await idempotency.prune();
    await runner.run((ops) => expireDueSessions(ops));
    // One step (a renewal, or a retry of a failed renewal's invoice) per locked step, soonest first
    // across subscriptions, so events come in time order and each step's webhooks are handled before
    // the next step runs.
    const now = unixSeconds(opts.clock.now());
    type Step = { kind: "renewal" | "retry"; id: string; due: number };
    const queue: Step[] = [
      ...(await dueSubscriptions(store, now)).map((s) => ({ kind: "renewal" as const, ...s })),
      ...(await dueRetries(store, now)).map((s) => ({ kind: "retry" as const, ...s })),
    ];
    for (let steps = 0; queue.length > 0 && steps < MAX_RENEWALS_PER_ADVANCE; steps++) {
      queue.sort((a, b) => a.due - b.due || (a.id < b.id ? -1 : 1));
      const next = queue.shift();
      if (!next) break;
      if (next.kind === "renewal") {
        const due = await runner.run((ops) => runDueRenewal(ops, next.id, retryDays, applyDueSchedulePhase));
        if (due !== null) queue.push({ kind: "renewal", id: next.id, due });
        // A renewal that failed schedules its first retry: it may be due already.
        const sub = await store.get("subscription", next.id);
        const invoice = sub?.latest_invoice ? await store.get("invoice", sub.latest_invoice) : undefined;
        const retryAt = invoice?.status === "open" ? invoice.next_payment_attempt : null;
        if (invoice && retryAt !== null && retryAt <= now && !queue.some((q) => q.kind === "retry" && q.id === invoice.id)) {
          queue.push({ kind: "retry", id: invoice.id, due: retryAt });
        }
      } else {
        const due = await runner.run((ops) => runDueRetry(ops, next.id, retryDays));
        if (due !== null) queue.push({ kind: "retry", id: next.id, due });
      }
    }
  }
  let advancing: Promise<void> = Promise.resolve();

  return {
    restApp,
    browserRouter,
    faults,

    async listen() {
      await idempotency.prune();
      return listenOnLoopback(restApp);
    },

    advance() {
      // One advance at a time in this process, so that the webhooks of its steps arrive in time
      // order; other instances are kept from renewing twice by the re-check under the lock.
      const run = advancing.then(advanceNow);
      advancing = run.catch(() => undefined);
      return run;
    },
  };
}
