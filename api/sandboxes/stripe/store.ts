import { type Database, isUniqueViolation } from "../../platform/db";
import { notFound } from "./errors";
import type { ObjectType, SandboxObjects } from "./objects";

/*
 * All sandbox state lives in stripe_sandbox_objects, so it survives restarts and is shared by every
 * instance (SQLite or PostgreSQL). A row's id is `type:objectId` (product and coupon ids are chosen by
 * the caller and could otherwise collide across types); `customer` is the owning customer, for lists.
 * Besides the API objects, the table holds bookkeeping rows (idempotency keys, the writer lock,
 * pending webhook deliveries) through the raw-row methods; an idempotency key's `created` is real
 * time, since keys expire by the real clock.
 */

export interface RawRow {
  id: string;
  type: string;
  customer: string | null;
  data: string;
  created: number;
}

function customerOf(object: object): string | null {
  const value = (object as { customer?: unknown }).customer;
  return typeof value === "string" ? value : null;
}

/** An object's creation time (a discount has only its start). */
function createdOf(object: object): number {
  const { created, start } = object as { created?: unknown; start?: unknown };
  return typeof created === "number" ? created : typeof start === "number" ? start : 0;
}

/** Newest first; ids of one process sort by creation, which breaks ties within a second. */
function newestFirst(a: { created: number; id: string }, b: { created: number; id: string }): number {
  if (a.created !== b.created) return b.created - a.created;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export class SandboxStore {
  constructor(readonly db: Database) {}

  static rowId(type: ObjectType, id: string): string {
    return `${type}:${id}`;
  }

  async get<K extends ObjectType>(type: K, id: string): Promise<SandboxObjects[K] | undefined> {
    const row = await this.getRow(SandboxStore.rowId(type, id));
    return row && row.type === type ? (JSON.parse(row.data) as SandboxObjects[K]) : undefined;
  }

  /** The object, or Stripe's 404 naming `param`. */
  async require<K extends ObjectType>(type: K, id: string, param = "id"): Promise<SandboxObjects[K]> {
    const found = id ? await this.get(type, id) : undefined;
    if (!found) throw notFound(type, id, param);
    return found;
  }

  /** Inserts a new object; false when one with that id exists already. */
  async insert<K extends ObjectType>(type: K, object: SandboxObjects[K]): Promise<boolean> {
    return this.tryInsertRow({
      id: SandboxStore.rowId(type, object.id),
      type,
      customer: customerOf(object),
      data: JSON.stringify(object),
      created: createdOf(object),
    });
  }

  async save<K extends ObjectType>(type: K, object: SandboxObjects[K]): Promise<void> {
    await this.db
      .updateTable("stripe_sandbox_objects")
      .set({ data: JSON.stringify(object), customer: customerOf(object) })
      .where("id", "=", SandboxStore.rowId(type, object.id))
      .execute();
  }

  async remove(type: ObjectType, id: string): Promise<void> {
    await this.deleteRow(SandboxStore.rowId(type, id));
  }

  /** Every object of a type (of one customer when given), newest first. */
  async list<K extends ObjectType>(type: K, customer?: string): Promise<SandboxObjects[K][]> {
    let query = this.db.selectFrom("stripe_sandbox_objects").select(["id", "data", "created"]).where("type", "=", type);
    if (customer !== undefined) query = query.where("customer", "=", customer);
    const rows = await query.execute();
    return rows
      .map((row) => ({ id: row.id, created: Number(row.created), object: JSON.parse(row.data) as SandboxObjects[K] }))
      .sort(newestFirst)
      .map((row) => row.object);
  }

  async count(type: ObjectType): Promise<number> {
    const row = await this.db
      .selectFrom("stripe_sandbox_objects")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("type", "=", type)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  // Raw rows -------------------------------------------------------------------------------------

  /** Inserts a row; false when its id is taken (the way concurrent claims are decided). */
  async tryInsertRow(row: RawRow): Promise<boolean> {
    try {
      await this.db.insertInto("stripe_sandbox_objects").values(row).execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async getRow(id: string): Promise<RawRow | undefined> {
    const row = await this.db.selectFrom("stripe_sandbox_objects").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? { ...row, created: Number(row.created) } : undefined;
  }

  async rowsOfType(type: string): Promise<RawRow[]> {
    const rows = await this.db.selectFrom("stripe_sandbox_objects").selectAll().where("type", "=", type).execute();
    return rows.map((row) => ({ ...row, created: Number(row.created) }));
  }

  /** Replaces a row's data only if it still holds `expected` (compare-and-set); true when it did. */
  async replaceRow(id: string, expected: string, data: string): Promise<boolean> {
    const result = await this.db
      .updateTable("stripe_sandbox_objects")
      .set({ data })
      .where("id", "=", id)
      .where("data", "=", expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Deletes the rows of a bookkeeping type created before `created`. */
  async deleteRowsBefore(type: string, created: number): Promise<void> {
    await this.db.deleteFrom("stripe_sandbox_objects").where("type", "=", type).where("created", "<", created).execute();
  }

  /** Deletes a row (only if it still holds `expected`, when given); true when it did. */
  async deleteRow(id: string, expected?: string): Promise<boolean> {
    let query = this.db.deleteFrom("stripe_sandbox_objects").where("id", "=", id);
    if (expected !== undefined) query = query.where("data", "=", expected);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
