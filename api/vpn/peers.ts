import type { ExpressionBuilder } from "kysely";
import { z } from "zod";
import { type Database, dialectOf } from "../platform/db";
import type { DB } from "../platform/db/schema";
import { isActiveAt } from "../payments/plans";
import { peerAllowedIps } from "./addresses";
import { currentRevision, nextRevision } from "./ledger";

/*
 * What the VPN servers must accept now (docs/decisions/058): every live configuration of an account
 * that has a plan. The list has a revision (ledger.ts) that every change takes, so a server polling
 * every few seconds is answered 304 while nothing changed, and `?since=n` answers exactly what changed
 * after revision n.
 *
 * A plan ends with time, not with a write, so the list follows the plans when it is read: each read
 * first finds the accounts whose `paused` flag no longer matches their subscriptions (a read-only query
 * that usually finds none) and flips them under their locks with a new revision. No job is needed, and
 * every server sees a plan's end at its next poll.
 */

export const PeerSchema = z
  .strictObject({
    public_key: z.string().meta({ description: "The device's WireGuard public key (base64)." }),
    allowed_ips: z.array(z.string()).meta({ description: "[Peer] AllowedIPs on the server: its two addresses.", examples: [["10.64.0.2/32", "fd7a:651:6f26::2/128"]] }),
  })
  .meta({ id: "VpnPeer" });

export type Peer = z.infer<typeof PeerSchema>;

/** An account's subscriptions give it a plan now, and the account is not deleted. */
function entitled(now: Date) {
  const active = isActiveAt(now);
  return (eb: ExpressionBuilder<DB & { a: DB["vpn_accounts"]; u: DB["users"] }, "a" | "u">) =>
    eb.and([
      eb("u.deleted_at", "is", null),
      eb.exists(
        eb
          .selectFrom("subscriptions")
          .select("subscriptions.id")
          .whereRef("subscriptions.user_id", "=", "a.user_id")
          .where((sub) => active(sub as unknown as ExpressionBuilder<DB, "subscriptions">)),
      ),
    ]);
}

/** Accounts with live configurations whose paused flag disagrees with their plan at `now`. */
async function accountsToFlip(db: Database, now: Date, among?: number[]): Promise<Array<{ userId: number; pause: boolean }>> {
  const has = entitled(now);
  let query = db
    .selectFrom("vpn_accounts as a")
    .innerJoin("users as u", "u.id", "a.user_id")
    .select(["a.user_id", "a.paused"])
    .where("a.live_configurations", ">", 0)
    .where((eb) => eb.or([eb.and([eb("a.paused", "=", 0), eb.not(has(eb))]), eb.and([eb("a.paused", "=", 1), has(eb)])]))
    .orderBy("a.user_id");
  if (among) query = query.where("a.user_id", "in", among);
  const rows = await query.execute();
  return rows.map((row) => ({ userId: Number(row.user_id), pause: Number(row.paused) === 0 }));
}

/**
 * Brings the paused flags up to the plans at `now` (business time): configurations of an account whose
 * plan ended leave the list, those of a renewed one come back, each account's with one new revision.
 */
export async function followPlans(db: Database, now: Date): Promise<void> {
  const candidates = await accountsToFlip(db, now);
  if (candidates.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const ids = candidates.map((c) => c.userId);
    // Locked in user order (the ledger's order), then looked at again: another reader may have flipped them.
    if (dialectOf(trx) === "postgres") {
      await trx.selectFrom("vpn_accounts").select("user_id").where("user_id", "in", ids).orderBy("user_id").forNoKeyUpdate().execute();
    }
    const flips = await accountsToFlip(trx, now, ids);
    if (flips.length === 0) return;
    const revision = await nextRevision(trx);
    for (const pause of [true, false]) {
      const users = flips.filter((f) => f.pause === pause).map((f) => f.userId);
      if (users.length === 0) continue;
      await trx.updateTable("vpn_accounts").set({ paused: pause ? 1 : 0 }).where("user_id", "in", users).execute();
      await trx.updateTable("vpn_configurations").set({ revision }).where("user_id", "in", users).where("revoked_at", "is", null).execute();
    }
  });
}

function peerOf(row: { public_key: string; ipv4: string; ipv6: string }): Peer {
  return { public_key: row.public_key, allowed_ips: peerAllowedIps(row) };
}

/**
 * The revision is read before the rows: the rows are then at least as new as it says (a change
 * committed in between is sent again at the next poll, never missed).
 */
export async function peersList(db: Database, now: Date): Promise<{ revision: number; peers: Peer[] }> {
  await followPlans(db, now);
  const revision = await currentRevision(db);
  const rows = await db
    .selectFrom("vpn_configurations as c")
    .innerJoin("vpn_accounts as a", "a.user_id", "c.user_id")
    .select(["c.public_key", "c.ipv4", "c.ipv6"])
    .where("c.revoked_at", "is", null)
    .where("a.paused", "=", 0)
    .orderBy("c.id")
    .execute();
  return { revision, peers: rows.map(peerOf) };
}

/**
 * What changed after revision `since`: the configurations changed since, each as it is now (to add,
 * or its key to remove). Applying both is idempotent, so a change that lands after the revision was
 * read and shows up twice does no harm. Answers null when `since` is ahead of the list (another
 * database, or a mistake): the server should fetch the whole list.
 */
export async function peersSince(db: Database, now: Date, since: number): Promise<{ revision: number; added: Peer[]; removed: string[] } | null> {
  await followPlans(db, now);
  const revision = await currentRevision(db);
  if (since > revision) return null;
  const rows = await db
    .selectFrom("vpn_configurations as c")
    .innerJoin("vpn_accounts as a", "a.user_id", "c.user_id")
    .select(["c.public_key", "c.ipv4", "c.ipv6", "c.revoked_at", "a.paused"])
    .where("c.revision", ">", since)
    .orderBy("c.id")
    .execute();
  const added: Peer[] = [];
  const removed: string[] = [];
  for (const row of rows) {
    if (row.revoked_at === null && Number(row.paused) === 0) added.push(peerOf(row));
    else removed.push(row.public_key);
  }
  return { revision, added, removed };
}
