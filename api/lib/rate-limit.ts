import type { Database } from "../db";

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

  /** Counts one event in the key's window (starting a new window when the old one has passed). */
  async hit(key: string, windowSeconds: number): Promise<WindowState> {
    const now = this.nowMs();
    const nowIso = new Date(now).toISOString();
    const resetIso = new Date(now + windowSeconds * 1000).toISOString();
    const row = await this.db
      .insertInto("rate_limits")
      .values({ key, count: 1, reset_at: resetIso })
      .onConflict((oc) =>
        oc.column("key").doUpdateSet((eb) => ({
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
        })),
      )
      .returning(["count", "reset_at"])
      .executeTakeFirstOrThrow();
    await this.maybeSweep(now);
    return { count: Number(row.count), resetAt: Date.parse(row.reset_at) };
  }

  /**
   * Takes back one event counted by hit() in the key's live window (an attempt that turned out not to
   * be one the limit is about, e.g. a coupon that was valid). Never below zero.
   */
  async giveBack(key: string): Promise<void> {
    await this.db
      .updateTable("rate_limits")
      .set((eb) => ({ count: eb("count", "-", 1) }))
      .where("key", "=", key)
      .where("count", ">", 0)
      .where("reset_at", ">", new Date(this.nowMs()).toISOString())
      .execute();
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
 * Failed password sign-ins, counted per email and client address, per address, and per email across
 * addresses. Only failures count; a correct sign-in is never slowed while under the limits.
 *
 * Why per email *and* address: a per-email counter alone lets anyone who knows an address keep its
 * owner out. Here an attacker's tries lock the attacker's own source; the owner's device, another
 * source, still signs in with the password. The per-email backstop can lock the password path for
 * everyone, so it is set far above what one person types, and it only guards the password path:
 * sign-in by emailed code and the password reset never consult this throttle.
 */
export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: LoginLimits,
    private readonly nowMs: () => number = Date.now,
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

  /** Seconds to wait when any counter has reached its limit, else null. */
  async blockedFor(email: string, addressKey: string): Promise<number | null> {
    const limits: Array<[string, number]> = [
      [LoginThrottle.emailIpKey(email, addressKey), this.limits.maxFailuresPerEmailPerIp],
      [LoginThrottle.ipKey(addressKey), this.limits.maxFailuresPerIp],
      [LoginThrottle.emailKey(email), this.limits.maxFailuresPerEmail],
    ];
    const windows = await this.limiter.peek(limits.map(([key]) => key));
    let resetAt: number | null = null;
    for (const [key, limit] of limits) {
      const window = windows.get(key);
      if (window && window.count >= limit) resetAt = Math.max(resetAt ?? 0, window.resetAt);
    }
    return resetAt === null ? null : secondsUntil(resetAt, this.nowMs());
  }

  async recordFailure(email: string, addressKey: string): Promise<void> {
    const window = this.limits.failureWindowSeconds;
    await this.limiter.hit(LoginThrottle.emailIpKey(email, addressKey), window);
    await this.limiter.hit(LoginThrottle.ipKey(addressKey), window);
    await this.limiter.hit(LoginThrottle.emailKey(email), window);
  }

  /**
   * A correct sign-in (password or emailed code) from this address clears this address's count for
   * the email. The per-email count stays: one success must not reset a distributed attack's count.
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

/** 'Too many failed sign-in attempts. Please try again in N minutes.' (N rounded up, at least 1). */
export function tooManyLoginsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many failed sign-in attempts. Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}
