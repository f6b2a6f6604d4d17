import { AUTO_RENEWAL_MESSAGES, canDisableAt, noRenewalMessage, setAutoRenewal } from "./auto-renewal";
import { type NoticeDeps, renewsAutomatically } from "./notices";
import { recordSecurityEvent, type EventSource } from "../identity/security-events";
import { activeSubscription } from "../payments/plans";
import type { Database } from "../platform/db";
import type { Subscription } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { generateToken, hashToken, looksLikeToken } from "../platform/tokens";

/*
 * Cancel without signing in (issue 22, Germany's §312k BGB; docs/decisions/038). Whoever proves that
 * they read an account's mailbox (a 'cancel' code, with the limits of every emailed code) gets a
 * cancel proof: a random token, stored as its sha256, that can do two things and nothing else — show
 * the account's active subscription, and turn its auto-renewal off — for 15 minutes (real time, like
 * every token). The turn-off uses it up. It is not a session: no device, no bearer token, nothing else
 * of the account is reachable with it. The turn-off is the signed-in switch's own code
 * (setAutoRenewal): Stripe, the 24-hour rule, past-due invoices and the 'Auto-renewal is off' email
 * with its date and time are the same.
 */

export const CANCEL_PROOF_TTL_SECONDS = 15 * 60;

export const CANCEL_MESSAGES = {
  codeSent: "If an account exists for this email, we have sent a verification code.",
  codeNotSent: "Failed to send the verification code.",
  verified: "Verification successful!",
  proofInvalid: "This page has expired. Please start again.",
  turnedOff: "Auto-renewal is off",
  alreadyOff: "Auto-renewal is already off.",
  noSubscription: "There is no active subscription on this account.",
} as const;

export type CancelView = {
  email: string;
  subscription: {
    title: string;
    subscription_by: Subscription["subscription_by"];
    billing_type: Subscription["billing_type"];
    /** When it renews (auto-renewal on), else null. */
    renews_on: string | null;
    /** When it ends (auto-renewal off, one-time, crypto), else null. */
    ends_on: string | null;
    /** Whether 'Turn off auto-renewal' is offered. */
    can_turn_off: boolean;
    /** Why it is not (or null when it is). */
    note: string | null;
  } | null;
};

function proofInvalid(): DomainError {
  return new DomainError("link_invalid", CANCEL_MESSAGES.proofInvalid, { field: "proof" });
}

/** A new proof for the account; older unused ones of the account are retired (one live proof). */
export async function createCancelProof(db: Database, userId: number, nowMs = Date.now()): Promise<{ proof: string; expiresAt: string }> {
  const proof = generateToken();
  const expiresAt = new Date(nowMs + CANCEL_PROOF_TTL_SECONDS * 1000).toISOString();
  const nowIso = new Date(nowMs).toISOString();
  await db.updateTable("cancel_proofs").set({ used_at: nowIso }).where("user_id", "=", userId).where("used_at", "is", null).execute();
  // Rows a day past their expiry are of no use to anyone.
  await db.deleteFrom("cancel_proofs").where("expires_at", "<", new Date(nowMs - 86_400_000).toISOString()).execute();
  await db.insertInto("cancel_proofs").values({ token_hash: hashToken(proof), user_id: userId, created_at: nowIso, expires_at: expiresAt, used_at: null }).execute();
  return { proof, expiresAt };
}

/** The live account a proof stands for, or 422 'This page has expired. Please start again.' */
async function proofOwner(db: Database, proof: string): Promise<{ proofId: number; userId: number; email: string }> {
  if (!looksLikeToken(proof)) throw proofInvalid();
  const row = await db
    .selectFrom("cancel_proofs")
    .innerJoin("users", "users.id", "cancel_proofs.user_id")
    .select(["cancel_proofs.id", "cancel_proofs.user_id", "cancel_proofs.expires_at", "cancel_proofs.used_at", "users.email", "users.deleted_at"])
    .where("cancel_proofs.token_hash", "=", hashToken(proof))
    .executeTakeFirst();
  if (!row || row.used_at !== null || row.deleted_at !== null || row.expires_at <= new Date().toISOString()) throw proofInvalid();
  return { proofId: Number(row.id), userId: Number(row.user_id), email: row.email };
}

function describeSubscription(row: Subscription | undefined, now: Date): CancelView["subscription"] {
  if (!row) return null;
  const base = { title: row.title, subscription_by: row.subscription_by, billing_type: row.billing_type };
  const pastDue = !!row.past_due_invoice_id && !!row.grace_until && row.grace_until > now.toISOString();
  if (renewsAutomatically(row)) {
    // While past due the renewal is already due: turning it off stops the retries (decision 027).
    const allowed = pastDue || canDisableAt(row.sub_exp_date, now);
    return { ...base, renews_on: row.sub_exp_date, ends_on: null, can_turn_off: allowed, note: allowed ? null : AUTO_RENEWAL_MESSAGES.tooLate };
  }
  const endsOn = pastDue ? row.grace_until! : row.sub_exp_date;
  // Why it does not renew: its gateway never renews it (crypto, one-time, a PayPal order), or it is already off.
  const note = noRenewalMessage(row) ?? CANCEL_MESSAGES.alreadyOff;
  return { ...base, renews_on: null, ends_on: endsOn, can_turn_off: false, note };
}

/** What the proof's account has: its email and its active subscription (or null). */
export async function cancelView(deps: Pick<NoticeDeps, "db" | "clock">, proof: string): Promise<CancelView> {
  const owner = await proofOwner(deps.db, proof);
  const now = deps.clock.now();
  return { email: owner.email, subscription: describeSubscription(await activeSubscription(deps.db, owner.userId, now), now) };
}

/**
 * Turns the proof's account's auto-renewal off (setAutoRenewal, as the signed-in switch does), uses
 * up the proof, and records 'auto_renewal_cancelled'. Answers when the plan now ends and when it
 * was turned off (the business clock, as the email says).
 */
export async function cancelWithProof(
  deps: NoticeDeps,
  proof: string,
  source: EventSource,
): Promise<{ title: string; ends_on: string; turned_off_at: string }> {
  const { db, clock } = deps;
  const owner = await proofOwner(db, proof);
  const now = clock.now();
  const row = await activeSubscription(db, owner.userId, now);
  if (!row) throw new DomainError("not_found", CANCEL_MESSAGES.noSubscription);
  const view = describeSubscription(row, now)!;
  if (!renewsAutomatically(row)) {
    // Nothing renews (already off, one-time, crypto): say why, as the page does.
    throw new DomainError("auto_renewal_unavailable", view.note ?? CANCEL_MESSAGES.alreadyOff);
  }
  // Used up first: of two parallel turn-offs one goes on (the other is told the page expired).
  const used = await db
    .updateTable("cancel_proofs")
    .set({ used_at: new Date().toISOString() })
    .where("id", "=", owner.proofId)
    .where("used_at", "is", null)
    .executeTakeFirst();
  if (Number(used.numUpdatedRows) === 0) throw proofInvalid();
  try {
    await setAutoRenewal(deps, owner.userId, Number(row.id), "disable");
  } catch (error) {
    // Refused (too late, ended) or failed at the gateway: the proof may try again within its time.
    await db.updateTable("cancel_proofs").set({ used_at: null }).where("id", "=", owner.proofId).execute();
    throw error;
  }
  const after = await db.selectFrom("subscriptions").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow();
  const turnedOffAt = clock.now();
  await recordSecurityEvent(db, {
    userId: owner.userId,
    kind: "auto_renewal_cancelled",
    userAgent: source.userAgent,
    clientHints: source.clientHints,
    ip: source.ip,
    detail: `${row.title}, without signing in`,
    at: turnedOffAt,
  });
  const pastDue = !!after.past_due_invoice_id && !!after.grace_until && after.grace_until > turnedOffAt.toISOString();
  return { title: row.title, ends_on: pastDue ? after.grace_until! : after.sub_exp_date, turned_off_at: turnedOffAt.toISOString() };
}
