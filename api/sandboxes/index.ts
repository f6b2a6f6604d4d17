import { BITPAY_SANDBOX_NOTIFICATION_SECRET, BITPAY_SANDBOX_TOKEN, createBitPaySandbox } from "./bitpay";
import { APPLE_SANDBOX_PATH, GOOGLE_SANDBOX_PATH, createIdentitySandbox } from "./identity/identity";
import { sandboxClockStore } from "./clock";
import { migrateSandboxes } from "./migrations";
import {
  PAYPAL_SANDBOX_CLIENT_ID,
  PAYPAL_SANDBOX_CLIENT_SECRET,
  PAYPAL_SANDBOX_WEBHOOK_ID,
  createPayPalSandbox,
} from "./paypal";
import { seedSandbox } from "./seed";
import {
  SANDBOX_PUBLISHABLE_KEY,
  SANDBOX_SECRET_KEY,
  SANDBOX_WEBHOOK_SECRET,
  type StripeSandboxOptions,
  createStripeSandbox,
  parseFaultPlan,
} from "./stripe";
import { VPN_SANDBOX_NODE_TOKEN, VPN_SANDBOX_SERVERS } from "./vpn";

/*
 * The sandboxes' one door (docs/decisions/024). The product loads this module with a dynamic import
 * in sandbox mode only (api/http/sandboxes.ts, which declares the shape it expects: `SandboxKit`);
 * the build makes it a bundle of its own, build/sandboxes.js, so the product's bundles hold none of it.
 */
export const sandboxKit = {
  /** Creates the sandboxes' tables (their own migration set, recorded apart from the product's). */
  migrate: migrateSandboxes,
  /** The demo account and the WELCOME10 coupon. */
  seed: seedSandbox,
  /** Where the business clock of sandbox mode keeps its offset (shared by every instance). */
  clockStore: sandboxClockStore,
  stripe: {
    /** sandboxFaults: STRIPE_SANDBOX_FAULTS as given, checked here (the config checks only its shape). */
    create: ({ sandboxFaults, ...opts }: Omit<StripeSandboxOptions, "faults"> & { sandboxFaults?: string }) =>
      createStripeSandbox({ ...opts, faults: parseFaultPlan(sandboxFaults) }),
    secretKey: SANDBOX_SECRET_KEY,
    publishableKey: SANDBOX_PUBLISHABLE_KEY,
    webhookSecret: SANDBOX_WEBHOOK_SECRET,
  },
  bitpay: {
    create: createBitPaySandbox,
    token: BITPAY_SANDBOX_TOKEN,
    notificationSecret: BITPAY_SANDBOX_NOTIFICATION_SECRET,
  },
  paypal: {
    create: createPayPalSandbox,
    clientId: PAYPAL_SANDBOX_CLIENT_ID,
    clientSecret: PAYPAL_SANDBOX_CLIENT_SECRET,
    webhookId: PAYPAL_SANDBOX_WEBHOOK_ID,
  },
  identity: {
    create: createIdentitySandbox,
    googlePath: GOOGLE_SANDBOX_PATH,
    applePath: APPLE_SANDBOX_PATH,
  },
  vpn: {
    servers: VPN_SANDBOX_SERVERS,
    nodeToken: VPN_SANDBOX_NODE_TOKEN,
  },
};
