import type { Clock } from "./clock";
import type { ApiConfig } from "./config";
import type { Database } from "./db";
import type { Logger } from "./logger";
import type { MailService } from "./mailer";
import type { LoginThrottle, RateLimiter } from "./rate-limit";

/**
 * The platform's services, made once at boot (api/http/app.ts). Domain code asks for the few it uses
 * (`Pick<PlatformServices, "db" | "clock">`), so it depends on the platform and not on the HTTP layer's
 * context, which adds the payment gateways.
 */
export interface PlatformServices {
  config: ApiConfig;
  db: Database;
  clock: Clock;
  logger: Logger;
  limiter: RateLimiter;
  loginThrottle: LoginThrottle;
  /** Sends the product's emails (sandbox outbox or SMTP); logs only recipient and subject. */
  mail: MailService;
}
