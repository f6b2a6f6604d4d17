import type { Database } from "../../platform/db";
import { INVOICE_ID_PATTERN, INVOICE_LIFETIME_MS, type SandboxInvoice } from "./invoices";

/*
 * All sandbox state lives in bitpay_sandbox_invoices, so it survives restarts and every instance on
 * the database sees it (SQLite or PostgreSQL). An invoice's row id is its BitPay id and `data` the
 * invoice as the API answers it; pending notification deliveries share the table as rows with ids
 * `delivery:<invoice>:<n>`. `created` is business-time unix seconds.
 *
 * A change of an invoice is a compare-and-set on its whole JSON (update ... where data = what was
 * read), so that two instances acting on one invoice at once never both succeed.
 */

export const DELIVERY_PREFIX = "delivery:";

export interface Row {
  id: string;
  data: string;
  created: number;
}

export interface StoredInvoice {
  invoice: SandboxInvoice;
  /** The row's text as read: the expected value of a compare-and-set. */
  data: string;
}

const unixSeconds = (ms: number) => Math.floor(ms / 1000);

export class SandboxStore {
  constructor(private readonly db: Database) {}

  async getInvoice(id: string): Promise<StoredInvoice | undefined> {
    // Only invoice ids: a delivery row is never an invoice.
    if (!INVOICE_ID_PATTERN.test(id)) return undefined;
    const row = await this.db.selectFrom("bitpay_sandbox_invoices").select("data").where("id", "=", id).executeTakeFirst();
    return row ? { invoice: JSON.parse(row.data) as SandboxInvoice, data: row.data } : undefined;
  }

  async insertInvoice(invoice: SandboxInvoice): Promise<void> {
    await this.db
      .insertInto("bitpay_sandbox_invoices")
      .values({ id: invoice.id, data: JSON.stringify(invoice), created: unixSeconds(invoice.invoiceTime) })
      .execute();
  }

  /** The ids of `new` invoices whose expirationTime has passed, oldest first. */
  async dueInvoiceIds(nowMs: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("bitpay_sandbox_invoices")
      .select(["id", "data"])
      .where("id", "not like", `${DELIVERY_PREFIX}%`)
      // Cheap filters first (created = invoiceTime in seconds); the JSON decides.
      .where("created", "<=", unixSeconds(nowMs - INVOICE_LIFETIME_MS))
      .where("data", "like", '%"status":"new"%')
      .execute();
    return rows
      .map((row) => JSON.parse(row.data) as SandboxInvoice)
      .filter((invoice) => invoice.status === "new" && invoice.expirationTime <= nowMs)
      .sort((a, b) => a.expirationTime - b.expirationTime)
      .map((invoice) => invoice.id);
  }

  /**
   * Replaces an invoice that still holds `expected` and inserts its pending deliveries, in one
   * transaction; false (nothing written) when another writer changed the invoice first.
   */
  async commit(expected: StoredInvoice, next: SandboxInvoice, deliveries: readonly Row[]): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable("bitpay_sandbox_invoices")
        .set({ data: JSON.stringify(next) })
        .where("id", "=", expected.invoice.id)
        .where("data", "=", expected.data)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      if (deliveries.length > 0) await trx.insertInto("bitpay_sandbox_invoices").values([...deliveries]).execute();
      return true;
    });
  }

  async deliveryRows(): Promise<Row[]> {
    const rows = await this.db
      .selectFrom("bitpay_sandbox_invoices")
      .selectAll()
      .where("id", "like", `${DELIVERY_PREFIX}%`)
      .execute();
    return rows.map((row) => ({ ...row, created: Number(row.created) }));
  }

  /** Compare-and-set of a row's data; true when it still held `expected`. */
  async replaceRow(id: string, expected: string, data: string): Promise<boolean> {
    const result = await this.db
      .updateTable("bitpay_sandbox_invoices")
      .set({ data })
      .where("id", "=", id)
      .where("data", "=", expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async deleteRow(id: string): Promise<void> {
    await this.db.deleteFrom("bitpay_sandbox_invoices").where("id", "=", id).execute();
  }
}
