import type { ApiConfig } from "./config";
import type { Database } from "./db";
import type { Clock } from "./lib/clock";
import type { MailService } from "./lib/mailer";
import type { LoginThrottle, RateLimiter } from "./lib/rate-limit";

export type Logger = Pick<Console, "info" | "warn" | "error">;

/** What every route module receives. */
export interface ApiContext {
  config: ApiConfig;
  db: Database;
  clock: Clock;
  logger: Logger;
  limiter: RateLimiter;
  loginThrottle: LoginThrottle;
  /** Sends the product's emails (sandbox outbox or SMTP); logs only recipient and subject. */
  mail: MailService;
}
