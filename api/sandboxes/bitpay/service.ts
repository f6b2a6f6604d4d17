import type { Clock } from "../../platform/clock";
import { type NewInvoiceParams, type SandboxAction, type SandboxInvoice, newInvoice, newInvoiceId, settle } from "./invoices";
import { type Notifier, deliveryRows } from "./notifications";
import { invoicePath } from "./pages";
import type { SerialQueue } from "./queue";
import type { Row, SandboxStore } from "./store";

/*
 * What the REST API, the invoice page and advance() do to invoices. Changes run on the queue and
 * commit with a compare-and-set; their notifications are delivered after the queue is free (the
 * product's handler calls GET /invoices/:id back), and before the caller answers.
 */

export class SandboxService {
  constructor(
    private readonly store: SandboxStore,
    private readonly queue: SerialQueue,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  nowMs(): number {
    return this.clock.now().getTime();
  }

  async create(params: NewInvoiceParams): Promise<SandboxInvoice> {
    const id = newInvoiceId();
    const invoice = newInvoice(id, `${this.publicUrl}${invoicePath(id)}`, params, this.nowMs());
    await this.store.insertInvoice(invoice);
    return invoice;
  }

  async get(id: string): Promise<SandboxInvoice | undefined> {
    return (await this.store.getInvoice(id))?.invoice;
  }

  /**
   * Applies an action to a `new` invoice and delivers its notifications. An invoice that is no
   * longer `new` is left as it is (nothing is sent twice). Answers the invoice as it now stands,
   * undefined when there is none.
   */
  async act(id: string, action: SandboxAction): Promise<SandboxInvoice | undefined> {
    const outcome = await this.queue.run(async (): Promise<{ invoice: SandboxInvoice; rows: Row[] } | undefined> => {
      const stored = await this.store.getInvoice(id);
      if (!stored) return undefined;
      if (stored.invoice.status !== "new") return { invoice: stored.invoice, rows: [] };
      const nowMs = this.nowMs();
      const { next, notify } = settle(stored.invoice, action);
      const rows = deliveryRows(next, notify, nowMs);
      if (await this.store.commit(stored, next, rows)) return { invoice: next, rows };
      // Another instance changed it first: its notifications are its own to send.
      const current = await this.store.getInvoice(id);
      return current && { invoice: current.invoice, rows: [] };
    });
    if (outcome) await this.notifier.deliver(outcome.rows);
    return outcome?.invoice;
  }

  /** Expires every `new` invoice past its expirationTime (business clock), each with its notification. */
  async expireDue(): Promise<void> {
    for (const id of await this.store.dueInvoiceIds(this.nowMs())) {
      // act() re-reads under the queue: one paid meanwhile stays paid.
      await this.act(id, "expire");
    }
  }
}
