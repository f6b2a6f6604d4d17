import { createHmac } from "node:crypto";
import { complete } from "./complete";
import { newId } from "./ids";
import type { SbEvent } from "./objects";
import type { SandboxStore } from "./store";

/*
 * Events and their delivery. Each event is stored (GET /v1/events/:id) with a delivery row beside
 * it; the payload is signed like Stripe's (`t=…,v1=HMAC-SHA256(secret, "t.payload")`) and handed to
 * the product. A delivery that fails keeps its row and is retried by advance(), a few times at most.
 * Signatures use the real time, not the business clock: the product checks them against its own
 * real time (Stripe's five-minute tolerance), and the test clock may be months ahead.
 */

export type EventType =
  | "customer.created"
  | "customer.updated"
  | "payment_method.attached"
  | "payment_method.detached"
  | "payment_method.updated"
  | "checkout.session.completed"
  | "checkout.session.expired"
  | "invoice.created"
  | "invoice.finalized"
  | "invoice.updated"
  | "invoice.paid"
  | "invoice.payment_succeeded"
  | "invoice.payment_failed"
  | "invoice.payment_action_required"
  | "customer.subscription.created"
  | "customer.subscription.updated"
  | "customer.subscription.deleted"
  | "payment_intent.succeeded"
  | "payment_intent.payment_failed"
  | "payment_intent.canceled"
  | "payment_intent.requires_action"
  | "charge.refunded"
  | "refund.created"
  | "setup_intent.succeeded"
  | "setup_intent.requires_action"
  | "setup_intent.setup_failed";

/** The first attempt and up to three retries. */
export const MAX_DELIVERY_ATTEMPTS = 4;
/** A delivery still marked in flight after this long was lost (a crash): retry it. */
const LOST_AFTER_MS = 5 * 60_000;

export interface WebhooksOptions {
  /** True while the fault switch holds webhooks back: deliveries wait, as failed ones, for advance(). */
  deferred?: () => boolean;
  /** How long a held delivery waits before retryFailed() may send it (ms). */
  heldFor?: () => number;
  secret: string;
  apiVersion: string;
  deliver(payload: string, signature: string): Promise<void>;
  logger: Pick<Console, "info" | "warn" | "error">;
}

interface DeliveryState {
  event: string;
  type: string;
  attempts: number;
  state: "pending" | "failed" | "retrying";
  queued_ms: number;
  /** A held delivery is not retried before this moment (the fault switch's holdWebhooksMs). */
  not_before_ms?: number;
}

/** The Stripe-Signature header for a payload. */
export function signatureHeader(payload: string, secret: string, timestamp: number): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

const deliveryRowId = (eventId: string) => `webhook_delivery:${eventId}`;

export class Webhooks {
  /** The delivery row as record() wrote it, for the compare-and-set that follows. */
  private readonly pending = new Map<string, string>();

  constructor(
    private readonly store: SandboxStore,
    private readonly opts: WebhooksOptions,
  ) {}

  /** Stores an event and its pending delivery (called under the writer lock). */
  async record(
    type: EventType,
    object: Record<string, unknown>,
    created: number,
    previousAttributes?: Record<string, unknown>,
  ): Promise<SbEvent> {
    const event: SbEvent = {
      id: newId("evt_"),
      object: "event",
      api_version: this.opts.apiVersion,
      created,
      data: previousAttributes ? { object, previous_attributes: previousAttributes } : { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    await this.store.insert("event", event);
    const state: DeliveryState = { event: event.id, type, attempts: 0, state: "pending", queued_ms: Date.now() };
    const data = JSON.stringify(state);
    await this.store.tryInsertRow({ id: deliveryRowId(event.id), type: "webhook_delivery", customer: null, data, created });
    this.pending.set(event.id, data);
    return event;
  }

  /** Delivers events one after another, in order (awaited). */
  async deliver(events: readonly SbEvent[]): Promise<void> {
    for (const event of events) {
      const data = this.pending.get(event.id);
      this.pending.delete(event.id);
      if (!data) continue;
      if (this.opts.deferred?.()) {
        const held: DeliveryState = { event: event.id, type: event.type, attempts: 0, state: "failed", queued_ms: Date.now(), not_before_ms: Date.now() + (this.opts.heldFor?.() ?? 0) };
        await this.store.replaceRow(deliveryRowId(event.id), data, JSON.stringify(held));
        continue;
      }
      await this.attempt(event, data, 0);
    }
  }

  /** Retries the deliveries that failed (oldest first). */
  async retryFailed(): Promise<void> {
    const rows = await this.store.rowsOfType("webhook_delivery");
    const due = rows
      .map((row) => ({ row, state: JSON.parse(row.data) as DeliveryState }))
      .filter(({ state }) => (state.state === "failed" && (state.not_before_ms ?? 0) <= Date.now()) || Date.now() - state.queued_ms > LOST_AFTER_MS)
      .sort((a, b) => a.row.created - b.row.created || (a.row.id < b.row.id ? -1 : 1));
    for (const { row, state } of due) {
      const claimed = JSON.stringify({ ...state, state: "retrying", queued_ms: Date.now() } satisfies DeliveryState);
      // Another advance() may be retrying it right now.
      if (!(await this.store.replaceRow(row.id, row.data, claimed))) continue;
      const event = await this.store.get("event", state.event);
      if (!event) {
        await this.store.deleteRow(row.id);
        continue;
      }
      await this.attempt(event, claimed, state.attempts);
    }
  }

  private async attempt(event: SbEvent, rowData: string, attemptsBefore: number): Promise<void> {
    const payload = JSON.stringify(complete(structuredClone(event)), null, 2);
    const signature = signatureHeader(payload, this.opts.secret, Math.floor(Date.now() / 1000));
    const rowId = deliveryRowId(event.id);
    try {
      await this.opts.deliver(payload, signature);
      await this.store.deleteRow(rowId);
    } catch {
      // Only the id and type: the error may carry payment details.
      const attempts = attemptsBefore + 1;
      if (attempts >= MAX_DELIVERY_ATTEMPTS) {
        await this.store.deleteRow(rowId);
        this.opts.logger.error(`Stripe sandbox: gave up delivering webhook ${event.id} (${event.type}) after ${attempts} attempts.`);
        return;
      }
      const failed: DeliveryState = { event: event.id, type: event.type, attempts, state: "failed", queued_ms: Date.now() };
      await this.store.replaceRow(rowId, rowData, JSON.stringify(failed));
      this.opts.logger.warn(
        `Stripe sandbox: delivering webhook ${event.id} (${event.type}) failed; the next advance() retries it.`,
      );
    }
  }
}
