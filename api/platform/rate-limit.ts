import { text } from "./i18n";
import type { Database } from "./db";
import { DomainError } from "../platform/errors";

/**
 * Fixed-window counters stored in the rate_limits table, so that every API instance sharing the
 * database sees the same counts. Windows use the real time (Date.now()), not the business clock.
 *
 * hit() is one statement on SQLite and PostgreSQL alike:
 *   INSERT INTO rate_limits (key, count, reset_at) VALUES (?, 1, now + window)
 *   ON CONFLICT (key) DO UPDATE SET
 *     count    = CASE WHEN rate_limits.reset_at <= now THEN 1 ELSE rate_limits.count + 1 END,
 *     reset_at = CASE WHEN rate_limits.reset_at <= now THEN excluded.reset_at ELSE rate_limits.reset_at END
 *   RETURNING count, reset_at
 */
export interface WindowState {
  count: number;
  /** When the window ends (ms since epoch). */
  resetAt: number;
}

/** One try taken from a key's allowance (RateLimiter.reserve), to give back when it was right. */
export interface Reservation {
  key: string;
  /** The window it was taken in (as stored), so a release never lands in a later window. */
  resetIso: string;
  /** The count including this try. */
  count: number;
}

const SWEEP_INTERVAL_MS = 10 * 60_000;

export class RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly db: Database,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Live windows (not yet reset) for the given keys. */
  async peek(keys: string[]): Promise<Map<string, WindowState>> {
    const result = new Map<string, WindowState>();
    if (keys.length === 0) return result;
    const nowIso = new Date(this.nowMs()).toISOString();
    const rows = await this.db
      .selectFrom("rate_limits")
      .select(["key", "count", "reset_at"])
      .where("key", "in", keys)
      .where("reset_at", ">", nowIso)
      .execute();
    for (const row of rows) result.set(row.key, { count: Number(row.count), resetAt: Date.parse(row.reset_at) });
    return result;
  }

  /**
   * Takes one try from the key's allowance of `limit` per window, atomically: one conditional upsert
   * that increments only while the live window's count is below the limit (or starts a new window).
   * So a parallel burst gets exactly `limit` reservations, however many requests check at once; a
   * refused request counts nothing. Give a reservation back with release() when the try turns out right.
   */
  async reserve(key: string, limit: number, windowSeconds: number): Promise<Reservation | null> {
    const now = this.nowMs();
    const nowIso = new Date(now).toISOString();
    const resetIso = new Date(now + windowSeconds * 1000).toISOString();
    const row = await this.db
      .insertInto("rate_limits")
      .values({ key, count: 1, reset_at: resetIso })
      .onConflict((oc) =>
        oc
          .column("key")
          .doUpdateSet((eb) => ({
            count: eb
              .case()
              .when("rate_limits.reset_at", "<=", nowIso)
              .then(1)
              .else(eb("rate_limits.count", "+", 1))
              .end(),
            reset_at: eb
              .case()
              .when("rate_limits.reset_at", "<=", nowIso)
              .then(eb.ref("excluded.reset_at"))
              .else(eb.ref("rate_limits.reset_at"))
              .end(),
          }))
          .where((eb) => eb.or([eb("rate_limits.reset_at", "<=", nowIso), eb("rate_limits.count", "<", limit)])),
      )
      .returning(["count", "reset_at"])
      .executeTakeFirst();
    if (!row) return null;
    await this.maybeSweep(now);
    return { key, resetIso: row.reset_at, count: Number(row.count) };
  }

  /**
   * Reserves one try on every key (in order), or none: when one is at its limit, those already
   * taken are given back and the answer is the seconds until every full key's window ends.
   */
  async reserveAll(
    limits: Array<[key: string, limit: number]>,
    windowSeconds: number,
  ): Promise<{ reservations: Reservation[] } | { retryAfterSeconds: number }> {
    const reservations: Reservation[] = [];
    for (const [key, limit] of limits) {
      const reservation = await this.reserve(key, limit, windowSeconds);
      if (!reservation) {
        await this.release(reservations);
        return { retryAfterSeconds: (await this.blockedFor(limits)) ?? 1 };
      }
      reservations.push(reservation);
    }
    return { reservations };
  }

  /** Seconds until every key that has reached its limit is open again, or null when none has. */
  async blockedFor(limits: Array<[key: string, limit: number]>): Promise<number | null> {
    const windows = await this.peek(limits.map(([key]) => key));
    let resetAt: number | null = null;
    for (const [key, limit] of limits) {
      const window = windows.get(key);
      if (window && window.count >= limit) resetAt = Math.max(resetAt ?? 0, window.resetAt);
    }
    return resetAt === null ? null : secondsUntil(resetAt, this.nowMs());
  }

  /**
   * Gives reservations back (the tries were right, or not made): one less in the same window; a
   * window that has since ended or been cleared is left alone. A count back at zero is removed.
   */
  async release(reservations: Reservation[]): Promise<void> {
    for (const { key, resetIso } of reservations) {
      await this.db
        .updateTable("rate_limits")
        .set((eb) => ({ count: eb("count", "-", 1) }))
        .where("key", "=", key)
        .where("reset_at", "=", resetIso)
        .where("count", ">", 0)
        .execute();
      await this.db.deleteFrom("rate_limits").where("key", "=", key).where("count", "<=", 0).execute();
    }
  }

  /** Counts one event in the key's window (starting a new window when the old one has passed), without a limit. */
  async hit(key: string, windowSeconds: number): Promise<WindowState> {
    // The largest count a PostgreSQL integer column holds: no limit in practice.
    const reservation = (await this.reserve(key, 2_147_483_647, windowSeconds))!;
    return { count: reservation.count, resetAt: Date.parse(reservation.resetIso) };
  }

  async clear(key: string): Promise<void> {
    await this.db.deleteFrom("rate_limits").where("key", "=", key).execute();
  }

  /** Deletes windows that have ended, at most every ten minutes per process. */
  private async maybeSweep(now: number): Promise<void> {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    await this.db
      .deleteFrom("rate_limits")
      .where("reset_at", "<=", new Date(now).toISOString())
      .execute();
  }
}

/** Seconds until a window ends, rounded up, at least 1. */
export function secondsUntil(resetAt: number, now: number = Date.now()): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

export interface LoginLimits {
  /** Failures of one email from one client address: the brute-force limit an attacker meets first. */
  maxFailuresPerEmailPerIp: number;
  /** Failures from one client address across every email (one source guessing many accounts). */
  maxFailuresPerIp: number;
  /** Failures of one email from all addresses together: a much higher backstop against distributed guessing. */
  maxFailuresPerEmail: number;
  failureWindowSeconds: number;
}

/**
 * Failed sign-ins (a wrong password, or a wrong second factor after a right first one), counted per
 * email and client address, per address, and per email across addresses. Only failures count; a
 * correct sign-in is never slowed while under the limits.
 *
 * Why per email *and* address: a per-email counter alone lets anyone who knows an address keep its
 * owner out. Here an attacker's tries lock the attacker's own source; the owner's device, another
 * source, still signs in with the password. The per-email backstop can lock the password path for
 * everyone, so it is set far above what one person types, and it only guards the password path:
 * sign-in by emailed code and the password reset never consult this throttle.
 *
 * Every try is reserved on all three counters before the password is checked (reserve()), and given
 * back when it was right (release()): a parallel burst gets no more evaluated tries than a sequence.
 */
export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: LoginLimits,
  ) {}

  static emailKey(email: string): string {
    return `login-fail:email:${email}`;
  }

  static ipKey(addressKey: string): string {
    return `login-fail:ip:${addressKey}`;
  }

  static emailIpKey(email: string, addressKey: string): string {
    return `login-fail:email-ip:${addressKey}:${email}`;
  }

  get windowSeconds(): number {
    return this.limits.failureWindowSeconds;
  }

  private keys(email: string, addressKey: string): Array<[string, number]> {
    return [
      [LoginThrottle.emailIpKey(email, addressKey), this.limits.maxFailuresPerEmailPerIp],
      [LoginThrottle.ipKey(addressKey), this.limits.maxFailuresPerIp],
      [LoginThrottle.emailKey(email), this.limits.maxFailuresPerEmail],
    ];
  }

  /**
   * Takes one try on every counter before the password (or second factor) is looked at; throws 429
   * 'Too many failed sign-in attempts. ...' with Retry-After when any counter is at its limit. The
   * reservations ARE the failure count: keep them for a wrong try, release() them for a right one.
   */
  async reserve(email: string, addressKey: string): Promise<Reservation[]> {
    const result = await this.limiter.reserveAll(this.keys(email, addressKey), this.limits.failureWindowSeconds);
    if ("retryAfterSeconds" in result) {
      throw new DomainError("rate_limited", tooManyLoginsMessage(result.retryAfterSeconds), {
        headers: { "Retry-After": String(result.retryAfterSeconds) },
        text: text("messages:signIn.tooManyFailures", { count: minutesOf(result.retryAfterSeconds) }),
      });
    }
    return result.reservations;
  }

  /** The try was right (or never made): it is not a failure. */
  async release(reservations: Reservation[]): Promise<void> {
    await this.limiter.release(reservations);
  }

  /**
   * A WHOLE sign-in succeeded (first factor and, when on, second factor): this address's count for
   * the email is cleared. A right password alone clears nothing: the second factor may still be
   * guessed. The per-email count stays: one success must not reset a distributed attack's count.
   */
  async recordSuccess(email: string, addressKey: string): Promise<void> {
    await this.limiter.clear(LoginThrottle.emailIpKey(email, addressKey));
  }

  /**
   * A password reset: the old password, which the failures were guessing at, is gone, so the
   * per-email count starts again, and so does the resetting address's. Other addresses' counts stay.
   */
  async recordPasswordReset(email: string, addressKey: string): Promise<void> {
    await this.limiter.clear(LoginThrottle.emailKey(email));
    await this.limiter.clear(LoginThrottle.emailIpKey(email, addressKey));
  }
}

/** 'Please try again in N minutes.' for a wait in seconds (N rounded up, at least 1; '1 minute'): every limit's 429 ends so. */
/** The whole minutes (at least 1) of a wait in seconds, as tryAgainIn says them. */
export function minutesOf(retryAfterSeconds: number): number {
  return Math.max(1, Math.ceil(retryAfterSeconds / 60));
}

export function tryAgainIn(retryAfterSeconds: number): string {
  const minutes = minutesOf(retryAfterSeconds);
  return `Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}

/** 'Too many failed sign-in attempts. Please try again in N minutes.' */
export function tooManyLoginsMessage(retryAfterSeconds: number): string {
  return `Too many failed sign-in attempts. ${tryAgainIn(retryAfterSeconds)}`;
}
