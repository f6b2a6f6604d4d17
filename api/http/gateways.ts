import type { ApiConfig } from "../platform/config";
import type { Clock } from "../platform/clock";
import type { Database } from "../platform/db";
import type { Logger } from "../platform/logger";
import type { MailService } from "../platform/mailer";
import type { PaidHook } from "../payments/paid";
import type { PaymentGateway } from "../payments/gateway";
import type { RenewalEvents } from "../payments/renewal-events";
import { type PaymentsDeps, createCardPayments } from "../payments/card-payments";
import { type StripeSetup, liveStripe, sandboxStripe } from "../payments/stripe/client";
import { handleStripeWebhook } from "../payments/stripe/webhooks";
import { stripeGateway } from "../payments/stripe/gateway";
import { createBitPayClient } from "../payments/bitpay/client";
import { type CryptoDeps, createCryptoPayments, handleBitPayNotification } from "../payments/bitpay/payments";
import { bitpayGateway } from "../payments/bitpay/gateway";
import { PAYPAL_HOSTS, type PayPalClient, createPayPalClient } from "../payments/paypal/client";
import { type PayPalDeps, createPayPalPayments } from "../payments/paypal/payments";
import { paypalGateway } from "../payments/paypal/gateway";
import type { SandboxGateway, SandboxKit, StripeSandbox } from "./sandboxes";

/*
 * Each gateway built by one factory (docs/decisions/049): its client (live, or pointed at its stand-in,
 * which these start in sandbox mode on its own loopback port), its deps built whole with the collaborators
 * given here (what it reports to: receipts and the rules of failed renewals; the other gateways' clients),
 * and its adapter (PaymentGateway) for billing. Nothing is added to them afterwards. A stand-in delivers
 * its webhooks to the handler of the deps built from its client.
 */

/** What every factory takes: the platform's services, and the sandboxes in sandbox mode. */
export interface GatewayBase {
  config: ApiConfig;
  db: Database;
  clock: Clock;
  logger: Logger;
  sandboxes?: SandboxKit;
}

/** What a gateway reports to (billing's, built before any gateway: they need none). */
export interface GatewayListeners {
  onPaid: PaidHook;
  renewals: RenewalEvents;
}

export interface BuiltGateway<Deps, Sandbox = SandboxGateway> {
  deps: Deps;
  gateway: PaymentGateway;
  /** Its stand-in, in sandbox mode without credentials. */
  sandbox?: Sandbox;
  /** Stops the stand-in's server. */
  close(): Promise<void>;
}

const noServer = async (): Promise<void> => undefined;

/**
 * Card payments: live Stripe, or (sandbox mode only) the Stripe sandbox on its own loopback port (the SDK
 * needs a host of its own); the sandbox delivers its signed webhooks to the same handler as Stripe's.
 */
export async function createStripeGateway(
  base: GatewayBase,
  listeners: GatewayListeners & { paypal: PayPalClient | null },
): Promise<BuiltGateway<PaymentsDeps, StripeSandbox>> {
  const { config, db, clock, logger, sandboxes } = base;
  let setup: StripeSetup | null = liveStripe(config);
  let sandbox: StripeSandbox | undefined;
  let close = noServer;
  if (!setup) {
    // Cards are required outside sandbox mode (api/platform/config.ts): no credentials here means the stand-in.
    if (config.integrations.cards !== "sandbox" || !sandboxes) throw new Error("Card payments need STRIPE_SECRET_KEY outside sandbox mode.");
    sandbox = sandboxes.stripe.create({
      db,
      clock,
      publicUrl: config.publicUrl,
      logger,
      deliverEvent: (payload, signature) => handleStripeWebhook(deps, payload, signature),
      sandboxFaults: config.stripe.sandboxFaults,
      retryDays: config.stripe.sandboxRetryDays,
      // The account's public website, linked from the hosted invoice page: back to the billing page.
      businessUrl: `${config.publicUrl}/billing`,
      // Stripe Tax's stand-in computes the same EU rates as our table.
      taxRates: config.taxRates,
    });
    const listening = await sandbox.listen();
    close = () => listening.close();
    setup = sandboxStripe(config, {
      port: listening.port,
      secretKey: sandboxes.stripe.secretKey,
      publishableKey: sandboxes.stripe.publishableKey,
      webhookSecret: sandboxes.stripe.webhookSecret,
    });
  }
  const deps = createCardPayments({ db, clock, logger, publicUrl: config.publicUrl, gateway: setup, taxRates: config.taxRates, ...listeners });
  return { deps, gateway: stripeGateway(deps), sandbox, close };
}

/** PayPal's client, live with its credentials or pointed at its stand-in; null while PayPal is off. */
export interface PayPalConnection {
  client: PayPalClient;
  clientId: string;
  webhookId: string;
  sandbox?: SandboxGateway;
  close(): Promise<void>;
}

/**
 * PayPal's client first (the card and crypto gateways name it: a 5-year plan paid there suspends a PayPal
 * subscription, decision 028): live, or (sandbox mode only) the PayPal stand-in on its own loopback port,
 * reached through the same SDK calls, whose webhooks go to `deliverWebhook` (PayPal's handler, signatures
 * verified through the stand-in's verify-webhook-signature). Off: null, its routes 404.
 */
export async function connectPayPal(
  base: GatewayBase,
  deliverWebhook: (body: string, headers: Record<string, string>) => Promise<void>,
): Promise<PayPalConnection | null> {
  const { config, db, clock, logger, sandboxes } = base;
  if (config.integrations.paypal === "off") return null;
  if (config.integrations.paypal === "live") {
    const { clientId, clientSecret, webhookId, environment } = config.paypal;
    const client = createPayPalClient({ clientId: clientId!, clientSecret: clientSecret!, baseUrl: PAYPAL_HOSTS[environment], environment });
    return { client, clientId: clientId!, webhookId: webhookId!, close: noServer };
  }
  if (!sandboxes) throw new Error("PayPal needs PAYPAL_CLIENT_ID outside sandbox mode.");
  const sandbox = sandboxes.paypal.create({ db, clock, publicUrl: config.publicUrl, logger, deliverWebhook });
  const listening = await sandbox.listen();
  const client = createPayPalClient({
    clientId: sandboxes.paypal.clientId,
    clientSecret: sandboxes.paypal.clientSecret,
    baseUrl: `http://127.0.0.1:${listening.port}`,
    environment: "sandbox",
    overrideHost: true,
  });
  return { client, clientId: sandboxes.paypal.clientId, webhookId: sandboxes.paypal.webhookId, sandbox, close: () => listening.close() };
}

/** The merchant's name on PayPal's approval pages. */
const PAYPAL_BRAND_NAME = "VPN";

/** PayPal's deps and adapter, on its connection. */
export function createPayPalGateway(
  base: GatewayBase,
  connection: PayPalConnection,
  listeners: GatewayListeners & { gateway: StripeSetup },
): BuiltGateway<PayPalDeps> {
  const { config, db, clock, logger } = base;
  const deps = createPayPalPayments({
    db,
    clock,
    logger,
    publicUrl: config.publicUrl,
    mode: config.integrations.paypal === "live" ? "live" : "sandbox",
    clientId: connection.clientId,
    webhookId: connection.webhookId,
    client: connection.client,
    brandName: PAYPAL_BRAND_NAME,
    taxRates: config.taxRates,
    ...listeners,
  });
  return { deps, gateway: paypalGateway(deps), sandbox: connection.sandbox, close: () => connection.close() };
}

/**
 * Crypto invoices: live BitPay, or (sandbox mode only) the crypto sandbox on its own loopback port, which
 * delivers its notifications to the same handler as BitPay's (secret included); null while crypto is off.
 */
export async function createBitPayGateway(
  base: GatewayBase,
  listeners: Pick<GatewayListeners, "onPaid"> & { mail: MailService; gateway: StripeSetup; paypal: PayPalClient | null },
): Promise<BuiltGateway<CryptoDeps> | null> {
  const { config, db, clock, logger, sandboxes } = base;
  if (config.integrations.crypto === "off") return null;
  let bitpay = config.bitpay.token ? createBitPayClient({ baseUrl: config.bitpay.baseUrl, token: config.bitpay.token }) : null;
  let notificationSecret = config.bitpay.notificationSecret;
  let sandbox: SandboxGateway | undefined;
  let close = noServer;
  if (!bitpay) {
    // Crypto is optional: without a token it is off outside sandbox mode (api/platform/config.ts).
    if (!sandboxes) throw new Error("Crypto payments need BITPAY_API_TOKEN outside sandbox mode.");
    sandbox = sandboxes.bitpay.create({
      db,
      clock,
      publicUrl: config.publicUrl,
      logger,
      deliverNotification: async (url, payload) => {
        const secret = new URL(url).searchParams.get("secret");
        await handleBitPayNotification(deps, secret, JSON.parse(payload));
      },
    });
    const listening = await sandbox.listen();
    close = () => listening.close();
    bitpay = createBitPayClient({ baseUrl: `http://127.0.0.1:${listening.port}/`, token: sandboxes.bitpay.token });
    // The sandbox's published secret: it opens this route only here, in sandbox mode.
    notificationSecret = sandboxes.bitpay.notificationSecret;
  }
  const deps = createCryptoPayments({
    db,
    clock,
    logger,
    bitpay,
    publicUrl: config.publicUrl,
    // Live notifications carry the configured secret (required with a BitPay token).
    notificationSecret: notificationSecret!,
    taxRates: config.taxRates,
    ...listeners,
  });
  return { deps, gateway: bitpayGateway(), sandbox, close };
}
