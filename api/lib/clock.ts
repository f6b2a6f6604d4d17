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

/** ISO-8601 UTC with milliseconds, e.g. 2026-11-21T05:48:56.000Z (fixed width: text order = time order). */
export function toIso(date: Date): string {
  return date.toISOString();
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000);
}
