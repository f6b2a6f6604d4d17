import type { ApiConfig } from "./config";
import type { Database } from "./db";
import type { Clock } from "./lib/clock";
import type { Logger } from "./lib/logger";
import type { MailService } from "./lib/mailer";
import type { LoginThrottle, RateLimiter } from "./lib/rate-limit";
import type { PaymentsDeps } from "./payments/card-payments";
import type { CryptoDeps } from "./payments/crypto";

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
  /** Card payments: the Stripe SDK (live, or pointed at the Stripe sandbox) and what it records into. */
  payments: PaymentsDeps;
  /** Crypto invoices: the BitPay client (live, or pointed at the crypto sandbox) and what it records into; null while crypto is off. */
  crypto: CryptoDeps | null;
  /** Runs what has come due by the business clock (renewals, expiries); the test clock calls it. */
  runDueJobs(): Promise<void>;
}
