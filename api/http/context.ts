import type { DunningDeps } from "../billing/dunning";
import type { PaymentsDeps } from "../payments/card-payments";
import type { CryptoDeps } from "../payments/bitpay/payments";
import type { PayPalDeps } from "../payments/paypal/payments";
import type { PlatformServices } from "../platform/services";
import type { NoticeDeps } from "../billing/notices";
import type { Gateways } from "../payments/gateway";
import type { VpnSetup } from "../vpn/setup";
import type { PasswordHasher } from "../identity/passwords";

/** What every route module receives: the platform's services and the payment gateways. */
export interface ApiContext extends PlatformServices {
  /** Card payments: the Stripe SDK (live, or pointed at the Stripe sandbox) and what it records into. */
  payments: PaymentsDeps;
  /** Crypto invoices: the BitPay client (live, or pointed at the crypto sandbox) and what it records into; null while crypto is off. */
  crypto: CryptoDeps | null;
  /** PayPal: the client (live, or pointed at the PayPal sandbox) and what it records into; null while PayPal is off. */
  paypal: PayPalDeps | null;
  /** Each gateway behind the one interface billing asks (gatewayFor; docs/decisions/049). */
  gateways: Gateways;
  /** Billing's notices, auto-renewal and refunds: the platform's services, mail and the gateways. */
  notices: NoticeDeps;
  /** Failed renewals (past due, grace period, their emails and the pay page's payment). */
  dunning: DunningDeps;
  /** Manual setup's servers and node tokens; null while it is off (outside sandbox mode without VPN_NODE_TOKENS). */
  vpn: VpnSetup | null;
  /** Hashes and checks passwords: the product's argon2id cost, or what the code that built the API gave (createApi). */
  passwords: PasswordHasher;
  /** Runs what has come due by the business clock (renewals, expiries); the test clock calls it. */
  runDueJobs(): Promise<void>;
}
