import { createHmac, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";
import { newId, paypalTime } from "./model";
import { type PayPalStore, type Row, row } from "./store";

/*
 * Webhooks as PayPal sends them: the event JSON ({id: WH-..., event_version, create_time,
 * resource_type, resource_version, event_type, summary, resource, links}) with PayPal's transmission
 * headers. PayPal signs with its RSA certificate; the sandbox signs with an HMAC of the same signed
 * string PayPal uses (`transmission_id|transmission_time|webhook_id|crc32(body)`) under a sandbox
 * secret, so only its own verify-webhook-signature can check it, as with PayPal.
 *
 * A change stores its events as delivery rows in the same transaction; they are then handed to the
 * product one after another (awaited). A delivery that throws keeps its row and is retried by
 * advance(), three times at most; the body is fixed when the row is written.
 */

export type EventType =
  | "CHECKOUT.ORDER.APPROVED"
  | "PAYMENT.CAPTURE.COMPLETED"
  | "BILLING.SUBSCRIPTION.ACTIVATED"
  | "BILLING.SUBSCRIPTION.RE-ACTIVATED"
  | "BILLING.SUBSCRIPTION.CANCELLED"
  | "BILLING.SUBSCRIPTION.SUSPENDED"
  | "BILLING.SUBSCRIPTION.EXPIRED"
  | "BILLING.SUBSCRIPTION.PAYMENT.FAILED"
  | "BILLING.SUBSCRIPTION.UPDATED"
  | "PAYMENT.SALE.COMPLETED";

const RESOURCE: Record<EventType, { type: string; version: string; summary: string }> = {
  "CHECKOUT.ORDER.APPROVED": { type: "checkout-order", version: "2.0", summary: "An order has been approved by buyer" },
  "PAYMENT.CAPTURE.COMPLETED": { type: "capture", version: "2.0", summary: "Payment completed for $ amount" },
  "BILLING.SUBSCRIPTION.ACTIVATED": { type: "subscription", version: "2.0", summary: "Subscription activated" },
  "BILLING.SUBSCRIPTION.RE-ACTIVATED": { type: "subscription", version: "2.0", summary: "Subscription re-activated" },
  "BILLING.SUBSCRIPTION.CANCELLED": { type: "subscription", version: "2.0", summary: "Subscription cancelled" },
  "BILLING.SUBSCRIPTION.SUSPENDED": { type: "subscription", version: "2.0", summary: "Subscription suspended" },
  "BILLING.SUBSCRIPTION.EXPIRED": { type: "subscription", version: "2.0", summary: "Subscription expired" },
  "BILLING.SUBSCRIPTION.PAYMENT.FAILED": { type: "subscription", version: "2.0", summary: "Subscription payment failed" },
  "BILLING.SUBSCRIPTION.UPDATED": { type: "subscription", version: "2.0", summary: "Subscription updated" },
  "PAYMENT.SALE.COMPLETED": { type: "sale", version: "1.0", summary: "Payment completed for $ amount" },
};

export const AUTH_ALGO = "HMACSHA256-SANDBOX";

export interface Event {
  type: EventType;
  resource: Record<string, unknown>;
}

interface DeliveryState {
  event_id: string;
  event_type: EventType;
  body: string;
  headers: Record<string, string>;
  attempts: number;
  state: "pending" | "failed" | "retrying";
  /** Real time: the "lost" check is about this process's wall clock. */
  queued_ms: number;
}

export const MAX_DELIVERY_ATTEMPTS = 4;
const LOST_AFTER_MS = 5 * 60_000;

export function signedString(transmissionId: string, transmissionTime: string, webhookId: string, body: string): string {
  return `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(Buffer.from(body, "utf8"))}`;
}

export function sign(secret: string, signed: string): string {
  return createHmac("sha256", secret).update(signed).digest("base64");
}

export function signatureMatches(secret: string, signed: string, signature: string): boolean {
  const expected = Buffer.from(sign(secret, signed));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface Signer {
  webhookId: string;
  secret: string;
  certUrl: string;
}

let deliverySequence = 0;

/** The delivery rows of events, in order, each a body and PayPal's headers. */
export function deliveryRows(events: readonly Event[], signer: Signer, nowMs: number, base: string): Row[] {
  return events.map((event) => {
    const id = newId.event();
    const meta = RESOURCE[event.type];
    const body = JSON.stringify({
      id,
      event_version: "1.0",
      create_time: paypalTime(nowMs),
      resource_type: meta.type,
      resource_version: meta.version,
      event_type: event.type,
      summary: meta.summary,
      resource: event.resource,
      links: [
        { href: `${base}/v1/notifications/webhooks-events/${id}`, rel: "self", method: "GET" },
        { href: `${base}/v1/notifications/webhooks-events/${id}/resend`, rel: "resend", method: "POST" },
      ],
    });
    const transmissionId = newId.transmission();
    const transmissionTime = new Date(nowMs).toISOString();
    const headers = {
      "paypal-transmission-id": transmissionId,
      "paypal-transmission-time": transmissionTime,
      "paypal-transmission-sig": sign(signer.secret, signedString(transmissionId, transmissionTime, signer.webhookId, body)),
      "paypal-cert-url": signer.certUrl,
      "paypal-auth-algo": AUTH_ALGO,
      "paypal-auth-version": "v2",
      "content-type": "application/json",
    };
    const state: DeliveryState = { event_id: id, event_type: event.type, body, headers, attempts: 0, state: "pending", queued_ms: Date.now() };
    // Real time and a counter in the id: rows sort in the order they were written.
    const key = `delivery:${String(Date.now()).padStart(15, "0")}:${String(++deliverySequence % 1e6).padStart(6, "0")}:${id}`;
    return row("delivery", key, state, nowMs);
  });
}

export class Notifier {
  constructor(
    private readonly store: PayPalStore,
    private readonly opts: {
      deliver(body: string, headers: Record<string, string>): Promise<void>;
      logger: Pick<Console, "warn" | "error">;
    },
  ) {}

  async deliver(rows: readonly Row[]): Promise<void> {
    for (const r of rows) await this.attempt(r.id, r.data, JSON.parse(r.data) as DeliveryState);
  }

  async retryFailed(): Promise<void> {
    for (const r of await this.store.rows("delivery")) {
      const state = JSON.parse(r.data) as DeliveryState;
      if (state.state !== "failed" && Date.now() - state.queued_ms <= LOST_AFTER_MS) continue;
      const claimed: DeliveryState = { ...state, state: "retrying", queued_ms: Date.now() };
      const claimedData = JSON.stringify(claimed);
      // Another advance() (here or in another instance) may be retrying it right now.
      if (!(await this.store.replace(r.id, r.data, claimedData))) continue;
      await this.attempt(r.id, claimedData, claimed);
    }
  }

  private async attempt(rowId: string, rowData: string, state: DeliveryState): Promise<void> {
    try {
      await this.opts.deliver(state.body, state.headers);
      await this.store.delete(rowId);
    } catch {
      // Only the event id and type: the error may carry the buyer's details.
      const attempts = state.attempts + 1;
      if (attempts >= MAX_DELIVERY_ATTEMPTS) {
        await this.store.delete(rowId);
        this.opts.logger.error(`PayPal sandbox: gave up delivering ${state.event_type} ${state.event_id} after ${attempts} attempts.`);
        return;
      }
      await this.store.replace(rowId, rowData, JSON.stringify({ ...state, attempts, state: "failed", queued_ms: Date.now() }));
      this.opts.logger.warn(`PayPal sandbox: delivering ${state.event_type} ${state.event_id} failed; the next advance() retries it.`);
    }
  }
}
