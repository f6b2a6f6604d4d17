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
  advanceDays(days: number): void;
}

export function isMovable(clock: Clock): clock is MovableClock {
  return typeof (clock as Partial<MovableClock>).advanceDays === "function";
}

/** The system time plus an offset that only grows: the business time of sandbox mode. */
export class OffsetClock implements MovableClock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advanceDays(days: number): void {
    this.offsetMs += days * 86_400_000;
  }
}
