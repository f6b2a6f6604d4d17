import { randomUUID } from "node:crypto";
import type { TaxRates } from "../../platform/tax-rates";
import { type TaxTreatment, accountTaxTreatment, recordedTaxOfRow, splitTotal, taxColumnsOf, taxedAmount, treatmentOfRecorded } from "../tax";
import type { Clock } from "../../platform/clock";
import type { Database } from "../../platform/db";
import { isUniqueViolation } from "../../platform/db";
import type { PayPalCheckout, Plan, Subscription, User } from "../../platform/db/schema";
import { DomainError, isRefusal } from "../../platform/errors";
import type { Logger } from "../../platform/logger";
import { endAbandonedAttempts } from "../card-payments";
import { type PaidHook, tellPaid } from "../paid";
import { COUPON_MESSAGES, checkCoupon, releaseCouponHold, reserveCoupon } from "../coupons";
import { findPlan } from "../plans";
import { handleWebhookOnce } from "../webhook-events";
import type { RenewalEvents } from "../renewal-events";
import { addMonthsUtc, recordFailedPayment, recordPaidInvoice } from "../records";
import { renewalOf } from "../renewal-rule";
import type { StripeSetup } from "../stripe/client";
import { SUBSCRIPTION_MESSAGES, currentRecurringSubscription, isSecondSubscription, refundedRefusal } from "../one-subscription";
import { endRecurringRenewal, withPurchaseClaim } from "../subscription-guard";
import {
  type PayPalClient,
  PayPalApiError,
  type PayPalSale,
  type PlanCycle,
  captureOrder,
  createOrder,
  createPlan,
  createProduct,
  createSubscription,
  getOrder,
  getSubscription,
  isPayPalFailure,
  listSubscriptionTransactions,
  activateSubscription,
  cancelSubscription,
  refundCapture,
  refundSale,
  suspendSubscription,
  updatePlanPricing,
  verifyWebhookSignature,
} from "./client";

/*
 * PayPal as a third gateway beside Stripe and BitPay (issue 23, docs/decisions/039).
 *
 * A checkout is ours first (paypal_checkouts: its id is the orders' custom_id and the capture's
 * PayPal-Request-Id), then PayPal's: an order for the plans PayPal cannot bill as a subscription
 * (the 5-year plan, and the 2-year plan: PayPal bills at most every 12 months, so it is one 2-year
 * payment that does not renew), a subscription on the plan's PayPal billing plan for the others. The
 * browser approves at PayPal and comes back; /complete (or PayPal's webhook, whichever comes first)
 * captures the order or records the subscription's first sale. Every record is keyed by PayPal's
 * capture or sale id (records.ts), so the page, a second return and the webhooks record it once.
 */

export const PAYPAL_MESSAGES = {
  paid: "Payment successful.",
  cancelled: "The PayPal payment was cancelled.",
  pending: "The payment was not completed.",
  notFound: "This PayPal payment was not found.",
  failed: "PayPal could not be reached. Please try again.",
  declined: "PayPal declined the payment. Please choose another way to pay in PayPal, or another payment method.",
  alreadyPaid: "This PayPal payment is already complete.",
  received: "Webhook received.",
  badSignature: "The webhook's signature is not valid.",
} as const;

export type PayPalKind = "order" | "subscription";

/** Billing's callbacks for renewals (renewal-events.ts), the same for every gateway. */
export type PayPalRenewalEvents = RenewalEvents;

/** What the PayPal gateway needs (createPayPalPayments). */
export interface PayPalDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
  mode: "live" | "sandbox";
  /** For PayPal's JavaScript buttons (live only). */
  clientId: string;
  /** The webhook whose signatures PayPal verifies (PAYPAL_WEBHOOK_ID, or the stand-in's). */
  webhookId: string;
  client: PayPalClient;
  /** The merchant's name on PayPal's pages. */
  brandName: string;
  onPaid?: PaidHook;
  renewals?: RenewalEvents;
  /** The card gateway: a paid 5-year plan turns off a card plan's auto-renewal there (decision 028). */
  gateway?: StripeSetup | null;
  /** The tax table (config): a checkout charges net + VAT by the account's billing details (tax.ts). */
  taxRates: TaxRates;
}

/** PayPal's deps, built whole by the API (api/http/app.ts) with the receipts and the rules of failed renewals they report to. */
export function createPayPalPayments(deps: PayPalDeps & Required<Pick<PayPalDeps, "renewals" | "onPaid" | "gateway">>): PayPalDeps {
  return { ...deps };
}

/** How long a checkout holds its coupon and its purchase claim: PayPal's approval links live 3 hours. */
const CHECKOUT_HOLD_MS = 3 * 3600_000;

/**
 * Whether PayPal bills `plan` as a subscription: the one renewal rule (terms.ts), which the checkout's
 * quote says too. A plan that does not renew with PayPal is one order.
 */
export function billedAsSubscription(plan: Plan): boolean {
  return renewalOf(plan, "paypal").renews;
}

const holdKey = (checkoutId: string) => `coupon:paypal:${checkoutId}`;
/** The purchase claim of a checkout: from the page's key, so a parallel double submit shares it (and gets the same checkout). */
const claimKey = (row: Pick<PayPalCheckout, "idempotency_key">) => `paypal:${row.idempotency_key}`;

function gatewayFailed(deps: PayPalDeps, what: string, error: unknown): DomainError {
  deps.logger.error(`PayPal ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  return new DomainError("gateway_failed", PAYPAL_MESSAGES.failed);
}

function withQuery(url: string, query: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}${query}`;
}

// ---------------------------------------------------------------- billing plans

/** The cycles of a plan's PayPal billing plan: the first term (its price a coupon may lower), the free months, then the regular term. */
function cyclesOf(plan: Plan): PlanCycle[] {
  const price = plan.discounted_price_cents;
  return [
    { tenure: "TRIAL", months: plan.duration_months, totalCycles: 1, priceCents: price },
    ...(plan.extra_months > 0 ? [{ tenure: "TRIAL" as const, months: plan.extra_months, totalCycles: 1, priceCents: null }] : []),
    { tenure: "REGULAR", months: plan.duration_months, totalCycles: 0, priceCents: price },
  ];
}

/**
 * What this subscription's cycles charge when it is not the billing plan's price: the first cycle the
 * checkout's amount (a coupon, VAT), the regular cycle the plan's price with VAT at the same rate.
 */
function cyclePricesOf(plan: Plan, row: PayPalCheckout): { sequence: number; cents: number }[] {
  const regular = taxedAmount(treatmentOfRecorded(recordedTaxOfRow(row)), plan.discounted_price_cents).totalCents;
  const cycles = cyclesOf(plan);
  const prices: { sequence: number; cents: number }[] = [];
  if (row.amount_cents !== plan.discounted_price_cents) prices.push({ sequence: 1, cents: row.amount_cents });
  if (regular !== plan.discounted_price_cents) prices.push({ sequence: cycles.findIndex((c) => c.tenure === "REGULAR") + 1, cents: regular });
  return prices;
}

/** The tax treatment a PayPal subscription bills at: its checkout's (every sale is split at it, recordSaleOnce). */
export async function payPalSubscriptionTreatment(deps: Pick<PayPalDeps, "db">, paypalSubId: string): Promise<TaxTreatment> {
  const checkout = await deps.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", paypalSubId).executeTakeFirst();
  return checkout ? treatmentOfRecorded(recordedTaxOfRow(checkout)) : { country: null, rateBasisPoints: null, reverseCharge: false };
}

/**
 * A revise's overrides of the new plan's paid cycles (its first term and its regular term), VAT included at
 * the subscription's rate, so the sales after a change charge net + VAT as the first did (issue 35).
 */
export function revisedCyclePricesOf(plan: Plan, treatment: TaxTreatment): { sequence: number; cents: number }[] {
  const taxed = taxedAmount(treatment, plan.discounted_price_cents).totalCents;
  if (taxed === plan.discounted_price_cents) return [];
  return cyclesOf(plan).flatMap((cycle, index) => (cycle.priceCents === null ? [] : [{ sequence: index + 1, cents: taxed }]));
}

/** The plan's PayPal billing plan, made on first use and put in step with the catalog's price. */
export async function ensureBillingPlan(deps: PayPalDeps, plan: Plan): Promise<string> {
  const now = deps.clock.now().toISOString();
  const row = await deps.db.selectFrom("paypal_plans").selectAll().where("plan_id", "=", plan.id).executeTakeFirst();
  const price = plan.discounted_price_cents;
  if (row) {
    if (row.price_cents !== price) {
      // The price changed in the catalog: PayPal's plan follows (its paid cycles), for new and running subscriptions alike.
      const paid = cyclesOf(plan).flatMap((cycle, index) => (cycle.priceCents === null ? [] : [{ sequence: index + 1, cents: cycle.priceCents }]));
      await updatePlanPricing(deps.client, row.paypal_plan_id, paid);
      await deps.db.updateTable("paypal_plans").set({ price_cents: price, updated_at: now }).where("plan_id", "=", plan.id).execute();
    }
    return row.paypal_plan_id;
  }
  const other = await deps.db.selectFrom("paypal_plans").select("paypal_product_id").executeTakeFirst();
  const productId = other?.paypal_product_id ?? (await createProduct(deps.client, { name: `${deps.brandName} subscription`, requestId: "vpn-product" }));
  const paypalPlanId = await createPlan(deps.client, {
    productId,
    name: `${deps.brandName} ${plan.title}`,
    description: plan.description,
    cycles: cyclesOf(plan),
    requestId: `vpn-plan-${plan.id}-${price}`,
  });
  await deps.db
    .insertInto("paypal_plans")
    .values({ plan_id: plan.id, paypal_product_id: productId, paypal_plan_id: paypalPlanId, price_cents: price, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column("plan_id").doNothing())
    .execute();
  const stored = await deps.db.selectFrom("paypal_plans").select("paypal_plan_id").where("plan_id", "=", plan.id).executeTakeFirstOrThrow();
  return stored.paypal_plan_id;
}

// ---------------------------------------------------------------- checkout

export interface StartPayPalCheckout {
  user: User;
  plan: Plan;
  couponCode?: string;
  /** The checkout page (a path of the portal) PayPal returns to. */
  returnPath: string;
  /** The page's idempotency key. */
  key: string;
}

export interface StartedPayPalCheckout {
  approve_url: string;
  paypal_id: string;
  kind: PayPalKind;
}

/**
 * Opens a PayPal order or subscription for the plan and answers where the buyer approves it. The same
 * key answers the same checkout; a recurring plan is refused while another recurring one runs (or is
 * being bought), like a card checkout (decision 028); the coupon's redemption is held meanwhile.
 */
export async function startPayPalCheckout(deps: PayPalDeps, input: StartPayPalCheckout): Promise<StartedPayPalCheckout> {
  const { user, plan } = input;
  const idempotencyKey = `${user.id}:${input.key}`;
  const existing = await deps.db.selectFrom("paypal_checkouts").selectAll().where("idempotency_key", "=", idempotencyKey).executeTakeFirst();
  if (existing) {
    if (Number(existing.plan_id) !== plan.id || (existing.coupon_code ?? "") !== (input.couponCode?.trim().toUpperCase() ?? "")) {
      throw new DomainError("idempotency_key_reused", "This payment was already started with other details. Please reload the page and try again.");
    }
    if (existing.approve_url && existing.paypal_id) return { approve_url: existing.approve_url, paypal_id: existing.paypal_id, kind: existing.kind };
    if (existing.status !== "created") throw new DomainError("idempotency_key_reused", "Please reload the page and try again.");
    return openAtPayPal(deps, existing, plan, input.returnPath);
  }
  const kind: PayPalKind = billedAsSubscription(plan) ? "subscription" : "order";
  const checkoutId = randomUUID();
  const row = await withPurchaseClaim(
    // The account's other PayPal checkouts still waiting for approval end (subscription-guard.ts).
    { ...deps, paypal: deps.client },
    // Held while the buyer is at PayPal (a card attempt may still take it over, as after a 3-D Secure challenge).
    { userId: user.id, plan, key: claimKey({ idempotency_key: idempotencyKey }), keep: () => true },
    async () => {
      if (kind === "subscription" || plan.billing_type === "recurring") await endCardAttempts(deps, user);
      const now = deps.clock.now();
      let amount = plan.discounted_price_cents;
      let coupon: { id: number; code: string } | null = null;
      if (input.couponCode) {
        const check = await checkCoupon(deps.db, input.couponCode, plan, now);
        if (!check.ok) throw new DomainError("coupon_invalid", check.message, { field: "coupon" });
        amount = check.totalCents;
        coupon = { id: Number(check.coupon.id), code: check.coupon.code };
        const held = await reserveCoupon(deps.db, {
          couponId: coupon.id,
          key: holdKey(checkoutId),
          userId: user.id,
          now,
          expiresAt: new Date(now.getTime() + CHECKOUT_HOLD_MS),
        });
        if (!held) throw new DomainError("coupon_invalid", COUPON_MESSAGES.invalid, { field: "coupon" });
      }
      const at = now.toISOString();
      // Taxed by the billing details as they are now; the subscription's renewals keep this rate (cyclePricesOf).
      const taxed = taxedAmount(await accountTaxTreatment(deps.db, deps.taxRates, user.id), amount);
      try {
        return await deps.db
          .insertInto("paypal_checkouts")
          .values({
            checkout_id: checkoutId,
            user_id: user.id,
            plan_id: plan.id,
            kind,
            idempotency_key: idempotencyKey,
            paypal_id: null,
            approve_url: null,
            amount_cents: taxed.totalCents,
            ...taxColumnsOf(taxed),
            coupon_id: coupon?.id ?? null,
            coupon_code: coupon?.code ?? null,
            coupon_hold_key: coupon ? holdKey(checkoutId) : null,
            status: "created",
            subscription_id: null,
            gateway_ref: null,
            failure_message: null,
            created_at: at,
            updated_at: at,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      } catch (error) {
        // A double submit: the other request made it.
        await releaseCouponHold(deps.db, coupon ? holdKey(checkoutId) : null, now);
        if (!isUniqueViolation(error)) throw error;
        const other = await deps.db.selectFrom("paypal_checkouts").selectAll().where("idempotency_key", "=", idempotencyKey).executeTakeFirstOrThrow();
        return other;
      }
    },
  );
  if (row.checkout_id !== checkoutId && row.approve_url && row.paypal_id) return { approve_url: row.approve_url, paypal_id: row.paypal_id, kind: row.kind };
  return openAtPayPal(deps, row, plan, input.returnPath);
}

/**
 * This checkout is the newest attempt: the account's card attempts that could still make a subscription
 * end, as a new card attempt ends them (card-payments.ts): open hosted pages expire, a 3-D Secure
 * challenge never answered is cancelled with its subscription. Stripe not answering leaves them: the
 * rule at completion (one-subscription.ts) refuses whichever comes second.
 */
async function endCardAttempts(deps: PayPalDeps, user: User): Promise<void> {
  if (!deps.gateway || !user.stripe_customer_id) return;
  try {
    await endAbandonedAttempts({ ...deps, gateway: deps.gateway }, user.stripe_customer_id, "");
  } catch (error) {
    deps.logger.warn(`Could not end the card attempts of user ${user.id}: ${String(error)}`);
  }
}

async function openAtPayPal(deps: PayPalDeps, row: PayPalCheckout, plan: Plan, returnPath: string): Promise<StartedPayPalCheckout> {
  const back = `${deps.publicUrl}${returnPath}`;
  const returnUrl = withQuery(back, "paypal=return");
  const cancelUrl = withQuery(back, "paypal=cancel");
  let paypalId: string;
  let approveUrl: string | null;
  try {
    if (row.kind === "order") {
      const order = await createOrder(deps.client, {
        checkoutId: row.checkout_id,
        amountCents: row.amount_cents,
        description: `${deps.brandName} ${plan.title}`,
        returnUrl,
        cancelUrl,
        brandName: deps.brandName,
      });
      paypalId = order.id;
      approveUrl = order.approveUrl;
    } else {
      const planId = await ensureBillingPlan(deps, plan);
      const sub = await createSubscription(deps.client, {
        checkoutId: row.checkout_id,
        planId,
        returnUrl,
        cancelUrl,
        brandName: deps.brandName,
        cyclePrices: cyclePricesOf(plan, row),
      });
      paypalId = sub.id;
      approveUrl = sub.approveUrl;
    }
  } catch (error) {
    if (!isPayPalFailure(error)) {
      // Refused: nothing exists at PayPal that could pay with the hold.
      await closeCheckout(deps, row, "cancelled", null);
    }
    throw gatewayFailed(deps, `checkout ${row.checkout_id}`, error);
  }
  if (!approveUrl || !paypalId) throw gatewayFailed(deps, `checkout ${row.checkout_id}`, new Error("no approval link"));
  await deps.db
    .updateTable("paypal_checkouts")
    .set({ paypal_id: paypalId, approve_url: approveUrl, updated_at: deps.clock.now().toISOString() })
    .where("id", "=", row.id)
    .execute();
  return { approve_url: approveUrl, paypal_id: paypalId, kind: row.kind };
}

/** Ends a checkout that did not pay: its coupon hold and purchase claim are given back. */
async function closeCheckout(deps: PayPalDeps, row: PayPalCheckout, status: "cancelled" | "declined", message: string | null): Promise<void> {
  const now = deps.clock.now();
  await deps.db
    .updateTable("paypal_checkouts")
    .set({ status, failure_message: message, updated_at: now.toISOString() })
    .where("id", "=", row.id)
    .where("status", "=", "created")
    .execute();
  await releaseCouponHold(deps.db, row.coupon_hold_key, now);
  await releaseClaim(deps, row);
}

/** Ends a checkout for a second recurring plan (one-subscription.ts): nothing of it is kept. */
async function refuseCheckout(deps: PayPalDeps, row: PayPalCheckout, message: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db
    .updateTable("paypal_checkouts")
    .set({ status: "refused", failure_message: message, updated_at: now.toISOString() })
    .where("id", "=", row.id)
    .where("status", "in", ["created", "cancelled"])
    .execute();
  await releaseCouponHold(deps.db, row.coupon_hold_key, now);
  await releaseClaim(deps, row);
}

/**
 * A PayPal subscription we do not keep (a second recurring plan, or a checkout cancelled or replaced
 * that the buyer approved anyway: approving charges at once): cancelled at PayPal, so it never
 * renews, and each payment it took refunded (request id from the sale: one refund however often).
 */
async function giveBackSubscription(deps: PayPalDeps, row: PayPalCheckout): Promise<void> {
  const paypalId = row.paypal_id;
  if (row.kind !== "subscription" || !paypalId) return;
  const sub = await getSubscription(deps.client, paypalId);
  if (sub.status === "ACTIVE" || sub.status === "SUSPENDED") {
    try {
      await cancelSubscription(deps.client, paypalId, "Not kept: the account has another subscription, or the checkout was replaced.");
    } catch (error) {
      // Already ended at PayPal (422): what we want.
      if (!(error instanceof PayPalApiError) || isPayPalFailure(error) || error.status !== 422) throw error;
    }
  }
  for (const sale of await salesOf(deps, paypalId, new Date(row.created_at))) {
    await refundSale(deps.client, sale.id, `refund-unkept-${sale.id}`);
    deps.logger.warn(`PayPal sale ${sale.id} of ${paypalId} (checkout ${row.checkout_id}, ${row.status}) was not kept: refunded.`);
  }
}

async function releaseClaim(deps: PayPalDeps, row: PayPalCheckout): Promise<void> {
  const key = claimKey(row);
  await deps.db
    .deleteFrom("subscription_claims")
    .where("user_id", "=", row.user_id)
    .where("claim_key", "in", [key, `authenticating:${key}`])
    .execute();
}

async function checkoutOf(deps: PayPalDeps, user: User, ids: { token?: string; subscriptionId?: string }): Promise<PayPalCheckout> {
  const paypalId = ids.subscriptionId ?? ids.token;
  const mine = () => deps.db.selectFrom("paypal_checkouts").selectAll().where("user_id", "=", user.id);
  let row = paypalId ? await mine().where("paypal_id", "=", paypalId).executeTakeFirst() : undefined;
  // A subscription's return may name only its billing agreement token (BA-...), which its approval link carries.
  if (!row && !ids.subscriptionId && ids.token && /^BA-[A-Za-z0-9]+$/.test(ids.token)) {
    row = await mine().where("kind", "=", "subscription").where("approve_url", "like", `%ba_token=${ids.token}`).executeTakeFirst();
  }
  if (!row) throw new DomainError("not_found", PAYPAL_MESSAGES.notFound);
  return row;
}

export interface PayPalCompletion {
  status: "paid" | "pending" | "cancelled";
  kind: PayPalKind;
  /** Ours, once paid. */
  subscriptionId?: number;
}

/**
 * The buyer came back from PayPal: the order is captured (once: PayPal-Request-Id is our checkout's
 * id) or the subscription's first payment recorded. Never trusts the return URL: PayPal is asked.
 */
export async function completePayPalCheckout(deps: PayPalDeps, input: { user: User; token?: string; subscriptionId?: string }): Promise<PayPalCompletion> {
  const row = await checkoutOf(deps, input.user, input);
  return settleCheckout(deps, row);
}

async function settleCheckout(deps: PayPalDeps, row: PayPalCheckout): Promise<PayPalCompletion> {
  const kind = row.kind;
  if (row.status === "paid") return { status: "paid", kind, subscriptionId: Number(row.subscription_id) };
  if (row.status === "declined") throw new DomainError("paypal_declined", row.failure_message ?? PAYPAL_MESSAGES.declined);
  try {
    if (row.status === "cancelled" || row.status === "refused") {
      // Approved at PayPal all the same (an old tab): a subscription charged at approval is given back.
      await giveBackSubscription(deps, row);
      if (row.status === "refused") throw new DomainError("subscription_exists", row.failure_message ?? SUBSCRIPTION_MESSAGES.exists, { field: "planId" });
      return { status: "cancelled", kind };
    }
    if (!row.paypal_id) return { status: "pending", kind };
    return kind === "order" ? await settleOrder(deps, row) : await settleSubscription(deps, row);
  } catch (error) {
    if (isRefusal(error)) throw error;
    throw gatewayFailed(deps, `completion of ${row.paypal_id}`, error);
  }
}

async function settleOrder(deps: PayPalDeps, row: PayPalCheckout): Promise<PayPalCompletion> {
  const paypalId = row.paypal_id!;
  let order: Awaited<ReturnType<typeof captureOrder>>;
  try {
    const current = await getOrder(deps.client, paypalId);
    if (current.status === "COMPLETED") order = current;
    else if (current.status !== "APPROVED") return { status: "pending", kind: "order" };
    else {
      // A recurring plan (the 2-year one) while another recurring plan runs: refused before anything is charged.
      const plan = await findPlan(deps.db, row.plan_id);
      if (plan?.billing_type === "recurring" && (await currentRecurringSubscription(deps.db, row.user_id, deps.clock.now()))) {
        await refuseCheckout(deps, row, SUBSCRIPTION_MESSAGES.exists);
        throw new DomainError("subscription_exists", SUBSCRIPTION_MESSAGES.exists, { field: "planId" });
      }
      order = await captureOrder(deps.client, paypalId, row.checkout_id);
    }
  } catch (error) {
    if (!(error instanceof PayPalApiError) || isPayPalFailure(error)) throw error;
    if (error.issue === "ORDER_ALREADY_CAPTURED") order = await getOrder(deps.client, paypalId);
    else if (error.issue === "ORDER_NOT_APPROVED") return { status: "pending", kind: "order" };
    else {
      // INSTRUMENT_DECLINED and the like: nothing was charged; recorded as a failed payment.
      const message = error.message || PAYPAL_MESSAGES.declined;
      await recordFailedPayment(deps.db, {
        userId: row.user_id,
        planId: row.plan_id,
        amountCents: row.amount_cents,
        gatewayRef: `paypal-declined:${row.checkout_id}`,
        walletPaymentType: "paypal",
        message,
        now: deps.clock.now(),
        gateway: "paypal",
      });
      await closeCheckout(deps, row, "declined", message);
      throw new DomainError("paypal_declined", message);
    }
  }
  const capture = order.capture;
  if (capture?.status !== "COMPLETED") return { status: "pending", kind: "order" };
  const subscription = await recordOrderPaid(deps, row, capture);
  return { status: "paid", kind: "order", subscriptionId: Number(subscription.id) };
}

async function recordOrderPaid(deps: PayPalDeps, row: PayPalCheckout, capture: { id: string; amountCents: number }): Promise<Subscription> {
  const plan = await findPlan(deps.db, row.plan_id);
  if (!plan) throw new Error(`PayPal checkout ${row.checkout_id} names no plan`);
  const now = deps.clock.now();
  let subscription: Subscription;
  try {
    subscription = await recordOrderCapture(deps, row, plan, capture, now);
  } catch (error) {
    if (!isSecondSubscription(error)) throw error;
    // Captured in a race with another recurring plan's completion: the capture is refunded.
    await refundCapture(deps.client, capture.id, `refund-unkept-${capture.id}`);
    await refuseCheckout(deps, row, SUBSCRIPTION_MESSAGES.refunded);
    throw refundedRefusal();
  }
  await markPaid(deps, row, subscription, capture.id);
  if (plan.billing_type === "single") await endOtherRenewals(deps, row.user_id, Number(subscription.id));
  await tellPaid(deps, { userId: row.user_id, gatewayRef: capture.id, periodStart: now, periodEnd: new Date(subscription.sub_exp_date) });
  return subscription;
}

function recordOrderCapture(deps: PayPalDeps, row: PayPalCheckout, plan: Plan, capture: { id: string; amountCents: number }, now: Date): Promise<Subscription> {
  return recordPaidInvoice(deps.db, {
    userId: row.user_id,
    plan,
    gatewayRef: capture.id,
    amountCents: capture.amountCents,
    tax: splitTotal(capture.amountCents, recordedTaxOfRow(row)),
    gateway: "paypal",
    walletPaymentType: "paypal",
    stripeSubId: null,
    paypalSubId: null,
    periodStart: now,
    periodEnd: addMonthsUtc(now, plan.duration_months),
    first: true,
    couponId: row.coupon_id,
    couponCode: row.coupon_code,
    couponReservation: row.coupon_hold_key,
    hostedInvoiceUrl: null,
    gatewayInvoiceId: row.paypal_id,
    // A recurring plan paid as one order (the 2-year plan) does not renew: PayPal cannot bill it again.
    notRenewing: plan.billing_type === "recurring" && !renewalOf(plan, "paypal").renews,
    now,
  });
}

async function markPaid(deps: PayPalDeps, row: PayPalCheckout, subscription: Subscription, ref: string): Promise<void> {
  await deps.db
    .updateTable("paypal_checkouts")
    .set({ status: "paid", subscription_id: Number(subscription.id), gateway_ref: ref, updated_at: deps.clock.now().toISOString() })
    .where("id", "=", row.id)
    .execute();
  await releaseClaim(deps, row);
}

/** The 5-year plan bought: the account's renewing plans stop renewing (decision 028), at Stripe and at PayPal. */
async function endOtherRenewals(deps: PayPalDeps, userId: number, keep: number): Promise<void> {
  await endRecurringRenewal({ db: deps.db, clock: deps.clock, gateway: deps.gateway ?? null, paypal: deps.client, logger: deps.logger }, userId, keep);
}

const DAY_MS = 86_400_000;

/** The subscription's completed sales around now, oldest first. */
async function salesOf(deps: PayPalDeps, paypalSubId: string, since: Date): Promise<PayPalSale[]> {
  const sales = await listSubscriptionTransactions(deps.client, paypalSubId, new Date(since.getTime() - DAY_MS), new Date(deps.clock.now().getTime() + DAY_MS));
  return sales.filter((sale) => sale.status === "COMPLETED").sort((a, b) => a.time.localeCompare(b.time));
}

async function settleSubscription(deps: PayPalDeps, row: PayPalCheckout): Promise<PayPalCompletion> {
  const paypalId = row.paypal_id!;
  const sub = await getSubscription(deps.client, paypalId);
  if (sub.status === "ACTIVE") {
    const [first] = await salesOf(deps, paypalId, new Date(row.created_at));
    if (first) {
      const subscription = await recordSale(deps, paypalId, first);
      // Replaced meanwhile by a newer checkout: given back (recordSale).
      if (!subscription) return { status: "cancelled", kind: "subscription" };
      return { status: "paid", kind: "subscription", subscriptionId: Number(subscription.id) };
    }
    if (sub.failedPaymentsCount === 0) return { status: "pending", kind: "subscription" };
  } else if (["APPROVAL_PENDING", "APPROVED"].includes(sub.status)) {
    return { status: "pending", kind: "subscription" };
  }
  // Its first payment failed (or PayPal ended it before any): nothing to keep at PayPal.
  const message = PAYPAL_MESSAGES.declined;
  try {
    if (sub.status !== "CANCELLED" && sub.status !== "EXPIRED") await cancelSubscription(deps.client, paypalId, "The first payment failed.");
  } catch (error) {
    deps.logger.warn(`Could not cancel ${paypalId}: ${String(error)}`);
  }
  await recordFailedPayment(deps.db, {
    userId: row.user_id,
    planId: row.plan_id,
    amountCents: row.amount_cents,
    gatewayRef: `paypal-declined:${row.checkout_id}`,
    walletPaymentType: "paypal",
    message,
    now: deps.clock.now(),
    gateway: "paypal",
  });
  await closeCheckout(deps, row, "declined", message);
  throw new DomainError("paypal_declined", message);
}

/**
 * Records one sale of a PayPal subscription: the first creates our subscription (with the checkout's
 * coupon), a later one extends it by the plan's term from where it ended. Once per sale id.
 */
async function recordSale(deps: PayPalDeps, paypalSubId: string, sale: PayPalSale): Promise<Subscription | null> {
  const checkout = await deps.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", paypalSubId).executeTakeFirst();
  if (!checkout) {
    deps.logger.warn(`PayPal sale ${sale.id} of an unknown subscription ${paypalSubId}`);
    return null;
  }
  const now = deps.clock.now();
  const current = await deps.db.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", paypalSubId).executeTakeFirst();
  // A change of plan (revise, docs/decisions/051) applies at this renewal: it buys the new plan's card (its free months too).
  // Only a sale not recorded yet applies it (an earlier sale's late webhook must not).
  const seen = await deps.db.selectFrom("transactions").select("id").where("gateway_ref", "=", sale.id).executeTakeFirst();
  const changedTo = !seen && current?.pending_plan_id != null ? await findPlan(deps.db, Number(current.pending_plan_id)) : undefined;
  const plan = changedTo ?? (await findPlan(deps.db, current ? Number(current.plan_id) : checkout.plan_id));
  if (!plan) return null;
  const saleTime = new Date(sale.time);
  const first = !current;
  if (first && checkout.status !== "created" && checkout.status !== "paid") {
    // Cancelled, replaced or refused, and approved all the same: nothing of it is kept.
    await giveBackSubscription(deps, checkout);
    return null;
  }
  // A renewal continues the paid period (PayPal may collect a few days late, after a retry); after a long gap it starts again.
  const start = current && new Date(current.sub_exp_date).getTime() > saleTime.getTime() - 31 * DAY_MS ? new Date(current.sub_exp_date) : saleTime;
  const periodEnd = addMonthsUtc(start, plan.duration_months);
  let subscription: Subscription;
  try {
    subscription = await recordSaleOnce(deps, checkout, plan, paypalSubId, sale, { start, periodEnd, first, buysCard: first || Boolean(changedTo), now });
    if (changedTo && current) subscription = await applyChangedPlan(deps, current, changedTo, now);
  } catch (error) {
    if (!isSecondSubscription(error)) throw error;
    // Another recurring plan completed first: this PayPal subscription is cancelled and its payment refunded.
    await refuseCheckout(deps, checkout, SUBSCRIPTION_MESSAGES.refunded);
    await giveBackSubscription(deps, { ...checkout, status: "refused" });
    throw refundedRefusal();
  }
  // Still open with its subscription recorded: the first sale's handling was cut short before this (an instance killed).
  if (first || checkout.status === "created") await markPaid(deps, checkout, subscription, sale.id);
  if (!first) await deps.renewals?.paid({ subscriptionId: Number(subscription.id), key: null });
  await tellPaid(deps, { userId: checkout.user_id, gatewayRef: sale.id, periodStart: start, periodEnd: new Date(subscription.sub_exp_date) });
  return subscription;
}

function recordSaleOnce(
  deps: PayPalDeps,
  checkout: PayPalCheckout,
  plan: Plan,
  paypalSubId: string,
  sale: PayPalSale,
  at: { start: Date; periodEnd: Date; first: boolean; buysCard: boolean; now: Date },
): Promise<Subscription> {
  const { start, periodEnd, first, buysCard, now } = at;
  return recordPaidInvoice(deps.db, {
    userId: checkout.user_id,
    plan,
    gatewayRef: sale.id,
    amountCents: sale.amountCents,
    // Renewals are billed at the first payment's rate (cyclePricesOf): the sale splits at it.
    tax: splitTotal(sale.amountCents, recordedTaxOfRow(checkout)),
    gateway: "paypal",
    walletPaymentType: "paypal",
    stripeSubId: null,
    paypalSubId,
    periodStart: start,
    periodEnd,
    first: buysCard,
    couponId: first ? checkout.coupon_id : null,
    couponCode: first ? checkout.coupon_code : null,
    couponReservation: first ? checkout.coupon_hold_key : null,
    hostedInvoiceUrl: null,
    gatewayInvoiceId: paypalSubId,
    now,
  });
}

/** The row takes the plan a revise put the PayPal subscription on, once its first payment on it is recorded. */
async function applyChangedPlan(deps: PayPalDeps, row: Subscription, plan: Plan, now: Date): Promise<Subscription> {
  return deps.db
    .updateTable("subscriptions")
    .set({ plan_id: plan.id, title: plan.title, amount_cents: plan.discounted_price_cents, pending_plan_id: null, pending_change_at: null, updated_at: now.toISOString() })
    .where("id", "=", row.id)
    .where("pending_plan_id", "=", plan.id)
    .returningAll()
    .executeTakeFirst()
    .then((updated) => updated ?? deps.db.selectFrom("subscriptions").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow());
}

/**
 * Follows the plan PayPal's subscription is on (docs/decisions/051): after a revise the buyer approved, the new
 * plan is our row's pending change until the next billing, which buys it (recordSale); revised back to the
 * current plan, the pending change is dropped. Returns the row, or undefined when the subscription is not ours.
 */
export async function followPayPalPlan(deps: PayPalDeps, paypalSubId: string): Promise<Subscription | undefined> {
  const row = await deps.db.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", paypalSubId).executeTakeFirst();
  if (!row) return undefined;
  const atPayPal = await getSubscription(deps.client, paypalSubId);
  if (!atPayPal.planId) return row;
  const mapped = await deps.db.selectFrom("paypal_plans").select("plan_id").where("paypal_plan_id", "=", atPayPal.planId).executeTakeFirst();
  if (!mapped) return row;
  const planId = Number(mapped.plan_id);
  const pending = planId === Number(row.plan_id) ? null : planId;
  if ((row.pending_plan_id === null ? null : Number(row.pending_plan_id)) === pending) return row;
  return deps.db
    .updateTable("subscriptions")
    .set({ pending_plan_id: pending, pending_change_at: pending === null ? null : row.sub_exp_date, updated_at: deps.clock.now().toISOString() })
    .where("id", "=", row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The buyer cancelled at PayPal: our checkout ends, its coupon hold is given back, nothing is charged. */
export async function cancelPayPalCheckout(deps: PayPalDeps, input: { user: User; token?: string; subscriptionId?: string }): Promise<{ status: "cancelled"; kind: PayPalKind }> {
  const row = await checkoutOf(deps, input.user, input);
  if (row.status === "paid") throw new DomainError("invoice_paid", PAYPAL_MESSAGES.alreadyPaid);
  if (row.status === "created") await closeCheckout(deps, row, "cancelled", null);
  return { status: "cancelled", kind: row.kind };
}

// ---------------------------------------------------------------- after the payment

/** Auto-renewal off/on for a PayPal subscription: suspended or reactivated at PayPal, then recorded. */
export async function setPayPalRenewal(deps: PayPalDeps, subscription: Subscription, renewing: boolean): Promise<void> {
  const id = subscription.paypal_sub_id;
  if (!id) throw new DomainError("auto_renewal_unavailable", "This subscription's renewal cannot be changed.");
  try {
    if (renewing) await activateSubscription(deps.client, id, "Auto-renewal turned on by the customer.");
    else await suspendSubscription(deps.client, id, "Auto-renewal turned off by the customer.");
  } catch (error) {
    // Already in that state at PayPal (422 SUBSCRIPTION_STATUS_INVALID): what we want.
    if (isPayPalFailure(error) || !(error instanceof PayPalApiError) || error.status !== 422) throw gatewayFailed(deps, `renewal of ${id}`, error);
  }
  await recordPayPalState(deps, id, renewing);
}

async function recordPayPalState(deps: PayPalDeps, paypalSubId: string, renewing: boolean): Promise<void> {
  await deps.db
    .updateTable("subscriptions")
    .set({ subs_status: renewing ? "subscription_started" : "subscription_cancelled", cancel_at_period_end: renewing ? 0 : 1, updated_at: deps.clock.now().toISOString() })
    .where("paypal_sub_id", "=", paypalSubId)
    .execute();
}

/** Ends a PayPal subscription now (account deletion, a grace period run out). Idempotent. */
export async function cancelPayPalSubscription(deps: PayPalDeps, paypalSubId: string, reason: string): Promise<void> {
  try {
    await cancelSubscription(deps.client, paypalSubId, reason);
  } catch (error) {
    // Already cancelled at PayPal (422): what we want.
    if (isPayPalFailure(error) || !(error instanceof PayPalApiError) || error.status !== 422) throw error;
  }
  await recordPayPalState(deps, paypalSubId, false);
}

/** Refunds a PayPal payment (the 30-day guarantee): an order's capture, or a subscription's sale. Same key: one refund. */
export async function refundPayPalPayment(deps: PayPalDeps, payment: { gatewayRef: string; key: string }): Promise<{ id: string; status: string }> {
  const checkout = await deps.db
    .selectFrom("paypal_checkouts")
    .select("kind")
    .where("gateway_ref", "=", payment.gatewayRef)
    .where("kind", "=", "order")
    .executeTakeFirst();
  return checkout ? refundCapture(deps.client, payment.gatewayRef, payment.key) : refundSale(deps.client, payment.gatewayRef, payment.key);
}

// ---------------------------------------------------------------- webhooks

interface PayPalEvent {
  id: string;
  event_type: string;
  create_time?: string;
  resource: Record<string, unknown> & {
    id?: string;
    custom_id?: string;
    billing_agreement_id?: string;
    supplementary_data?: { related_ids?: { order_id?: string } };
  };
}

function badSignature(): DomainError {
  return new DomainError("signature_invalid", PAYPAL_MESSAGES.badSignature);
}

/**
 * Verifies one delivery with PayPal (verify-webhook-signature, on the exact text) and handles it until one
 * delivery of the event id has finished; every handler re-reads what it records from PayPal and is
 * idempotent by capture or sale id, also with another delivery of the same event running at once.
 */
export async function handlePayPalWebhook(deps: PayPalDeps, raw: string, headers: Record<string, string | undefined>): Promise<void> {
  let event: PayPalEvent;
  try {
    event = JSON.parse(raw);
  } catch {
    throw badSignature();
  }
  if (!event || typeof event !== "object" || typeof event.id !== "string" || typeof event.event_type !== "string" || typeof event.resource !== "object" || !event.resource) {
    throw badSignature();
  }
  const transmission = {
    authAlgo: headers["paypal-auth-algo"],
    certUrl: headers["paypal-cert-url"],
    transmissionId: headers["paypal-transmission-id"],
    transmissionSig: headers["paypal-transmission-sig"],
    transmissionTime: headers["paypal-transmission-time"],
  };
  if (Object.values(transmission).some((value) => !value)) throw badSignature();
  let verified: boolean;
  try {
    verified = await verifyWebhookSignature(deps.client, { headers: transmission as Record<keyof typeof transmission, string>, webhookId: deps.webhookId, rawEvent: raw });
  } catch (error) {
    if (error instanceof PayPalApiError && !isPayPalFailure(error)) throw badSignature();
    throw gatewayFailed(deps, "webhook verification", error);
  }
  if (!verified) throw badSignature();

  // Recorded once handled (webhook-events.ts); a refusal (a declined capture, recorded as a failed payment; a
  // second subscription given back) is the event's answer for good.
  await handleWebhookOnce(deps, { id: event.id, source: "paypal", type: event.event_type }, () => handleEvent(deps, event));
}

async function checkoutByPayPalId(deps: PayPalDeps, paypalId: string | undefined): Promise<PayPalCheckout | undefined> {
  if (!paypalId) return undefined;
  return deps.db.selectFrom("paypal_checkouts").selectAll().where("paypal_id", "=", paypalId).executeTakeFirst();
}

async function handleEvent(deps: PayPalDeps, event: PayPalEvent): Promise<void> {
  const resource = event.resource;
  switch (event.event_type) {
    case "CHECKOUT.ORDER.APPROVED": {
      const row = await checkoutByPayPalId(deps, resource.id);
      if (row && row.kind === "order") await settleCheckout(deps, row);
      return;
    }
    case "PAYMENT.CAPTURE.COMPLETED": {
      const orderId = resource.supplementary_data?.related_ids?.order_id;
      const row =
        (await checkoutByPayPalId(deps, orderId)) ??
        (resource.custom_id ? await deps.db.selectFrom("paypal_checkouts").selectAll().where("checkout_id", "=", resource.custom_id).executeTakeFirst() : undefined);
      if (row?.kind !== "order" || !row.paypal_id) return;
      // Re-read: the order names the capture and its amount.
      const order = await getOrder(deps.client, row.paypal_id);
      if (order.capture?.status === "COMPLETED") await recordOrderPaid(deps, row, order.capture);
      return;
    }
    case "BILLING.SUBSCRIPTION.ACTIVATED":
    case "BILLING.SUBSCRIPTION.CANCELLED":
    case "BILLING.SUBSCRIPTION.SUSPENDED":
    case "BILLING.SUBSCRIPTION.EXPIRED": {
      if (!resource.id) return;
      const sub = await getSubscription(deps.client, resource.id);
      const row = await checkoutByPayPalId(deps, resource.id);
      // Created: recorded now. Cancelled, replaced or refused but approved all the same: given back (settleCheckout).
      if (row && ["created", "cancelled", "refused"].includes(row.status) && sub.status === "ACTIVE") {
        await settleCheckout(deps, row);
        return;
      }
      const ours = await deps.db.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", resource.id).executeTakeFirst();
      if (!ours) return;
      await recordPayPalState(deps, resource.id, sub.status === "ACTIVE");
      if (sub.status === "CANCELLED" || sub.status === "EXPIRED") await deps.renewals?.ended({ subscriptionId: Number(ours.id), endedAt: deps.clock.now() });
      return;
    }
    case "BILLING.SUBSCRIPTION.UPDATED": {
      // A revise the buyer approved (or any other change): the row follows PayPal's plan.
      if (resource.id) await followPayPalPlan(deps, resource.id);
      return;
    }
    case "PAYMENT.SALE.COMPLETED": {
      const paypalSubId = resource.billing_agreement_id;
      if (!paypalSubId || !resource.id) return;
      // Re-read: the sale must be one of the subscription's completed payments.
      const since = typeof resource.create_time === "string" ? new Date(resource.create_time) : deps.clock.now();
      const sale = (await salesOf(deps, paypalSubId, new Date(since.getTime() - DAY_MS))).find((s) => s.id === resource.id);
      if (sale) await recordSale(deps, paypalSubId, sale);
      return;
    }
    case "BILLING.SUBSCRIPTION.PAYMENT.FAILED": {
      if (!resource.id) return;
      const ours = await deps.db.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", resource.id).executeTakeFirst();
      if (!ours) {
        // The first payment failed: the checkout ends declined.
        const row = await checkoutByPayPalId(deps, resource.id);
        if (row?.status === "created") await settleCheckout(deps, row).catch((error) => (isRefusal(error) ? undefined : Promise.reject(error)));
        return;
      }
      const sub = await getSubscription(deps.client, resource.id);
      if (sub.failedPaymentsCount === 0 && sub.status === "ACTIVE") return;
      await deps.renewals?.failed({
        subscription: ours,
        amountCents: Number(ours.amount_cents ?? 0),
        taxCents: null,
        dueAt: new Date(ours.sub_exp_date),
        message: "PayPal could not collect the payment.",
        // One past-due renewal per paid-through date (PayPal retries the same cycle).
        key: `paypal:${resource.id}:${ours.sub_exp_date}`,
        paymentMethodId: null,
        // PayPal retries it itself; the customer fixes their PayPal funding at PayPal.
        payableHere: false,
      });
      return;
    }
    default:
      return;
  }
}
