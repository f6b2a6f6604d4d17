import type { DunningDeps } from "../billing/dunning";
import type { PaymentsDeps } from "../payments/card-payments";
import type { CryptoDeps } from "../payments/bitpay/payments";
import type { PayPalDeps } from "../payments/paypal/payments";
import type { PlatformServices } from "../platform/services";

/** What every route module receives: the platform's services and the payment gateways. */
export interface ApiContext extends PlatformServices {
  /** Card payments: the Stripe SDK (live, or pointed at the Stripe sandbox) and what it records into. */
  payments: PaymentsDeps;
  /** Crypto invoices: the BitPay client (live, or pointed at the crypto sandbox) and what it records into; null while crypto is off. */
  crypto: CryptoDeps | null;
  /** PayPal: the client (live, or pointed at the PayPal sandbox) and what it records into; null while PayPal is off. */
  paypal: PayPalDeps | null;
  /** Failed renewals (past due, grace period, their emails and the pay page's payment). */
  dunning: DunningDeps;
  /** Runs what has come due by the business clock (renewals, expiries); the test clock calls it. */
  runDueJobs(): Promise<void>;
}
