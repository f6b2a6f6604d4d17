/**
 * The product's business time (subscription days left, expiries, renewals) comes from a Clock so
 * that tests and the sandbox test clock can move it. Token lifetimes and rate-limit windows use the
 * real time (Date.now()) on purpose: moving the business clock never signs anyone out.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

/** A clock that can be moved forward: the sandbox's test clock (DESIGN §2) and the tests' clock. */
export interface MovableClock extends Clock {
  advanceDays(days: number): void | Promise<void>;
}

export function isMovable(clock: Clock): clock is MovableClock {
  return typeof (clock as Partial<MovableClock>).advanceDays === "function";
}

/** Where a shared clock keeps its offset (milliseconds): one row that every instance reads. */
export interface OffsetStore {
  read(): Promise<number>;
  /** Adds to the offset in one atomic statement (two instances adding at once both count); the new offset. */
  add(ms: number): Promise<number>;
}

/** A clock whose state lives elsewhere (the database) and is re-read at the start of each request and job run. */
export interface SharedClock extends MovableClock {
  refresh(): Promise<void>;
  advanceDays(days: number): Promise<void>;
}

export function isShared(clock: Clock): clock is SharedClock {
  return isMovable(clock) && typeof (clock as Partial<SharedClock>).refresh === "function";
}

/**
 * The business time of sandbox mode: the system time plus an offset that only grows, kept in the
 * database so that every instance on it agrees (Stripe's test clocks are server-side objects too).
 * now() stays synchronous: it answers from the offset last read, which refresh() renews.
 */
export class SharedOffsetClock implements SharedClock {
  private offsetMs = 0;

  constructor(private readonly store: OffsetStore) {}

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  async refresh(): Promise<void> {
    this.keep(await this.store.read());
  }

  async advanceDays(days: number): Promise<void> {
    this.keep(await this.store.add(days * 86_400_000));
  }

  /** The offset only grows: a read that started before another advance must not move it back. */
  private keep(offsetMs: number): void {
    if (offsetMs > this.offsetMs) this.offsetMs = offsetMs;
  }
}
