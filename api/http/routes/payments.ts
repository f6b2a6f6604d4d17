import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import type { ApiContext } from "../context";
import type { Request } from "express";
import type { PaymentMethod } from "../../platform/db/schema";
import { type Param, prepare } from "../../platform/db/prepared";
import { DomainError, isRefusal } from "../../platform/errors";
import { secondsUntil } from "../../platform/rate-limit";
import { body, emailField, idField, optionalText, requiredText } from "../validation";
import { idempotencyKeyBadRequest, idempotencyKeyField as keyField, idempotencyKeyHeader, idempotencyKeyOf } from "../idempotency-key";
import {
  type Authentication,
  PAYMENT_MESSAGES,
  completeCheckoutSession,
  finishAuthentication,
  payWithCard,
  startCheckoutSession,
} from "../../payments/card-payments";
import { IDEMPOTENCY_MESSAGES, oncePerKey, refusalAnswer, replayedRefusal, type StoredRefusal } from "../../payments/idempotency";
import { findPlan } from "../../payments/plans";
import { SUBSCRIPTION_MESSAGES } from "../../payments/one-subscription";
import { WEBHOOK_MESSAGES, handleStripeWebhook } from "../../payments/stripe/webhooks";
import { SubscriptionSchema, publicSubscription } from "./subscription";
import { APP_PLATFORMS, appPlatformOf, clientHintsOf, parseUserAgent } from "../../identity/user-agent";

export const STRIPE_WEBHOOK_PATH = "/api/payments/stripe/webhook";

/** Stripe's Event object, as far as this API reads it (Stripe sends more fields). */
const StripeEventSchema = z
  .looseObject({
    id: z.string().meta({ examples: ["evt_1NG8Du2eZvKYlo2CUI79vXWy"] }),
    object: z.literal("event").optional(),
    type: z.string().meta({ examples: ["invoice.paid"] }),
    created: z.int().optional().meta({ description: "Unix time" }),
    livemode: z.boolean().optional(),
    api_version: z.string().nullable().optional(),
    data: z.looseObject({ object: z.looseObject({}).meta({ description: "The event's object (re-read from Stripe, never trusted)." }) }),
  })
  .meta({ id: "StripeEvent" });

export const CARD_TYPES = ["new-card", "saved-card"] as const;

/** Payment attempts per user per hour (real time): enough for every honest retry, not for card testing. */
const PAYMENT_ATTEMPTS_PER_HOUR = 20;

const idempotencyKeyField = () =>
  keyField(
    "A random key the page makes for this payment (at least 16 characters). Posting again with the same key never pays twice: the first answer is repeated.",
  );

const couponField = () =>
  optionalText("coupon", 64).meta({ description: "A coupon code (see /api/coupons/apply); it lowers the first payment." });

/** A page of the portal for the bank's challenge to come back to: a path, or a URL of the portal's own origin. */
export const returnUrlField = () =>
  optionalText("return url", 500).meta({
    description:
      "Where the bank's 3-D Secure challenge sends the browser back (a path of the portal, or a URL of its origin). With it, a card that needs authentication answers redirect_url, the challenge page to send the browser to; it comes back with payment_intent (and subscription) in the query, to be finished with /api/payments/card/complete-authentication.",
  });

/** The return URL as a full URL of the portal's origin; anything else is refused (no open redirect). */
export function portalReturnUrl(ctx: ApiContext, value: string | undefined): string | undefined {
  if (!value) return undefined;
  const origin = new URL(ctx.payments.publicUrl).origin;
  let url: URL | null = null;
  try {
    url = value.startsWith("/") && !value.startsWith("//") ? new URL(value, origin) : new URL(value);
  } catch {
    url = null;
  }
  if (!url || url.origin !== origin) throw new DomainError("validation_failed", "The return URL must be a page of this site.", { field: "return_url" });
  url.hash = "";
  return url.toString();
}

/** What the browser needs to run the bank's challenge. */
export const authenticationFields = {
  client_secret: z.string().optional().meta({ description: "requires_action: the intent's client secret, for Stripe.js's handleNextAction." }),
  payment_intent: z.string().optional().meta({ description: "requires_action: the PaymentIntent to finish after the challenge." }),
  subscription_id: z.string().optional().meta({ description: "requires_action: the Stripe subscription whose first invoice it pays (absent for a one-time payment)." }),
  redirect_url: z.string().optional().meta({ description: "requires_action with a return_url: the challenge page to send the browser to." }),
  authentication_url: z.string().optional().meta({ description: "requires_action, sandbox only: the challenge page, for the portal's challenge dialog." }),
};

export function authenticationData(a: Authentication) {
  return {
    client_secret: a.clientSecret,
    payment_intent: a.paymentIntent,
    ...(a.subscription ? { subscription_id: a.subscription } : {}),
    ...(a.redirectUrl ? { redirect_url: a.redirectUrl } : {}),
    ...(a.authenticationUrl ? { authentication_url: a.authenticationUrl } : {}),
  };
}

const completeAuthenticationRequest = body({
  payment_intent: requiredText("payment intent", { max: 255 }).meta({ description: "The PaymentIntent (payment_intent of the return URL, or of the requires_action answer)." }),
  subscription: optionalText("subscription", 255).meta({ description: "The Stripe subscription it pays the first invoice of (subscription of the return URL, or subscription_id)." }),
}).meta({ id: "CompleteAuthenticationRequest" });

const cardPaymentRequest = body({
  paymentMethodId: requiredText("payment method id", { max: 255 }).meta({
    description: "A card the browser made with Stripe.js (or the sandbox's card form), or a saved card's payment_method_id.",
  }),
  productId: optionalText("product id", 255).meta({ description: "The plan's code (plans.plan_id); informative." }),
  planId: idField("plan id").meta({ description: "plans.id" }),
  type: z
    .enum(CARD_TYPES, { error: "The type must be new-card or saved-card." })
    .meta({ description: "new-card: paymentMethodId was just made; saved-card: one of the account's saved cards." }),
  email: emailField().meta({ description: "The account's email (the spec's payload); it must be the signed-in user's." }),
  coupon: couponField(),
  idempotency_key: idempotencyKeyField(),
  return_url: returnUrlField(),
}).meta({ id: "CardPaymentRequest" });

const checkoutSessionRequest = body({
  planId: idField("plan id").meta({ description: "plans.id" }),
  coupon: couponField(),
  return_path: requiredText("return path", { max: 200 }).meta({
    description: "The portal page to come back to: /subscription/payment/{planId} or /payment/{planId} (query allowed).",
  }),
  idempotency_key: idempotencyKeyField(),
}).meta({ id: "CheckoutSessionRequest" });

const completeSessionRequest = body({
  sessionId: requiredText("session id", { max: 255 }).meta({ description: "The Checkout Session's id (session_id of the return URL)." }),
}).meta({ id: "CompleteCheckoutRequest" });

const PaymentResultSchema = z
  .strictObject({
    status: z.enum(["paid", "requires_action", "pending"]).meta({
      description:
        "paid: the plan is active (subscription); requires_action: the card needs 3-D Secure: send the browser to redirect_url, or run client_secret's next action with Stripe.js (authentication_url in a dialog in the sandbox), then finish with /api/payments/card/complete-authentication; pending: the payment is not complete yet.",
    }),
    subscription: SubscriptionSchema.optional(),
    ...authenticationFields,
  })
  .meta({ id: "PaymentResult" });

export const SavedCardSchema = z
  .strictObject({
    id: z.int(),
    payment_method_id: z.string(),
    card_brand: z.string().meta({ examples: ["visa", "mastercard", "amex"] }),
    card_number: z.string().meta({ description: "Masked: only the last four digits.", examples: ["**** **** **** 4242"] }),
    card_exp: z.string().meta({ examples: ["12/30"] }),
    card_exp_month: z.int(),
    card_exp_year: z.int(),
    billing_name: z.string().nullable(),
    billing_postal: z.string().nullable(),
    created_at: z.string().meta({ format: "date-time" }),
    is_default: z.boolean(),
    wallet_payment_type: z.string().meta({ examples: ["card", "applepay", "googlepay"] }),
    payment_gateway: z.string().meta({ examples: ["stripe"] }),
  })
  .meta({ id: "SavedCard" });

/** The account's saved cards as /api/payments/payment-methods lists them: the default first, then the newest. */
export async function savedCardsOf(ctx: Pick<ApiContext, "db">, userId: number): Promise<Array<z.infer<typeof SavedCardSchema>>> {
  const cards = await savedCardRows.execute(ctx.db, { userId });
  return cards.map(publicCard);
}

// The checkout asks it on every load (prepared once).
const savedCardRows = prepare((db, param: Param<{ userId: number }>) =>
  db.selectFrom("payment_methods").selectAll().where("user_id", "=", param("userId")).orderBy("is_default", "desc").orderBy("created_at", "desc").orderBy("id", "desc"),
);

export function publicCard(card: PaymentMethod): z.infer<typeof SavedCardSchema> {
  return {
    id: Number(card.id),
    payment_method_id: card.payment_method_id,
    card_brand: card.card_brand,
    card_number: `**** **** **** ${card.card_last4}`,
    card_exp: `${String(card.card_exp_month).padStart(2, "0")}/${String(card.card_exp_year % 100).padStart(2, "0")}`,
    card_exp_month: card.card_exp_month,
    card_exp_year: card.card_exp_year,
    billing_name: card.billing_name,
    billing_postal: card.billing_postal,
    created_at: card.created_at,
    is_default: card.is_default === 1,
    wallet_payment_type: card.wallet_payment_type,
    payment_gateway: card.payment_gateway,
  };
}

export async function planOrError(ctx: ApiContext, planId: number) {
  const plan = await findPlan(ctx.db, planId);
  if (!plan) throw new DomainError("not_found", "This plan does not exist.", { field: "planId" });
  return plan;
}

/** Payment attempts count per user (every attempt, before the card is looked at). */
export async function limitPaymentAttempts(ctx: ApiContext, userId: number) {
  const attempts = await ctx.limiter.hit(`payment:user:${userId}`, 3600);
  if (attempts.count > PAYMENT_ATTEMPTS_PER_HOUR) {
    const wait = secondsUntil(attempts.resetAt);
    throw new DomainError("rate_limited", "Too many payment attempts. Please try again later.", {
      headers: { "Retry-After": String(wait) },
    });
  }
}

export async function subscriptionData(ctx: ApiContext, id: number) {
  const row = await ctx.db.selectFrom("subscriptions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  return publicSubscription(row);
}

/** What GET /api/payments/config answers (also part of GET /api/account/checkout). */
export const PaymentConfigSchema = z.strictObject({
  mode: z.enum(["live", "sandbox"]),
  publishable_key: z.string(),
  crypto: z.boolean(),
  paypal: z.boolean(),
  paypal_client_id: z.string().nullable(),
  device: z
    .strictObject({
      os: z.string().nullable().meta({ description: "Its system as the device list names it ('Android', 'iOS', 'Windows'), or null." }),
      app: z.enum(APP_PLATFORMS).nullable().meta({ description: "Which of the apps fits it (the receipt offers it first), or null." }),
    })
    .meta({
      description:
        "The device asking, read by the API's one User-Agent parser from the User-Agent and client hints the portal forwards: the wallets say why Apple Pay is missing on Android, the receipt offers this device's app first.",
    }),
}).meta({ id: "PaymentConfig" });

export function paymentConfigOf(ctx: ApiContext, req: Request): z.infer<typeof PaymentConfigSchema> {
  const { os } = parseUserAgent(req.headers["user-agent"], clientHintsOf(req.headers));
  return {
    mode: ctx.payments.gateway.mode,
    publishable_key: ctx.payments.gateway.publishableKey,
    crypto: ctx.crypto !== null,
    paypal: ctx.paypal !== null,
    paypal_client_id: ctx.paypal?.mode === "live" ? ctx.paypal.clientId : null,
    device: { os, app: appPlatformOf(os) },
  };
}

const RETURN_PATH = /^\/(subscription\/)?payment\/\d{1,15}(\?[^#\s]*)?$/;

export const paymentRoutes = [
  route({
    method: "get",
    path: "/api/payments/config",
    operationId: "paymentConfig",
    tags: ["Billing"],
    summary: "What the browser needs to take a card, and which other gateways are on",
    description:
      "live: load Stripe.js with publishable_key. sandbox: the sandbox's inline card form posts the card to /dev/stripe/v1/payment_methods with publishable_key as its bearer token (the stand-in for Stripe.js). crypto: whether crypto invoices (BitPay) are offered; false while they are off (no BITPAY_API_TOKEN outside sandbox mode). paypal: whether PayPal is offered (false without PayPal credentials outside sandbox mode); paypal_client_id: live only, the client id for PayPal's JavaScript buttons (null in sandbox mode, where the redirect to the approval page stays).",
    auth: false,
    success: { description: "The card gateway", data: PaymentConfigSchema },
    handler: ({ ctx, req }) => ({ data: paymentConfigOf(ctx, req) }),
  }),

  route({
    method: "post",
    path: "/api/payments/card",
    operationId: "cardPayment",
    tags: ["Billing"],
    summary: "Pay for a plan with a card (new or saved)",
    description:
      "Recurring plans become a Stripe subscription (created default_incomplete, then confirmed with the card); the 5-year plan is one payment that never renews. The card is saved to the account (the first one becomes the default). The transaction is recorded paid or 'Payment failed', with its invoice. The idempotency key makes a double submit or a retry one payment: every post with the same key gets the first answer.",
    auth: true,
    headers: idempotencyKeyHeader,
    body: cardPaymentRequest,
    success: { description: `'${PAYMENT_MESSAGES.paid}'`, data: PaymentResultSchema },
    errors: {
      400: idempotencyKeyBadRequest,
      402: "The card was refused: the gateway's message, e.g. 'Your card was declined.' or 'Your card has insufficient funds.' (recorded as 'Payment failed').",
      404: `'This plan does not exist.' or '${PAYMENT_MESSAGES.savedCardNotFound}'`,
      409: `'${PAYMENT_MESSAGES.alreadyCurrent}' (the plan of a subscription that still renews), 'You already have a subscription. Change your plan instead.' (subscription_exists: a recurring plan while one runs, or while another purchase runs), '${SUBSCRIPTION_MESSAGES.refunded}' (subscription_exists: another recurring plan completed first, this payment was refunded) or '${IDEMPOTENCY_MESSAGES.inProgress}'`,
      422: `Validation; '${PAYMENT_MESSAGES.emailMismatch}'; a coupon that cannot be used ('This coupon code is not valid.' under errors.fields.coupon, also when parallel payments took its last redemption); '${PAYMENT_MESSAGES.cardNotUsable}'; '${IDEMPOTENCY_MESSAGES.reused}'`,
      429: rateLimited("'Too many payment attempts. Please try again later.'"),
      502: `'${PAYMENT_MESSAGES.failed}': the card gateway failed or did not answer. Nothing is recorded as failed: if the payment went through, Stripe's webhook records it, and a retry with the same idempotency key is never a second charge.`,
    },
    async handler({ ctx, req, res, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      if (input.email !== auth.user.email) {
        throw new DomainError("email_mismatch", PAYMENT_MESSAGES.emailMismatch, { field: "email" });
      }
      const plan = await planOrError(ctx, input.planId);
      const returnUrl = portalReturnUrl(ctx, input.return_url);
      const { idempotency_key: _key, ...request } = input;
      const answer = await oncePerKey(
        ctx.db,
        `card:${auth.user.id}:${key}`,
        request,
        async () => {
          await limitPaymentAttempts(ctx, auth.user.id);
          try {
            const outcome = await payWithCard(ctx.payments, {
              user: auth.user,
              plan,
              paymentMethodId: input.paymentMethodId,
              saved: input.type === "saved-card",
              couponCode: input.coupon,
              key: `card-${auth.user.id}-${key}`,
              returnUrl,
            });
            if (outcome.status === "declined") return { ok: false, body: { code: "card_declined", message: outcome.message } satisfies StoredRefusal };
            if (outcome.status === "requires_action") {
              const data = { status: "requires_action" as const, ...authenticationData(outcome.authentication) };
              return { ok: true, body: { message: PAYMENT_MESSAGES.confirmWithBank, data } };
            }
            return {
              ok: true,
              body: { message: PAYMENT_MESSAGES.paid, data: { status: "paid", subscription: await subscriptionData(ctx, outcome.subscriptionId) } },
            };
          } catch (error) {
            // Refusals that are the request's fault are answers too (and replayed); failures are not.
            if (isRefusal(error)) return refusalAnswer(error);
            throw error;
          }
        },
        () => ctx.clock.now(),
      );
      const stored = answer.body as { message: string; data?: z.input<typeof PaymentResultSchema> };
      if (!answer.ok || !stored.data) throw replayedRefusal(answer.body);
      res.setHeader("Idempotency-Key", key);
      return { data: stored.data, message: stored.message };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/card/complete-authentication",
    operationId: "completeCardAuthentication",
    tags: ["Billing"],
    summary: "Finish a card payment after the bank's 3-D Secure challenge",
    description:
      "Reads the PaymentIntent from the gateway (never trusting the return URL's redirect_status) and finishes the attempt. Paid: recorded once (the webhook may record it too) and answered paid. Failed or abandoned (the challenge not completed): nothing is charged, the attempt is recorded 'Payment failed', the incomplete subscription is cancelled (or the PaymentIntent: it can never charge later), the coupon's hold is given back, and the answer is 402 with the failure message; a new attempt (a new idempotency key) may start at once. Posting it again answers the same.",
    auth: true,
    body: completeAuthenticationRequest,
    success: { description: `'${PAYMENT_MESSAGES.paid}', or pending while the payment is processing`, data: PaymentResultSchema },
    errors: {
      402: `authentication_failed: '${PAYMENT_MESSAGES.authenticationFailed}' (failed or abandoned), or the card's decline after the challenge ('Your card was declined.')`,
      404: `'${PAYMENT_MESSAGES.authenticationNotFound}' (unknown, or another account's)`,
      409: `'${SUBSCRIPTION_MESSAGES.refunded}' (subscription_exists: another recurring plan was bought meanwhile, so this one was cancelled and refunded at the gateway)`,
      502: `'${PAYMENT_MESSAGES.failed}': the card gateway did not answer (if the customer paid, the webhook records it)`,
    },
    async handler({ ctx, auth, body: input }) {
      const done = await finishAuthentication(ctx.payments, {
        user: auth.user,
        paymentIntentId: input.payment_intent,
        subscriptionId: input.subscription,
      });
      if (done.status === "declined") throw new DomainError("authentication_failed", done.message);
      if (done.status === "pending") return { data: { status: "pending" as const }, message: PAYMENT_MESSAGES.sessionUnpaid };
      return {
        data: { status: "paid" as const, subscription: await subscriptionData(ctx, done.subscriptionId) },
        message: PAYMENT_MESSAGES.paid,
      };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/checkout-session",
    operationId: "startCheckoutSession",
    tags: ["Billing"],
    summary: "Start the hosted payment page (Stripe Checkout) for a plan",
    description:
      "For browsers without JavaScript: answers the URL of Stripe's hosted payment page (the sandbox's in sandbox mode). It returns to return_path with session_id (paid) or checkout=cancelled. The same idempotency key gives the same session.",
    auth: true,
    headers: idempotencyKeyHeader,
    body: checkoutSessionRequest,
    success: {
      description: "The session",
      data: z.strictObject({ id: z.string(), url: z.string().meta({ format: "uri" }) }),
    },
    errors: {
      400: idempotencyKeyBadRequest,
      404: "'This plan does not exist.'",
      409: `'${PAYMENT_MESSAGES.alreadyCurrent}' or 'You already have a subscription. Change your plan instead.' (subscription_exists)`,
      422: "Validation; a coupon that cannot be used ('This coupon code is not valid.' under errors.fields.coupon, also when parallel payments took its last redemption); a return_path that is not a payment page",
      429: rateLimited("'Too many payment attempts. Please try again later.'"),
      502: `'${PAYMENT_MESSAGES.failed}': the card gateway failed or did not answer`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      if (!RETURN_PATH.test(input.return_path)) {
        const message = "The return path must be a payment page.";
        throw new DomainError("validation_failed", message, { field: "return_path" });
      }
      const plan = await planOrError(ctx, input.planId);
      await limitPaymentAttempts(ctx, auth.user.id);
      const session = await startCheckoutSession(ctx.payments, {
        user: auth.user,
        plan,
        couponCode: input.coupon,
        key: `checkout-${auth.user.id}-${key}`,
        returnPath: input.return_path,
      });
      return { data: session };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/checkout-session/complete",
    operationId: "completeCheckoutSession",
    tags: ["Billing"],
    summary: "Record a hosted payment the browser came back from",
    description:
      "Reads the Checkout Session from the gateway (never trusting the return URL alone) and records what it paid, once; the checkout.session.completed webhook does the same. pending when it is not paid (yet).",
    auth: true,
    body: completeSessionRequest,
    success: { description: `'${PAYMENT_MESSAGES.paid}' or pending`, data: PaymentResultSchema },
    errors: {
      404: `'${PAYMENT_MESSAGES.sessionNotFound}' (unknown, or another account's)`,
      409: `'${SUBSCRIPTION_MESSAGES.refunded}' (subscription_exists: another recurring plan was bought meanwhile, so this one was cancelled and refunded at the gateway)`,
      502: `'${PAYMENT_MESSAGES.failed}': the card gateway did not answer (if the customer paid, the webhook records it)`,
    },
    async handler({ ctx, auth, body: input }) {
      const done = await completeCheckoutSession(ctx.payments, input.sessionId, auth.user.id);
      if (!done) return { data: { status: "pending" as const }, message: PAYMENT_MESSAGES.sessionUnpaid };
      return {
        data: { status: "paid" as const, subscription: await subscriptionData(ctx, done.subscriptionId) },
        message: PAYMENT_MESSAGES.paid,
      };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/payment-methods",
    operationId: "paymentMethodList",
    tags: ["Billing"],
    summary: "The account's saved cards",
    description: "No request body. The default card first, then the newest.",
    auth: true,
    success: { description: "The saved cards", data: z.array(SavedCardSchema) },
    handler: async ({ ctx, auth }) => ({ data: await savedCardsOf(ctx, auth.user.id) }),
  }),

  route({
    method: "post",
    path: STRIPE_WEBHOOK_PATH,
    operationId: "stripeWebhook",
    tags: ["Billing"],
    summary: "Stripe's webhook",
    description:
      "Verified with the Stripe-Signature header on the raw body (STRIPE_WEBHOOK_SECRET). Each event is handled once, whatever the order: checkout.session.completed, checkout.session.expired (releases the session's coupon hold), invoice.paid, invoice.payment_failed, invoice.payment_action_required (a renewal that needs authentication: past due like a decline), customer.subscription.updated, customer.subscription.deleted, payment_intent.succeeded. The body is only a trigger: the object is re-read from Stripe, an object Stripe does not know acts on nothing, and a one-time payment is recorded only when its amount and currency are the plan's price less its coupon.",
    auth: false,
    headers: z.object({
      "Stripe-Signature": z.string().meta({
        description: "t=<unix time>,v1=<HMAC-SHA256 of 't.<raw body>' with STRIPE_WEBHOOK_SECRET> (Stripe's signature scheme).",
        examples: ["t=1700000000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"],
      }),
    }),
    rawBody: {
      required: true,
      description: "Stripe's Event object as Stripe sent it: the signature covers these exact bytes (read raw, before any parsing).",
      content: { "application/json": { schema: StripeEventSchema } },
    },
    success: { description: `'${WEBHOOK_MESSAGES.received}'`, data: z.null() },
    errors: {
      400: `'${WEBHOOK_MESSAGES.badSignature}' (no, a malformed or a wrong Stripe-Signature; a body that is not the signed one)`,
    },
    async handler({ ctx, req }) {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.from("");
      const signature = req.headers["stripe-signature"];
      await handleStripeWebhook(ctx.payments, raw, Array.isArray(signature) ? signature[0] : signature);
      return { data: null, message: WEBHOOK_MESSAGES.received };
    },
  }),
];
