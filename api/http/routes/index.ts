import type { AnyRoute } from "../contract/route";
import { accountRoutes } from "./account";
import { emailChangeRoutes } from "./email-change";
import { anonymousRoutes } from "./anonymous";
import { authRoutes } from "./auth";
import { billingRoutes } from "./billing";
import { billingDetailsRoutes } from "./billing-details";
import { cancelRoutes } from "./cancel";
import { checkoutRoutes } from "./checkout";
import { cryptoRoutes } from "./crypto";
import { devClockRoutes, devMailRoutes } from "./dev";
import { dunningRoutes } from "./dunning";
import { deviceRoutes } from "./devices";
import { passkeyRoutes } from "./passkeys";
import { paymentMethodRoutes } from "./payment-methods";
import { paymentRoutes } from "./payments";
import { paypalRoutes } from "./paypal";
import { planChangeRoutes } from "./plan-changes";
import { planRoutes } from "./plans";
import { publicRoutes } from "./public";
import { securityRoutes } from "./security";
import { signupRoutes } from "./signup";
import { subscriptionRoutes } from "./subscription";
import { supportRoutes } from "./support";
import { twoFactorRoutes } from "./two-factor";
import { userRoutes } from "./user";
import { vpnRoutes } from "./vpn";
import { walletRoutes } from "./wallets";

/** Every route of the product API, in the order of the OpenAPI document. */
export const apiRoutes: readonly AnyRoute[] = [
  ...userRoutes,
  ...subscriptionRoutes,
  ...planChangeRoutes,
  ...planRoutes,
  ...paymentRoutes,
  ...checkoutRoutes,
  ...paymentMethodRoutes,
  ...walletRoutes,
  ...cryptoRoutes,
  ...paypalRoutes,
  ...billingRoutes,
  ...billingDetailsRoutes,
  ...cancelRoutes,
  ...dunningRoutes,
  ...accountRoutes,
  ...emailChangeRoutes,
  ...deviceRoutes,
  ...securityRoutes,
  ...publicRoutes,
  ...supportRoutes,
  ...signupRoutes,
  ...authRoutes,
  ...twoFactorRoutes,
  ...passkeyRoutes,
  ...anonymousRoutes,
  ...vpnRoutes,
];

/** The mail sandbox's pages: registered only while mail is a sandbox, documented always. */
export const mailSandboxRoutes: readonly AnyRoute[] = devMailRoutes;

/** The test clock: registered only in sandbox mode, documented always. */
export const clockSandboxRoutes: readonly AnyRoute[] = devClockRoutes;

/** Everything the OpenAPI document describes. */
export const documentedRoutes: readonly AnyRoute[] = [...apiRoutes, ...mailSandboxRoutes, ...clockSandboxRoutes];
