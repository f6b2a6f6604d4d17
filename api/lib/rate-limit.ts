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
  maxFailuresPerEmail: number;
  maxFailuresPerIp: number;
  failureWindowSeconds: number;
}

/**
 * Failed sign-in limits, per email and per client address. Only failures count; a correct sign-in
 * is never slowed while under the limits, and it clears the email's counter.
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

  /** Seconds to wait when either counter has reached its limit, else null. */
  async blockedFor(email: string, addressKey: string): Promise<number | null> {
    const emailKey = LoginThrottle.emailKey(email);
    const ipKey = LoginThrottle.ipKey(addressKey);
    const windows = await this.limiter.peek([emailKey, ipKey]);
    let resetAt: number | null = null;
    const byEmail = windows.get(emailKey);
    if (byEmail && byEmail.count >= this.limits.maxFailuresPerEmail) resetAt = byEmail.resetAt;
    const byIp = windows.get(ipKey);
    if (byIp && byIp.count >= this.limits.maxFailuresPerIp) resetAt = Math.max(resetAt ?? 0, byIp.resetAt);
    return resetAt === null ? null : secondsUntil(resetAt, this.nowMs());
  }

  async recordFailure(email: string, addressKey: string): Promise<void> {
    await this.limiter.hit(LoginThrottle.emailKey(email), this.limits.failureWindowSeconds);
    await this.limiter.hit(LoginThrottle.ipKey(addressKey), this.limits.failureWindowSeconds);
  }

  async recordSuccess(email: string): Promise<void> {
    await this.limiter.clear(LoginThrottle.emailKey(email));
  }
}

/** 'Too many failed sign-in attempts. Please try again in N minutes.' (N rounded up, at least 1). */
export function tooManyLoginsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many failed sign-in attempts. Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}
