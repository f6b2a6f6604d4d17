import express, { type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { type AnyRoute, route } from "../contract/route";
import type { ApiContext } from "../context";
import type { User } from "../../platform/db/schema";
import { DomainError } from "../../platform/errors";
import { body, emailField, idField, integerOrDigits, optionalText, requiredText } from "../validation";
import { idempotencyKeyBadRequest, idempotencyKeyField, idempotencyKeyHeader, idempotencyKeyOf } from "../idempotency-key";
import { PAYMENT_MESSAGES } from "../../payments/card-payments";
import { IDEMPOTENCY_MESSAGES } from "../../payments/idempotency";
import {
  WALLET_MESSAGES,
  WALLET_SOURCES,
  type WalletOutcome,
  checkChargeAmount,
  checkValidationUrl,
  derivedChargeKey,
  expectedAmountCents,
  merchantDomain,
  payWithWallet,
  sandboxMerchantSession,
} from "../../payments/wallets";
import { authenticationData, authenticationFields, limitPaymentAttempts, planOrError, subscriptionData } from "./payments";
import { SubscriptionSchema } from "./subscription";

/*
 * Google Pay and Apple Pay (commerce §3, §7; api/payments/wallets.ts):
 *   POST /api/payments/wallet                       the wallet payload {paymentTokenId, productId, planId, paymentSource, ...}
 *   POST /api/payments/apple/merchant-validation    {merchantSession} (sandbox stand-in; live Stripe does it in Stripe.js)
 *   POST /payments/apple/charge                     the Apple Pay charge, at the spec's own path
 *   POST /api/payments/apple/charge                 the same under /api
 */

export const APPLE_CHARGE_ROOT_PATH = "/payments/apple/charge";

const WalletResultSchema = z
  .strictObject({
    status: z.enum(["paid", "requires_action"]).meta({
      description: "paid: the plan is active (subscription); requires_action: the card needs 3-D Secure, confirm client_secret with Stripe.js.",
    }),
    payment_source: z.enum(WALLET_SOURCES).meta({ description: "The wallet, as recorded in transactions.wallet_payment_type." }),
    subscription: SubscriptionSchema.optional(),
    ...authenticationFields,
  })
  .meta({ id: "WalletPaymentResult" });

const paymentSourceField = () =>
  z.enum(WALLET_SOURCES, { error: WALLET_MESSAGES.source }).meta({ description: "The wallet that made the payment method." });

const optionalEmail = () =>
  emailField()
    .optional()
    .meta({ description: "The account's email (the spec's payload); when given it must be the signed-in user's." });

const walletPaymentRequest = body({
  paymentTokenId: requiredText("payment token id", { max: 255 }).meta({
    description: "The card PaymentMethod the wallet sheet made (Stripe's Express Checkout Element live, the sandbox's tokenizer otherwise).",
  }),
  productId: optionalText("product id", 255).meta({ description: "The plan's code (plans.plan_id); informative." }),
  planId: idField("plan id").meta({ description: "plans.id" }),
  paymentSource: paymentSourceField(),
  email: optionalEmail(),
  coupon: optionalText("coupon", 64).meta({ description: "A coupon code (see /api/coupons/apply); it lowers the first payment." }),
  idempotency_key: idempotencyKeyField(
    "A random key the page makes for this payment (at least 16 characters). Posting again with the same key never pays twice: the first answer is repeated.",
  ),
}).meta({ id: "WalletPaymentRequest" });

/** Whole cents: a number, or digits in a form. */
const centsField = () =>
  z
    .unknown()
    .transform((value, ctx) => {
      if (value === undefined || value === null || value === "") {
        ctx.addIssue({ code: "custom", message: "The amount field is required." });
        return z.NEVER;
      }
      const digits = typeof value === "string" && /^\s*\d{1,9}\s*$/.test(value);
      const n = typeof value === "number" ? value : digits ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < 1) {
        ctx.addIssue({ code: "custom", message: WALLET_MESSAGES.amountNotCents });
        return z.NEVER;
      }
      return n;
    })
    .meta({
      description: "In cents, as Stripe counts (commerce §9): the plan's discounted price × 100 (the coupon's total with a coupon).",
      override: { ...integerOrDigits({ min: 1, maxDigits: 9 }), examples: [10776] },
    });

const appleChargeRequest = body({
  token: requiredText("token", { max: 255 }).meta({ description: "The card PaymentMethod Apple Pay made (pm_...)." }),
  email: emailField().meta({ description: "The account's email; it must be the signed-in user's." }),
  amount: centsField(),
  currency: optionalText("currency", 3).meta({
    description: "USD (any case); missing means USD.",
    override: { anyOf: undefined, type: ["string", "null"], default: "USD", examples: ["USD"] },
  }),
  productId: optionalText("product id", 255).meta({ description: "The plan's code (plans.plan_id); informative." }),
  planId: idField("plan id").meta({ description: "plans.id" }),
  coupon: optionalText("coupon", 64).meta({ description: "A coupon code; the amount must then be the coupon's total." }),
}).meta({ id: "AppleChargeRequest" });

const merchantValidationRequest = body({
  validationURL: optionalText("validation url", 2048).meta({
    description: "ApplePayValidateMerchantEvent.validationURL: an Apple server (https://*.apple.com). Checked, never fetched.",
  }),
  domain: optionalText("domain", 253).meta({ description: "The page's host; it must be the portal's (PUBLIC_URL). Default: that host." }),
}).meta({ id: "AppleMerchantValidationRequest" });

const MerchantSessionSchema = z
  .strictObject({
    merchantSession: z
      .strictObject({
        epochTimestamp: z.int(),
        expiresAt: z.int(),
        merchantSessionIdentifier: z.string(),
        nonce: z.string(),
        merchantIdentifier: z.string(),
        domainName: z.string(),
        displayName: z.string(),
        signature: z.string(),
        operationalAnalyticsIdentifier: z.string(),
        retries: z.int(),
        sandbox: z.literal(true).meta({ description: "Always true: only the sandbox answers a session (see the description)." }),
      })
      .meta({
        description:
          "Opaque to the portal: what ApplePaySession.completeMerchantValidation() takes. The sandbox's stand-in has the fields of Apple's startSession answer, with no real signature.",
      }),
  })
  .meta({ id: "AppleMerchantSession" });

const PAYMENT_ERRORS = {
  402: "The wallet's card was refused: the gateway's message, e.g. 'Your card was declined.' or 'Your card has insufficient funds.' (recorded as 'Payment failed' with the wallet type).",
  404: "'This plan does not exist.'",
  409: `'${PAYMENT_MESSAGES.alreadyCurrent}' (the plan of a subscription that still renews), 'You already have a subscription. Change your plan instead.' (subscription_exists: a recurring plan while one runs, or while another purchase runs) or '${IDEMPOTENCY_MESSAGES.inProgress}'`,
  429: rateLimited("'Too many payment attempts. Please try again later.' (card and wallet payments share 20 attempts per user per hour)"),
} as const;

function refuseOtherEmail(user: User, email: string | undefined) {
  if (email !== undefined && email !== user.email) {
    throw new DomainError("email_mismatch", PAYMENT_MESSAGES.emailMismatch, { field: "email" });
  }
}

async function walletAnswer(ctx: ApiContext, outcome: WalletOutcome, source: (typeof WALLET_SOURCES)[number]) {
  if (outcome.status === "requires_action") {
    return { status: "requires_action" as const, payment_source: source, ...authenticationData(outcome.authentication) };
  }
  return { status: "paid" as const, payment_source: source, subscription: await subscriptionData(ctx, outcome.subscriptionId) };
}

// The root path is outside /api, where the API app parses bodies and sets its headers: the charge
// does both for itself (and api/http/app.ts answers its errors with the error envelope).
let rootParsers: RequestHandler[] | undefined;
function run(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => handler(req, res, (error?: unknown) => (error ? reject(error) : resolve())));
}
async function parseRootBody({ req, res }: { req: Request; res: Response }): Promise<void> {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  // The same parsers and limit (64 kB, BODY_LIMIT in api/http/app.ts) as under /api; each one skips a body already parsed.
  rootParsers ??= [
    express.json({ limit: "64kb", strict: false }),
    express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 100 }),
  ];
  for (const parser of rootParsers) await run(parser, req, res);
}

function appleChargeRoute(path: string, operationId: string, where: string): AnyRoute {
  return route({
    method: "post",
    path,
    operationId,
    tags: ["Billing"],
    summary: `Apple Pay charge (${where})`,
    description:
      "commerce §7: JSON {token, email, amount, currency, productId, planId}. The amount (cents) and currency must be the plan's price (the coupon's total with a coupon), else 422 saying what it should be. Then it pays like POST /api/payments/wallet with paymentSource applepay. Idempotency: the Idempotency-Key header when sent, else one key per (user, token, plan), so a double submit of one Apple Pay token charges once; the key is echoed in the Idempotency-Key answer header.",
    auth: true,
    ...(path === APPLE_CHARGE_ROOT_PATH ? { before: parseRootBody } : {}),
    headers: idempotencyKeyHeader,
    body: appleChargeRequest,
    success: { description: `'${WALLET_MESSAGES.paid}'`, data: WalletResultSchema },
    errors: {
      ...PAYMENT_ERRORS,
      422: `Validation; the amount or currency does not match the plan ('${WALLET_MESSAGES.currency}', 'The amount does not match the price of 2 Years: 10776 cents ($107.76 USD).', '${WALLET_MESSAGES.amountNotCents}'); '${PAYMENT_MESSAGES.emailMismatch}'; '${PAYMENT_MESSAGES.cardNotUsable}'; '${IDEMPOTENCY_MESSAGES.reused}'`,
    },
    async handler({ ctx, req, res, auth, body: input }) {
      // The spec's payload has no key field: the header's, else one derived from the token and plan.
      const header = idempotencyKeyOf(req, undefined, { required: false });
      refuseOtherEmail(auth.user, input.email);
      const plan = await planOrError(ctx, input.planId);
      const currency = (input.currency ?? "USD").toUpperCase();
      checkChargeAmount(plan, await expectedAmountCents(ctx, plan, input.coupon), input.amount, currency);
      const key = header ?? derivedChargeKey(auth.user.id, input.token, plan.id);
      const { outcome, message } = await payWithWallet(ctx, {
        user: auth.user,
        plan,
        paymentMethodId: input.token,
        source: "applepay",
        couponCode: input.coupon,
        key,
        scope: "applecharge",
        request: { token: input.token, planId: plan.id, amount: input.amount, currency, coupon: input.coupon ?? null },
        beforeCharge: () => limitPaymentAttempts(ctx, auth.user.id),
      });
      res.setHeader("Idempotency-Key", key);
      return { data: await walletAnswer(ctx, outcome, "applepay"), message };
    },
  });
}

export const walletRoutes: AnyRoute[] = [
  route({
    method: "post",
    path: "/api/payments/wallet",
    operationId: "walletPayment",
    tags: ["Billing"],
    summary: "Pay for a plan with Google Pay or Apple Pay",
    description:
      "commerce §3 'Wallet payload'. The wallet's card PaymentMethod pays like a new card (POST /api/payments/card): a subscription for recurring plans, one payment for the 5-year plan. The transaction is recorded with wallet_payment_type googlepay or applepay (paid, or 'Payment failed' on a decline). The idempotency key makes a double submit one payment: every post with the same key gets the first answer.",
    auth: true,
    headers: idempotencyKeyHeader,
    body: walletPaymentRequest,
    success: { description: `'${WALLET_MESSAGES.paid}'`, data: WalletResultSchema },
    errors: {
      400: idempotencyKeyBadRequest,
      ...PAYMENT_ERRORS,
      422: `Validation ('${WALLET_MESSAGES.source}', ...); '${PAYMENT_MESSAGES.emailMismatch}'; a coupon that cannot be used ('This coupon code is not valid.' under errors.fields.coupon, also when parallel payments took its last redemption); '${PAYMENT_MESSAGES.cardNotUsable}'; '${IDEMPOTENCY_MESSAGES.reused}'`,
    },
    async handler({ ctx, req, res, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      refuseOtherEmail(auth.user, input.email);
      const plan = await planOrError(ctx, input.planId);
      const { idempotency_key: _key, email: _email, productId: _productId, ...request } = input;
      const { outcome, message } = await payWithWallet(ctx, {
        user: auth.user,
        plan,
        paymentMethodId: input.paymentTokenId,
        source: input.paymentSource,
        couponCode: input.coupon,
        key,
        scope: "wallet",
        request,
        beforeCharge: () => limitPaymentAttempts(ctx, auth.user.id),
      });
      res.setHeader("Idempotency-Key", key);
      return { data: await walletAnswer(ctx, outcome, input.paymentSource), message };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/apple/merchant-validation",
    operationId: "appleMerchantValidation",
    tags: ["Billing"],
    summary: "Apple Pay merchant validation",
    description:
      "commerce §7 (reads merchantSession). Live Stripe: 501, because Stripe.js (the Express Checkout Element) validates the merchant with Apple itself, as the Apple Pay merchant of record, for every domain registered with Stripe (Dashboard → Payment method domains); there is no Apple merchant certificate here to call Apple's startSession with. Sandbox: a stand-in session object with the fields of Apple's answer, for the portal's stand-in sheet and for tests; nothing is fetched from validationURL.",
    auth: true,
    body: merchantValidationRequest,
    success: { description: `'${WALLET_MESSAGES.merchantSession}'`, data: MerchantSessionSchema },
    errors: {
      422: `Validation; '${WALLET_MESSAGES.validationUrl}'; '${WALLET_MESSAGES.domainNotRegistered}'`,
      501: `Live Stripe: '${WALLET_MESSAGES.merchantValidationLive}'`,
    },
    handler({ ctx, body: input }) {
      if (ctx.payments.gateway.mode === "live") throw new DomainError("not_implemented", WALLET_MESSAGES.merchantValidationLive);
      checkValidationUrl(input.validationURL);
      const domain = merchantDomain(ctx.config.publicUrl, input.domain);
      return { data: { merchantSession: sandboxMerchantSession(domain, ctx.clock.now()) }, message: WALLET_MESSAGES.merchantSession };
    },
  }),

  appleChargeRoute(APPLE_CHARGE_ROOT_PATH, "appleCharge", "the spec's path"),
  appleChargeRoute("/api/payments/apple/charge", "appleChargeApi", "under /api"),
];
