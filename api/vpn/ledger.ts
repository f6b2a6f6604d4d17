import { type Database, dialectOf } from "../platform/db";

/*
 * The locks and counters every change of the peers list takes, always in this order, so that two
 * changes never wait on each other in a circle (PostgreSQL; SQLite runs one write transaction at a
 * time): the account's row in `users` (shared: only creation and the erasure take it), the account's
 * `vpn_accounts` row, then the 'peers_revision' counter. The counter's row stays locked until the
 * change commits, so revisions commit in their order: a server that has seen revision n has seen every
 * change up to n, and `?since=n` misses nothing.
 */

/** Takes the next peers revision (under the counter row's lock until the transaction ends). */
export async function nextRevision(trx: Database): Promise<number> {
  return bumpCounter(trx, "peers_revision");
}

/** The revision of the peers list as committed now. */
export async function currentRevision(db: Database): Promise<number> {
  const row = await db.selectFrom("vpn_counters").select("value").where("name", "=", "peers_revision").executeTakeFirstOrThrow();
  return Number(row.value);
}

/** Adds one to a counter and answers its new value, atomically on both databases. */
export async function bumpCounter(trx: Database, name: "peers_revision" | "next_address"): Promise<number> {
  const row = await trx
    .updateTable("vpn_counters")
    .set((eb) => ({ value: eb("value", "+", 1) }))
    .where("name", "=", name)
    .returning("value")
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * The account's vpn_accounts row, locked until the transaction ends (PostgreSQL; SQLite's write
 * transaction holds the whole database), or undefined when the account has none.
 */
export async function lockAccount(trx: Database, userId: number) {
  let query = trx.selectFrom("vpn_accounts").select(["user_id", "live_configurations", "paused"]).where("user_id", "=", userId);
  if (dialectOf(trx) === "postgres") query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  return row && { userId: Number(row.user_id), live: Number(row.live_configurations), paused: Number(row.paused) === 1 };
}
