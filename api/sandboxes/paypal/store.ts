import type { Database } from "../../platform/db";

/*
 * All PayPal sandbox state lives in paypal_sandbox_objects (sandbox migration 0003), so it survives
 * restarts and every instance on the database sees it. A change is a compare-and-set on the rows'
 * whole JSON (update ... where data = what was read), together with the rows it adds (captures,
 * sales, stored PayPal-Request-Id answers, webhook deliveries), in one transaction: two instances
 * acting on one object at once never both succeed.
 */

export type ObjectType = "order" | "capture" | "product" | "plan" | "subscription" | "sale" | "refund" | "request" | "delivery";

export interface Row {
  id: string;
  type: ObjectType;
  ref: string | null;
  data: string;
  created: number;
}

export interface Stored<T> {
  record: T;
  /** The row's text as read: the expected value of a compare-and-set. */
  data: string;
}

export interface Change {
  updates?: readonly { id: string; expected: string; record: unknown }[];
  inserts?: readonly Row[];
}

export const unixSeconds = (ms: number) => Math.floor(ms / 1000);

export function row(type: ObjectType, id: string, record: unknown, nowMs: number, ref: string | null = null): Row {
  return { id, type, ref, data: JSON.stringify(record), created: unixSeconds(nowMs) };
}

export class PayPalStore {
  constructor(private readonly db: Database) {}

  async get<T>(type: ObjectType, id: string): Promise<Stored<T> | undefined> {
    const found = await this.db
      .selectFrom("paypal_sandbox_objects")
      .select("data")
      .where("id", "=", id)
      .where("type", "=", type)
      .executeTakeFirst();
    return found ? { record: JSON.parse(found.data) as T, data: found.data } : undefined;
  }

  /** Rows of a type (with a parent; whose JSON contains `containing`: a cheap pre-filter), oldest first. */
  async list<T>(type: ObjectType, ref?: string, containing?: string): Promise<Stored<T>[]> {
    let query = this.db.selectFrom("paypal_sandbox_objects").select(["id", "data"]).where("type", "=", type);
    if (ref !== undefined) query = query.where("ref", "=", ref);
    if (containing !== undefined) query = query.where("data", "like", `%${containing}%`);
    const rows = await query.orderBy("created").orderBy("id").execute();
    return rows.map((r) => ({ record: JSON.parse(r.data) as T, data: r.data }));
  }

  async rows(type: ObjectType): Promise<Row[]> {
    const rows = await this.db.selectFrom("paypal_sandbox_objects").selectAll().where("type", "=", type).orderBy("id").execute();
    return rows.map((r) => ({ ...r, type: r.type as ObjectType, created: Number(r.created) }));
  }

  /**
   * Applies a change in one transaction: every update must still find its expected text, every
   * insert a free id; false (nothing written) otherwise.
   */
  async commit(change: Change): Promise<boolean> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        for (const update of change.updates ?? []) {
          const result = await trx
            .updateTable("paypal_sandbox_objects")
            .set({ data: JSON.stringify(update.record) })
            .where("id", "=", update.id)
            .where("data", "=", update.expected)
            .executeTakeFirst();
          if (Number(result.numUpdatedRows) === 0) throw new LostRace();
        }
        if (change.inserts && change.inserts.length > 0) {
          await trx.insertInto("paypal_sandbox_objects").values([...change.inserts]).execute();
        }
        return true;
      });
    } catch (error) {
      if (error instanceof LostRace || isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Compare-and-set of one row's text; true when it still held `expected`. */
  async replace(id: string, expected: string, data: string): Promise<boolean> {
    const result = await this.db
      .updateTable("paypal_sandbox_objects")
      .set({ data })
      .where("id", "=", id)
      .where("data", "=", expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom("paypal_sandbox_objects").where("id", "=", id).execute();
  }
}

class LostRace extends Error {}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  // PostgreSQL 23505; SQLite SQLITE_CONSTRAINT_PRIMARYKEY / _UNIQUE.
  return e?.code === "23505" || (typeof e?.code === "string" && e.code.startsWith("SQLITE_CONSTRAINT"));
}
