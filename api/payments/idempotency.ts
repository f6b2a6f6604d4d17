import { createHash } from "node:crypto";
import type { Database } from "../platform/db";
import { isUniqueViolation } from "../platform/db";
import { asErrorCode, DomainError, type FieldErrors } from "../platform/errors";
import { DEFAULT_LANGUAGE, type Text, render } from "../platform/i18n";

/*
 * One payment per idempotency key. The page puts a fresh random key in every payment form; a double
 * submit, a retry after a timeout or twenty parallel posts with that key make one payment, and every
 * one of them gets the first one's answer. The key is also the root of the keys sent to Stripe, so
 * a retry after a crash half-way is one charge at the gateway too.
 */

export const IDEMPOTENCY_MESSAGES = {
  reused: "This payment was already submitted with other details. Please reload the page and try again.",
  inProgress: "This payment is still being processed. Please wait a moment and reload the page.",
} as const;

/** The stored answer of a payment request: a success, or a refusal (`body` is then a StoredRefusal). */
export interface StoredAnswer {
  ok: boolean;
  body: unknown;
}

/** A refusal as stored, replayed as the same DomainError. */
export interface StoredRefusal {
  code: string;
  message: string;
  fields?: FieldErrors;
  headers?: Record<string, string>;
  /** The message's key and variables (docs/decisions/064), so that the replay is written in its request's language. */
  text?: Text;
}

export function refusalAnswer(error: DomainError): StoredAnswer {
  const body: StoredRefusal = { code: error.code, message: error.message, fields: error.fields, headers: error.headers, text: error.text };
  return { ok: false, body };
}

/**
 * The stored refusal as the error to throw again. An answer stored before refusals carried codes
 * (docs/decisions/023) has none: it is replayed as a decline, the refusal those keys mostly held.
 */
export function replayedRefusal(body: unknown): DomainError {
  const stored = (body ?? {}) as Partial<StoredRefusal>;
  const message = stored.message ?? "";
  // The stored Text only while it still says the stored English (a text changed since is replayed as stored).
  const said = stored.text && render(DEFAULT_LANGUAGE, stored.text) === message ? stored.text : message;
  return new DomainError(asErrorCode(stored.code) ?? "card_declined", said, { fields: stored.fields, headers: stored.headers });
}

const WAIT_MS = 15_000;
const POLL_MS = 100;
/**
 * A payment still 'pending' after this long died with its process (a crash or a kill between the
 * gateway and our answer): a retry with the same key takes it over. Longer than a payment can take
 * alive (the SDK's tries with their timeouts), so a live one is never run twice.
 */
export const ABANDONED_AFTER_MS = 120_000;

export function requestHash(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}

/**
 * Runs `pay` once per key. `pay` answers {ok, body}; successes and refusals are stored and
 * replayed, while a thrown error (a failure: the gateway or the database failed) releases the key so
 * that a retry runs again (the gateway's own idempotency keys keep that to one charge).
 */
export async function oncePerKey(
  db: Database,
  key: string,
  request: unknown,
  pay: () => Promise<StoredAnswer>,
  now: () => Date = () => new Date(),
): Promise<StoredAnswer> {
  const hash = requestHash(request);
  const at = now().toISOString();
  try {
    await db
      .insertInto("payment_requests")
      .values({ idempotency_key: key, request_hash: hash, state: "pending", created_at: at, updated_at: at })
      .execute();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    if (!(await takeOverAbandoned(db, key, hash, now()))) return waitForAnswer(db, key, hash);
  }
  return runHolding(db, key, pay, now);
}

/**
 * Claims a key whose payment was left 'pending' by a process that died, in one conditional update (of
 * two retries only one wins). The gateway's keys derive from ours, so running again replays what the
 * gateway already did instead of charging twice.
 */
async function takeOverAbandoned(db: Database, key: string, hash: string, now: Date): Promise<boolean> {
  const row = await db.selectFrom("payment_requests").selectAll().where("idempotency_key", "=", key).executeTakeFirst();
  if (row?.state !== "pending" || row.request_hash !== hash) return false;
  if (Date.parse(row.updated_at) > now.getTime() - ABANDONED_AFTER_MS) return false;
  const claimed = await db
    .updateTable("payment_requests")
    .set({ updated_at: now.toISOString() })
    .where("idempotency_key", "=", key)
    .where("state", "=", "pending")
    .where("updated_at", "=", row.updated_at)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

async function runHolding(
  db: Database,
  key: string,
  pay: () => Promise<StoredAnswer>,
  now: () => Date,
): Promise<StoredAnswer> {
  let answer: StoredAnswer;
  try {
    answer = await pay();
  } catch (error) {
    await db.deleteFrom("payment_requests").where("idempotency_key", "=", key).where("state", "=", "pending").execute();
    throw error;
  }
  await db
    .updateTable("payment_requests")
    .set({
      state: "done",
      // 200 for a success; a refusal's code is in its body (the HTTP layer picks its status).
      response_status: answer.ok ? 200 : null,
      response_body: JSON.stringify(answer.body),
      updated_at: now().toISOString(),
    })
    .where("idempotency_key", "=", key)
    .execute();
  return answer;
}

async function waitForAnswer(db: Database, key: string, hash: string): Promise<StoredAnswer> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const row = await db.selectFrom("payment_requests").selectAll().where("idempotency_key", "=", key).executeTakeFirst();
    if (row && row.request_hash !== hash) throw new DomainError("idempotency_key_reused", IDEMPOTENCY_MESSAGES.reused);
    if (row?.state === "done") return { ok: row.response_status === 200, body: JSON.parse(row.response_body ?? "null") };
    // The first request failed and released the key: this one may try again.
    if (!row) throw new DomainError("payment_in_progress", IDEMPOTENCY_MESSAGES.inProgress);
    if (Date.now() > deadline) throw new DomainError("payment_in_progress", IDEMPOTENCY_MESSAGES.inProgress);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The answer stored for `key` once its request finished (a plan change's result, shown again after the redirect); null when none. */
export async function storedAnswer(db: Database, key: string): Promise<StoredAnswer | null> {
  const row = await db.selectFrom("payment_requests").select(["state", "response_status", "response_body"]).where("idempotency_key", "=", key).executeTakeFirst();
  if (row?.state !== "done") return null;
  return { ok: row.response_status === 200, body: JSON.parse(row.response_body ?? "null") };
}
