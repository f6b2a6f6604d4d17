import { randomToken } from "./ids";
import type { SandboxStore } from "./store";

/*
 * Every change to sandbox state runs under one writer lock, so that a check-then-write (is this
 * invoice still open? is this period still due?) is never interleaved with another. In-process
 * callers queue on a promise chain; across instances sharing a database, a lock row decides (its
 * insert succeeds for one holder only). A holder that died is taken over after LEASE_MS.
 * Webhooks are delivered after the lock is released: their handlers call the API back.
 */

const LOCK_ROW_ID = "lock:writer";
const LEASE_MS = 30_000;
const POLL_MS = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class WriterLock {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly store: SandboxStore) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      const held = await this.acquireRow();
      try {
        return await fn();
      } finally {
        await this.store.deleteRow(LOCK_ROW_ID, held).catch(() => undefined);
      }
    } finally {
      release();
    }
  }

  /** Inserts the lock row (waiting for another instance's to go); returns its data, the release token. */
  private async acquireRow(): Promise<string> {
    for (;;) {
      const data = JSON.stringify({ holder: randomToken(12), expires_ms: Date.now() + LEASE_MS });
      if (await this.store.tryInsertRow({ id: LOCK_ROW_ID, type: "lock", customer: null, data, created: 0 })) return data;
      const current = await this.store.getRow(LOCK_ROW_ID);
      if (current && (JSON.parse(current.data) as { expires_ms: number }).expires_ms < Date.now()) {
        await this.store.deleteRow(LOCK_ROW_ID, current.data);
        continue;
      }
      await sleep(POLL_MS);
    }
  }
}
