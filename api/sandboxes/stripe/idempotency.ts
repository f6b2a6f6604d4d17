import { createHash } from "node:crypto";
import type { SandboxStore } from "./store";

/*
 * Idempotency-Key, as Stripe honours it: the first request with a key runs and its answer is kept;
 * every later request with that key gets the same status and body (Idempotent-Replayed: true), or
 * an idempotency_error when it asks something else. The key's row is inserted *before* the request
 * runs, so of concurrent requests with one key exactly one runs (the insert is the decision, on
 * SQLite and PostgreSQL alike); the others wait for its answer. 5xx answers are not kept, so that a
 * retry runs again; nor are answers to requests that failed validation (an unknown or invalid parameter),
 * which never began: Stripe saves a result only once the endpoint started executing. Keys are forgotten after 24 hours (prune()).
 */

export interface Answer {
  status: number;
  body: unknown;
  /** false: the request failed validation before it began, and Stripe keeps nothing under its key. */
  keep?: boolean;
}

interface KeyRecord {
  state: "pending" | "done";
  method: string;
  path: string;
  /** sha256 of the parameters. */
  params: string;
  started_ms: number;
  status?: number;
  body?: unknown;
}

const WAIT_MS = 30_000;
/** A request still pending after this long died with its instance: another may take the key over. */
const ABANDONED_MS = 60_000;
const KEPT_S = 24 * 3600;
const POLL_MS = 10;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function idempotencyError(status: number, message: string): Answer {
  return { status, body: { error: { type: "idempotency_error", message } } };
}

export class IdempotencyKeys {
  constructor(private readonly store: SandboxStore) {}

  async run(
    key: string,
    request: { method: string; path: string; params: unknown },
    answer: () => Promise<Answer>,
  ): Promise<Answer & { replayed: boolean }> {
    const id = `idempotency:${sha256(key)}`;
    const asked = { method: request.method, path: request.path, params: sha256(JSON.stringify(request.params ?? {})) };
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const pending = JSON.stringify({ state: "pending", ...asked, started_ms: Date.now() } satisfies KeyRecord);
      if (await this.store.tryInsertRow({ id, type: "idempotency", customer: null, data: pending, created: Math.floor(Date.now() / 1000) })) {
        return this.runHolding(id, pending, asked, answer);
      }
      const row = await this.store.getRow(id);
      if (!row) continue; // the holder failed and let the key go: try again
      const record = JSON.parse(row.data) as KeyRecord;
      if (record.method !== asked.method || record.path !== asked.path || record.params !== asked.params) {
        return {
          ...idempotencyError(
            400,
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          ),
          replayed: false,
        };
      }
      if (record.state === "done") return { status: record.status ?? 200, body: record.body, replayed: true };
      if (Date.now() - record.started_ms > ABANDONED_MS && (await this.store.replaceRow(id, row.data, pending))) {
        return this.runHolding(id, pending, asked, answer);
      }
      if (Date.now() > deadline) {
        return {
          ...idempotencyError(
            409,
            `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
          ),
          replayed: false,
        };
      }
      await sleep(POLL_MS);
    }
  }

  /** Forgets keys older than 24 hours (real time). */
  async prune(): Promise<void> {
    await this.store.deleteRowsBefore("idempotency", Math.floor(Date.now() / 1000) - KEPT_S);
  }

  private async runHolding(
    id: string,
    pending: string,
    asked: Pick<KeyRecord, "method" | "path" | "params">,
    answer: () => Promise<Answer>,
  ): Promise<Answer & { replayed: boolean }> {
    let result: Answer;
    try {
      result = await answer();
    } catch (error) {
      await this.store.deleteRow(id, pending);
      throw error;
    }
    if (result.status >= 500 || result.keep === false) {
      await this.store.deleteRow(id, pending);
    } else {
      const started = (JSON.parse(pending) as KeyRecord).started_ms;
      const done: KeyRecord = { state: "done", ...asked, started_ms: started, status: result.status, body: result.body };
      await this.store.replaceRow(id, pending, JSON.stringify(done));
    }
    return { ...result, replayed: false };
  }
}
