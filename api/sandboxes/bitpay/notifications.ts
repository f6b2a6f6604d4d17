import { type NotifiedStatus, type SandboxInvoice, notificationBody } from "./invoices";
import { DELIVERY_PREFIX, type Row, type SandboxStore } from "./store";

/*
 * Notification delivery. A change of an invoice stores its notifications as delivery rows in the
 * same transaction; they are then handed to the product one after another (awaited). A delivery
 * that throws keeps its row and is retried by advance(), three times at most. The body is fixed
 * when the row is written, so a retry posts the same text.
 */

/** The first attempt and up to three retries. */
export const MAX_DELIVERY_ATTEMPTS = 4;
/** A delivery still marked in flight after this long was lost (a crash): retry it. */
const LOST_AFTER_MS = 5 * 60_000;

interface DeliveryState {
  invoice: string;
  status: NotifiedStatus;
  url: string;
  body: string;
  attempts: number;
  state: "pending" | "failed" | "retrying";
  /** Real time: the "lost" check is about this process's wall clock, not the business clock. */
  queued_ms: number;
}

export interface NotifierOptions {
  deliver(url: string, body: string): Promise<void>;
  logger: Pick<Console, "warn" | "error">;
}

/** The delivery rows for an invoice's notifications, in order (none without a notificationURL). */
export function deliveryRows(invoice: SandboxInvoice, statuses: readonly NotifiedStatus[], nowMs: number): Row[] {
  const url = invoice.notificationURL;
  if (!url) return [];
  return statuses.map((status, index) => {
    const state: DeliveryState = {
      invoice: invoice.id,
      status,
      url,
      body: notificationBody(invoice, status, nowMs),
      attempts: 0,
      state: "pending",
      queued_ms: Date.now(),
    };
    // An invoice changes once (from `new`): its index makes the id unique and sorts the rows.
    return { id: `${DELIVERY_PREFIX}${invoice.id}:${index + 1}`, data: JSON.stringify(state), created: Math.floor(nowMs / 1000) };
  });
}

export class Notifier {
  constructor(
    private readonly store: SandboxStore,
    private readonly opts: NotifierOptions,
  ) {}

  /** Delivers freshly written rows, in order. */
  async deliver(rows: readonly Row[]): Promise<void> {
    for (const row of rows) await this.attempt(row.id, row.data, JSON.parse(row.data) as DeliveryState);
  }

  /** Retries the deliveries that failed (or were lost), oldest first. */
  async retryFailed(): Promise<void> {
    const due = (await this.store.deliveryRows())
      .map((row) => ({ row, state: JSON.parse(row.data) as DeliveryState }))
      .filter(({ state }) => state.state === "failed" || Date.now() - state.queued_ms > LOST_AFTER_MS)
      .sort((a, b) => a.row.created - b.row.created || (a.row.id < b.row.id ? -1 : 1));
    for (const { row, state } of due) {
      const claimed: DeliveryState = { ...state, state: "retrying", queued_ms: Date.now() };
      const claimedData = JSON.stringify(claimed);
      // Another advance() (here or in another instance) may be retrying it right now.
      if (!(await this.store.replaceRow(row.id, row.data, claimedData))) continue;
      await this.attempt(row.id, claimedData, claimed);
    }
  }

  private async attempt(rowId: string, rowData: string, state: DeliveryState): Promise<void> {
    try {
      await this.opts.deliver(state.url, state.body);
      await this.store.deleteRow(rowId);
    } catch {
      // Only the invoice id and status: the error may carry the buyer's details.
      const attempts = state.attempts + 1;
      if (attempts >= MAX_DELIVERY_ATTEMPTS) {
        await this.store.deleteRow(rowId);
        this.opts.logger.error(
          `BitPay sandbox: gave up notifying invoice ${state.invoice} (${state.status}) after ${attempts} attempts.`,
        );
        return;
      }
      const failed: DeliveryState = { ...state, attempts, state: "failed", queued_ms: Date.now() };
      await this.store.replaceRow(rowId, rowData, JSON.stringify(failed));
      this.opts.logger.warn(
        `BitPay sandbox: notifying invoice ${state.invoice} (${state.status}) failed; the next advance() retries it.`,
      );
    }
  }
}
