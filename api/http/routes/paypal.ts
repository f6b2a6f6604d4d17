import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import type { ApiContext } from "../context";
import { DomainError } from "../../platform/errors";
import { tryAgainIn } from "../../platform/rate-limit";
import { clientAddressKey } from "../../platform/trust-proxy";
import { body, idField, optionalText, requiredText } from "../validation";
import { idempotencyKeyBadRequest, idempotencyKeyField, idempotencyKeyHeader, idempotencyKeyOf } from "../idempotency-key";
import {
  PAYPAL_MESSAGES,
  type PayPalDeps,
  cancelPayPalCheckout,
  completePayPalCheckout,
  handlePayPalWebhook,
  startPayPalCheckout,
} from "../../payments/paypal/payments";
import { PAYMENT_MESSAGES } from "../../payments/card-payments";
import { SUBSCRIPTION_MESSAGES } from "../../payments/one-subscription";
import { limitPaymentAttempts, planOrError, subscriptionData } from "./payments";
import { SubscriptionSchema } from "./subscription";

/** Webhook posts an address may have refused (their signature not PayPal's) per hour, before it gets 429 without a verification. */
export const REFUSED_WEBHOOKS_PER_HOUR = 60;

export const PAYPAL_WEBHOOK_PATH = "/api/payments/paypal/webhook";

/** The checkout pages PayPal may send the browser back to (like the hosted card checkout's). */
const RETURN_PATH = /^\/(subscription\/)?payment\/\d{1,15}(\?[^#\s]*)?$/;

/** While PayPal is off these routes are not registered: every one of them may answer 404. */
const OFF = "; 'Not found.' while PayPal is off (the routes are not registered)";

/** The PayPal gateway; these routes are registered only while it is on (api/http/app.ts), hence the 404. */
function paypalOf(ctx: ApiContext): PayPalDeps {
  if (!ctx.paypal) throw new DomainError("provider_off", "Not found.");
  return ctx.paypal;
}

const KIND = z.enum(["order", "subscription"]).meta({
  description: "order: a one-time PayPal order (the 5-year plan, and the 2-year plan, which PayPal cannot bill every 24 months); subscription: a PayPal subscription that renews.",
});

const checkoutRequest = body({
  planId: idField("plan id").meta({ description: "plans.id" }),
  coupon: optionalText("coupon", 64).meta({ description: "A coupon code (see /api/coupons/apply); it lowers the first payment." }),
  return_path: requiredText("return path", { max: 200 }).meta({
    description:
      "The checkout page PayPal sends the browser back to: /subscription/payment/{planId} or /payment/{planId} (query allowed). PayPal returns to it with paypal=return (and token, or subscription_id) or paypal=cancel.",
  }),
  idempotency_key: idempotencyKeyField(
    "A random key the page makes for this payment. Posting again with the same key answers the same PayPal order or subscription (never a second one).",
  ),
}).meta({ id: "PayPalCheckoutRequest" });

const returnRequest = body({
  token: optionalText("token", 64).meta({ description: "The PayPal order id (token of the return URL)." }),
  subscription_id: optionalText("subscription id", 64).meta({ description: "The PayPal subscription id (subscription_id of the return URL)." }),
}).meta({ id: "PayPalReturnRequest" });

const PayPalCheckoutSchema = z
  .strictObject({
    approve_url: z.string().meta({ format: "uri", description: "PayPal's approval page: send the browser there." }),
    paypal_id: z.string().meta({ description: "The PayPal order id (kind order) or subscription id (kind subscription)." }),
    kind: KIND,
  })
  .meta({ id: "PayPalCheckout" });

const PayPalResultSchema = z
  .strictObject({
    status: z.enum(["paid", "pending", "cancelled"]).meta({
      description:
        "paid: the plan is active; pending: PayPal has not charged yet (its webhook records the payment); cancelled: the checkout was cancelled, nothing was charged.",
    }),
    kind: KIND,
    subscription: SubscriptionSchema.optional().meta({ description: "paid: the plan's subscription." }),
  })
  .meta({ id: "PayPalResult" });

/** PayPal's webhook event, as far as this API reads it (PayPal sends more). */
const PayPalEventSchema = z
  .looseObject({
    id: z.string().meta({ examples: ["WH-2WR32451HC0233532-67976317FL4543714"] }),
    event_type: z.string().meta({ examples: ["PAYMENT.SALE.COMPLETED"] }),
    resource_type: z.string().optional(),
    create_time: z.string().optional(),
    resource: z.looseObject({}).meta({ description: "The event's resource (re-read from PayPal where it matters)." }),
  })
  .meta({ id: "PayPalEvent" });

function returnedId(input: { token?: string; subscription_id?: string }) {
  if (!input.token && !input.subscription_id) {
    throw new DomainError("validation_failed", "The token or subscription id field is required.", { field: "token" });
  }
  return { token: input.token, subscriptionId: input.subscription_id };
}

export const paypalRoutes = [
  route({
    method: "post",
    path: "/api/payments/paypal/checkout",
    operationId: "startPayPalCheckout",
    tags: ["Billing"],
    summary: "Start paying for a plan with PayPal",
    description:
      "Recurring plans become a PayPal subscription (a PayPal billing plan per plan, kept in step with its price; a coupon lowers the first payment; free months are a free cycle after it); the 5-year plan, and the 2-year plan (PayPal bills at most yearly), are one PayPal order that never renews. The browser goes to approve_url and PayPal sends it back to return_path with paypal=return or paypal=cancel, to be finished with /api/payments/paypal/complete or /api/payments/paypal/cancel. The same idempotency key answers the same order or subscription.",
    auth: true,
    headers: idempotencyKeyHeader,
    body: checkoutRequest,
    success: { description: "Where to approve the payment", data: PayPalCheckoutSchema },
    errors: {
      400: idempotencyKeyBadRequest,
      404: `'This plan does not exist.'${OFF}`,
      409: `'${PAYMENT_MESSAGES.alreadyCurrent}' or 'You already have a subscription. Change your plan instead.' (subscription_exists)`,
      422: "Validation; a coupon that cannot be used ('This coupon code is not valid.' under errors.fields.coupon); a return_path that is not a payment page",
      429: rateLimited("'Too many payment attempts. Please try again later.'"),
      502: `'${PAYPAL_MESSAGES.failed}' (PayPal failed or did not answer)`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const paypal = paypalOf(ctx);
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      if (!RETURN_PATH.test(input.return_path)) {
        throw new DomainError("validation_failed", "The return path must be a payment page.", { field: "return_path" });
      }
      const plan = await planOrError(ctx, input.planId);
      await limitPaymentAttempts(ctx, auth.user.id);
      const started = await startPayPalCheckout(paypal, {
        user: auth.user,
        plan,
        couponCode: input.coupon,
        returnPath: input.return_path,
        key,
      });
      return { data: started };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/paypal/complete",
    operationId: "completePayPalCheckout",
    tags: ["Billing"],
    summary: "Finish a PayPal payment the browser came back from",
    description:
      "Order (token): captured once (PayPal-Request-Id is our checkout's id, so a second return or a double submit never charges twice) and recorded paid. Subscription (subscription_id): read from PayPal; ACTIVE with its first payment made: recorded paid; not charged yet: pending (the webhook records it). Never trusts the return URL alone.",
    auth: true,
    body: returnRequest,
    success: { description: `'${PAYPAL_MESSAGES.paid}', pending or cancelled`, data: PayPalResultSchema },
    errors: {
      402: "paypal_declined: PayPal declined the payment (its reason as the message); nothing was charged",
      404: `'${PAYPAL_MESSAGES.notFound}' (unknown, or another account's)${OFF}`,
      409: `subscription_exists: another recurring plan was bought meanwhile: '${SUBSCRIPTION_MESSAGES.exists}' (nothing was charged) or '${SUBSCRIPTION_MESSAGES.refunded}' (the PayPal subscription was cancelled and its payment refunded)`,
      502: `'${PAYPAL_MESSAGES.failed}' (PayPal did not answer; if it charged, the webhook records it)`,
    },
    async handler({ ctx, auth, body: input }) {
      const done = await completePayPalCheckout(paypalOf(ctx), { user: auth.user, ...returnedId(input) });
      if (done.status === "paid" && done.subscriptionId !== undefined) {
        return {
          data: { status: "paid" as const, kind: done.kind, subscription: await subscriptionData(ctx, done.subscriptionId) },
          message: PAYPAL_MESSAGES.paid,
        };
      }
      const message = done.status === "cancelled" ? PAYPAL_MESSAGES.cancelled : PAYPAL_MESSAGES.pending;
      return { data: { status: done.status, kind: done.kind }, message };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/paypal/cancel",
    operationId: "cancelPayPalCheckout",
    tags: ["Billing"],
    summary: "The customer cancelled at PayPal",
    description:
      "Marks our checkout cancelled and gives back its coupon's hold; nothing is charged. A checkout that was already paid is not touched (status paid is never undone here). Posting it again answers the same.",
    auth: true,
    body: returnRequest,
    success: {
      description: `'${PAYPAL_MESSAGES.cancelled}'`,
      data: z.strictObject({ status: z.literal("cancelled"), kind: KIND }).meta({ id: "PayPalCancelled" }),
    },
    errors: {
      404: `'${PAYPAL_MESSAGES.notFound}' (unknown, or another account's)${OFF}`,
      409: `'${PAYPAL_MESSAGES.alreadyPaid}' (the checkout was paid: nothing is undone)`,
    },
    async handler({ ctx, auth, body: input }) {
      const done = await cancelPayPalCheckout(paypalOf(ctx), { user: auth.user, ...returnedId(input) });
      return { data: done, message: PAYPAL_MESSAGES.cancelled };
    },
  }),

  route({
    method: "post",
    path: PAYPAL_WEBHOOK_PATH,
    operationId: "paypalWebhook",
    tags: ["Billing"],
    summary: "PayPal's webhook",
    description:
      "Verified through PayPal's verify-webhook-signature with PAYPAL_WEBHOOK_ID and the PAYPAL-* transmission headers, on the exact body PayPal sent. Each event is handled once (by its id): CHECKOUT.ORDER.APPROVED, PAYMENT.CAPTURE.COMPLETED, BILLING.SUBSCRIPTION.ACTIVATED, BILLING.SUBSCRIPTION.CANCELLED, BILLING.SUBSCRIPTION.SUSPENDED, BILLING.SUBSCRIPTION.PAYMENT.FAILED, PAYMENT.SALE.COMPLETED. The resource is re-read from PayPal where money is recorded.",
    auth: false,
    headers: z.object({
      "PAYPAL-TRANSMISSION-ID": z.string(),
      "PAYPAL-TRANSMISSION-TIME": z.string(),
      "PAYPAL-TRANSMISSION-SIG": z.string(),
      "PAYPAL-CERT-URL": z.string(),
      "PAYPAL-AUTH-ALGO": z.string().meta({ examples: ["SHA256withRSA"] }),
    }),
    rawBody: {
      required: true,
      description: "PayPal's webhook event as PayPal sent it (read raw: the signature covers these exact bytes).",
      content: { "application/json": { schema: PayPalEventSchema } },
    },
    success: { description: `'${PAYPAL_MESSAGES.received}'`, data: z.null() },
    errors: {
      400: `'${PAYPAL_MESSAGES.badSignature}' (missing or wrong transmission headers, a body that is not the signed one, or not JSON)`,
      404: OFF.slice(2),
      429: rateLimited(`'Too many refused webhooks from this address. Please try again in N minutes.' (${REFUSED_WEBHOOKS_PER_HOUR} refused posts an hour per address; verified ones do not count)`),
      502: `'${PAYPAL_MESSAGES.failed}' (PayPal could not verify the signature now; PayPal retries)`,
    },
    async handler({ ctx, req }) {
      const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
      // Each post costs a call to PayPal's verify-webhook-signature: an address whose posts PayPal keeps
      // refusing is stopped before it can spend our PayPal API allowance. A post holds a slot while it is
      // verified (so a parallel burst counts in full) and gives it back unless it was refused: PayPal's own
      // deliveries, always verified, are never limited.
      const key = `paypal-webhook-refused:ip:${clientAddressKey(req.ip)}`;
      const slot = await ctx.limiter.reserve(key, REFUSED_WEBHOOKS_PER_HOUR, 3600);
      if (!slot) {
        const wait = (await ctx.limiter.blockedFor([[key, REFUSED_WEBHOOKS_PER_HOUR]])) ?? 3600;
        throw new DomainError("rate_limited", `Too many refused webhooks from this address. ${tryAgainIn(wait)}`, { headers: { "Retry-After": String(wait) } });
      }
      let refused = false;
      try {
        await handlePayPalWebhook(paypalOf(ctx), raw, headers);
      } catch (error) {
        refused = error instanceof DomainError && error.code === "signature_invalid";
        throw error;
      } finally {
        if (!refused) await ctx.limiter.release([slot]);
      }
      return { data: null, message: PAYPAL_MESSAGES.received };
    },
  }),
];
