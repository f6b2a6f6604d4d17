import {
  ApiError,
  type ApplicationContextUserAction,
  type CheckoutPaymentIntent,
  Client,
  Environment,
  type ExperienceContextShippingPreference,
  type IntervalUnit,
  OrdersController,
  PaymentsController,
  type PaypalExperienceUserAction,
  type PaypalWalletContextShippingPreference,
  type PlanRequestStatus,
  SubscriptionsController,
  type TenureType,
} from "@paypal/paypal-server-sdk";
import { paypalSdkHttpOptions } from "./sdk-base-url";

/*
 * The product's PayPal client (docs/decisions/039): the only importer of @paypal/paypal-server-sdk
 * (.dependency-cruiser.cjs), one named function per call, each with its PayPal-Request-Id where PayPal
 * takes one (a retry is then the same call at PayPal). What the SDK lacks (catalog products, refunds of
 * subscription sales, webhook signature verification) goes over fetch with an OAuth token of our own.
 * Live it talks to PAYPAL_ENVIRONMENT's host; in sandbox mode to the stand-in's loopback port, through
 * the same SDK calls (sdk-base-url.ts). Answers are turned into the few plain fields the domain reads.
 */

export const PAYPAL_HOSTS = { production: "https://api-m.paypal.com", sandbox: "https://api-m.sandbox.paypal.com" } as const;

export interface PayPalClientOptions {
  clientId: string;
  clientSecret: string;
  /** PayPal's host (PAYPAL_HOSTS), or the stand-in's http://127.0.0.1:<port>. */
  baseUrl: string;
  /** Which of PayPal's environments the SDK names (the stand-in is reached with Sandbox and an overridden host). */
  environment: "production" | "sandbox";
  /** true: the SDK's requests go to baseUrl (the stand-in). */
  overrideHost?: boolean;
  timeoutMs?: number;
}

export interface PayPalClient {
  orders: OrdersController;
  subscriptions: SubscriptionsController;
  payments: PaymentsController;
  /** REST calls the SDK lacks. */
  rest<T>(method: "GET" | "POST", path: string, body?: unknown, requestId?: string): Promise<T>;
}

/** PayPal answered with an error: its HTTP status, name (UNPROCESSABLE_ENTITY, RESOURCE_NOT_FOUND, ...) and first issue. */
export class PayPalApiError extends Error {
  constructor(
    readonly status: number,
    readonly paypalName: string | undefined,
    readonly issue: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = "PayPalApiError";
  }
}

/** A 5xx, a timeout or no answer: the call may or may not have happened at PayPal. */
export function isPayPalFailure(error: unknown): boolean {
  return !(error instanceof PayPalApiError) || error.status >= 500 || error.status === 429;
}

function errorFromBody(status: number, text: string): PayPalApiError {
  let parsed: { name?: string; message?: string; error_description?: string; details?: { issue?: string; description?: string }[] } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = {};
  }
  const detail = parsed.details?.[0];
  const message = detail?.description ?? parsed.message ?? parsed.error_description ?? `PayPal answered ${status}`;
  return new PayPalApiError(status, parsed.name, detail?.issue, message);
}

/** Runs an SDK call; PayPal's error answers become PayPalApiError. */
async function call<T>(work: () => Promise<{ result: T }>): Promise<T> {
  try {
    return (await work()).result;
  } catch (error) {
    if (error instanceof ApiError) return Promise.reject(errorFromBody(error.statusCode, typeof error.body === "string" ? error.body : ""));
    throw error;
  }
}

export function createPayPalClient(opts: PayPalClientOptions): PayPalClient {
  const sdk = new Client({
    clientCredentialsAuthCredentials: { oAuthClientId: opts.clientId, oAuthClientSecret: opts.clientSecret },
    environment: opts.environment === "production" ? Environment.Production : Environment.Sandbox,
    timeout: opts.timeoutMs ?? 20_000,
    ...(opts.overrideHost ? { unstable_httpClientOptions: paypalSdkHttpOptions(opts.baseUrl) } : {}),
  });
  let token: { value: string; expiresAt: number } | null = null;
  const base = opts.baseUrl.replace(/\/+$/, "");
  async function accessToken(): Promise<string> {
    if (token && token.expiresAt > Date.now() + 60_000) return token.value;
    const response = await fetch(`${base}/v1/oauth2/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
      signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
    });
    const text = await response.text();
    if (!response.ok) throw errorFromBody(response.status, text);
    const answer = JSON.parse(text) as { access_token: string; expires_in?: number };
    token = { value: answer.access_token, expiresAt: Date.now() + (answer.expires_in ?? 300) * 1000 };
    return token.value;
  }
  return {
    orders: new OrdersController(sdk),
    subscriptions: new SubscriptionsController(sdk),
    payments: new PaymentsController(sdk),
    async rest<T>(method: "GET" | "POST", path: string, body?: unknown, requestId?: string): Promise<T> {
      const headers: Record<string, string> = { authorization: `Bearer ${await accessToken()}`, "content-type": "application/json" };
      if (requestId) headers["PayPal-Request-Id"] = requestId;
      const response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 20_000),
      });
      const text = await response.text();
      if (!response.ok) throw errorFromBody(response.status, text);
      return (text ? JSON.parse(text) : {}) as T;
    },
  };
}

const cents = (value: string | undefined): number => Math.round(Number(value ?? "0") * 100);
const usd = (amountCents: number) => ({ currencyCode: "USD", value: (amountCents / 100).toFixed(2) });
const linkOf = (links: { rel: string; href: string }[] | undefined, ...rels: string[]) =>
  links?.find((link) => rels.includes(link.rel))?.href ?? null;

// ---------------------------------------------------------------- orders

export interface PayPalOrder {
  id: string;
  status: string;
  customId: string | null;
  amountCents: number;
  approveUrl: string | null;
  capture: { id: string; status: string; amountCents: number } | null;
}

function orderOf(order: {
  id?: string;
  status?: string;
  links?: { rel: string; href: string }[];
  purchaseUnits?: { customId?: string; amount?: { value: string }; payments?: { captures?: { id?: string; status?: string; amount?: { value: string } }[] } }[];
}): PayPalOrder {
  const unit = order.purchaseUnits?.[0];
  const capture = unit?.payments?.captures?.[0];
  return {
    id: order.id ?? "",
    status: order.status ?? "",
    customId: unit?.customId ?? null,
    amountCents: cents(unit?.amount?.value),
    approveUrl: linkOf(order.links, "payer-action", "approve"),
    capture: capture?.id ? { id: capture.id, status: capture.status ?? "", amountCents: cents(capture.amount?.value) } : null,
  };
}

export async function createOrder(
  pp: PayPalClient,
  input: { checkoutId: string; amountCents: number; description: string; returnUrl: string; cancelUrl: string; brandName: string },
): Promise<PayPalOrder> {
  const order = await call(() =>
    pp.orders.createOrder({
      paypalRequestId: `order-${input.checkoutId}`,
      prefer: "return=representation",
      body: {
        intent: "CAPTURE" as CheckoutPaymentIntent,
        purchaseUnits: [{ customId: input.checkoutId, description: input.description.slice(0, 127), amount: usd(input.amountCents) }],
        paymentSource: {
          paypal: {
            experienceContext: {
              returnUrl: input.returnUrl,
              cancelUrl: input.cancelUrl,
              userAction: "PAY_NOW" as PaypalExperienceUserAction,
              shippingPreference: "NO_SHIPPING" as PaypalWalletContextShippingPreference,
              brandName: input.brandName.slice(0, 127),
            },
          },
        },
      },
    }),
  );
  return orderOf(order);
}

export async function getOrder(pp: PayPalClient, id: string): Promise<PayPalOrder> {
  return orderOf(await call(() => pp.orders.getOrder({ id })));
}

/** Captures an approved order; the same requestId is the same capture at PayPal (never a second one). */
export async function captureOrder(pp: PayPalClient, id: string, requestId: string): Promise<PayPalOrder> {
  return orderOf(await call(() => pp.orders.captureOrder({ id, paypalRequestId: requestId, prefer: "return=representation" })));
}

export async function refundCapture(pp: PayPalClient, captureId: string, requestId: string): Promise<{ id: string; status: string }> {
  const refund = await call(() => pp.payments.refundCapturedPayment({ captureId, paypalRequestId: requestId, prefer: "return=representation", body: {} }));
  return { id: refund.id ?? "", status: refund.status ?? "" };
}

// ---------------------------------------------------------------- catalog and billing plans

/** A catalog product (no SDK call for it): the one product every billing plan belongs to. */
export async function createProduct(pp: PayPalClient, input: { name: string; requestId: string }): Promise<string> {
  const product = await pp.rest<{ id: string }>("POST", "/v1/catalogs/products", { name: input.name, type: "SERVICE", category: "SOFTWARE" }, input.requestId);
  return product.id;
}

/** One billing cycle of a plan we make: its length in months and its price (null: free). */
export interface PlanCycle {
  tenure: "TRIAL" | "REGULAR";
  months: number;
  /** How many times it runs (0: forever, for the regular cycle). */
  totalCycles: number;
  priceCents: number | null;
}

/** PayPal's interval for a number of months: MONTH up to 12, else YEAR for whole years of at most 1 (PayPal's caps). */
export function intervalOf(months: number): { intervalUnit: IntervalUnit; intervalCount: number } | null {
  if (months >= 1 && months <= 12) return { intervalUnit: "MONTH" as IntervalUnit, intervalCount: months };
  return null;
}

export async function createPlan(
  pp: PayPalClient,
  input: { productId: string; name: string; description: string; cycles: PlanCycle[]; requestId: string },
): Promise<string> {
  const plan = await call(() =>
    pp.subscriptions.createBillingPlan({
      paypalRequestId: input.requestId,
      prefer: "return=representation",
      body: {
        productId: input.productId,
        name: input.name.slice(0, 127),
        description: input.description.slice(0, 127),
        status: "ACTIVE" as PlanRequestStatus,
        billingCycles: input.cycles.map((cycle, index) => {
          const frequency = intervalOf(cycle.months);
          if (!frequency) throw new Error(`PayPal cannot bill every ${cycle.months} months`);
          return {
            tenureType: cycle.tenure as TenureType,
            sequence: index + 1,
            totalCycles: cycle.totalCycles,
            frequency,
            ...(cycle.priceCents === null ? {} : { pricingScheme: { fixedPrice: usd(cycle.priceCents) } }),
          };
        }),
        // PayPal retries a failed renewal itself; after 3 failures in a row it suspends the subscription.
        paymentPreferences: { autoBillOutstanding: true, paymentFailureThreshold: 3 },
      },
    }),
  );
  return plan.id ?? "";
}

export async function getPlan(pp: PayPalClient, id: string): Promise<{ id: string; status: string; prices: { sequence: number; cents: number | null }[] }> {
  const plan = await call(() => pp.subscriptions.getBillingPlan(id));
  return {
    id: plan.id ?? id,
    status: plan.status ?? "",
    prices: (plan.billingCycles ?? []).map((c) => ({ sequence: c.sequence, cents: c.pricingScheme?.fixedPrice ? cents(c.pricingScheme.fixedPrice.value) : null })),
  };
}

export async function listPlans(pp: PayPalClient, productId: string): Promise<{ id: string; status: string; name: string }[]> {
  const list = await call(() => pp.subscriptions.listBillingPlans({ productId, pageSize: 20 }));
  return (list.plans ?? []).map((p) => ({ id: p.id ?? "", status: p.status ?? "", name: p.name ?? "" }));
}

export async function activatePlan(pp: PayPalClient, id: string): Promise<void> {
  await call(() => pp.subscriptions.activateBillingPlan(id));
}

/** New prices for a plan's paid cycles (by sequence): PayPal applies them to its later billings. */
export async function updatePlanPricing(pp: PayPalClient, id: string, prices: { sequence: number; cents: number }[]): Promise<void> {
  await call(() =>
    pp.subscriptions.updateBillingPlanPricingSchemes({
      id,
      body: { pricingSchemes: prices.map((p) => ({ billingCycleSequence: p.sequence, pricingScheme: { fixedPrice: usd(p.cents) } })) },
    }),
  );
}

// ---------------------------------------------------------------- subscriptions

export interface PayPalSubscription {
  id: string;
  status: string;
  planId: string | null;
  customId: string | null;
  approveUrl: string | null;
  nextBillingTime: string | null;
  lastPayment: { amountCents: number; time: string | null } | null;
  failedPaymentsCount: number;
}

function subscriptionOf(sub: {
  id?: string;
  status?: string;
  planId?: string;
  customId?: string;
  links?: { rel: string; href: string }[];
  billingInfo?: { nextBillingTime?: string; lastPayment?: { amount?: { value: string }; time?: string }; failedPaymentsCount?: number };
}): PayPalSubscription {
  const last = sub.billingInfo?.lastPayment;
  return {
    id: sub.id ?? "",
    status: sub.status ?? "",
    planId: sub.planId ?? null,
    customId: sub.customId ?? null,
    approveUrl: linkOf(sub.links, "approve"),
    nextBillingTime: sub.billingInfo?.nextBillingTime ?? null,
    lastPayment: last?.amount ? { amountCents: cents(last.amount.value), time: last.time ?? null } : null,
    failedPaymentsCount: sub.billingInfo?.failedPaymentsCount ?? 0,
  };
}

export async function createSubscription(
  pp: PayPalClient,
  input: {
    checkoutId: string;
    planId: string;
    returnUrl: string;
    cancelUrl: string;
    brandName: string;
    /** Cycle prices of this subscription only that are not the plan's (a coupon's first cycle, the VAT of the buyer's country). */
    cyclePrices?: { sequence: number; cents: number }[];
  },
): Promise<PayPalSubscription> {
  const sub = await call(() =>
    pp.subscriptions.createSubscription({
      paypalRequestId: `subscription-${input.checkoutId}`,
      prefer: "return=representation",
      body: {
        planId: input.planId,
        customId: input.checkoutId,
        ...(input.cyclePrices?.length
          ? { plan: { billingCycles: input.cyclePrices.map((c) => ({ sequence: c.sequence, pricingScheme: { fixedPrice: usd(c.cents) } })) } }
          : {}),
        applicationContext: {
          returnUrl: input.returnUrl,
          cancelUrl: input.cancelUrl,
          userAction: "SUBSCRIBE_NOW" as ApplicationContextUserAction,
          shippingPreference: "NO_SHIPPING" as ExperienceContextShippingPreference,
          brandName: input.brandName.slice(0, 127),
        },
      },
    }),
  );
  return subscriptionOf(sub);
}

/**
 * A change of plan (revise): PayPal answers the approve link the buyer consents on; until then the
 * subscription stays on its plan. Approved, the new plan's price applies from the next billing cycle.
 */
export async function reviseSubscription(
  pp: PayPalClient,
  input: { id: string; planId: string; returnUrl: string; cancelUrl: string; brandName: string; cyclePrices?: { sequence: number; cents: number }[] },
): Promise<{ approveUrl: string | null; planId: string | null }> {
  const revised = await call(() =>
    pp.subscriptions.reviseSubscription({
      id: input.id,
      body: {
        planId: input.planId,
        // This subscription's prices of the new plan's cycles (VAT included), as at its creation.
        ...(input.cyclePrices?.length
          ? { plan: { billingCycles: input.cyclePrices.map((c) => ({ sequence: c.sequence, pricingScheme: { fixedPrice: usd(c.cents) } })) } }
          : {}),
        applicationContext: {
          returnUrl: input.returnUrl,
          cancelUrl: input.cancelUrl,
          brandName: input.brandName.slice(0, 127),
          shippingPreference: "NO_SHIPPING" as ExperienceContextShippingPreference,
        },
      },
    }),
  );
  return { approveUrl: linkOf(revised.links, "approve"), planId: revised.planId ?? null };
}

export async function getSubscription(pp: PayPalClient, id: string): Promise<PayPalSubscription> {
  return subscriptionOf(await call(() => pp.subscriptions.getSubscription({ id })));
}

export async function suspendSubscription(pp: PayPalClient, id: string, reason: string): Promise<void> {
  await call(() => pp.subscriptions.suspendSubscription({ id, body: { reason } }));
}

export async function activateSubscription(pp: PayPalClient, id: string, reason: string): Promise<void> {
  await call(() => pp.subscriptions.activateSubscription({ id, body: { reason } }));
}

export async function cancelSubscription(pp: PayPalClient, id: string, reason: string): Promise<void> {
  await call(() => pp.subscriptions.cancelSubscription({ id, body: { reason } }));
}

export interface PayPalSale {
  id: string;
  status: string;
  amountCents: number;
  time: string;
}

/** The subscription's payments (sales) between two times. */
export async function listSubscriptionTransactions(pp: PayPalClient, id: string, start: Date, end: Date): Promise<PayPalSale[]> {
  const list = await call(() => pp.subscriptions.listSubscriptionTransactions({ id, startTime: start.toISOString(), endTime: end.toISOString() }));
  return (list.transactions ?? []).map((t) => ({
    id: t.id,
    status: t.status ?? "",
    amountCents: cents(t.amountWithBreakdown?.grossAmount?.value),
    time: t.time,
  }));
}

/** Refunds a subscription's sale in full (v1 payments: no SDK call for it). */
export async function refundSale(pp: PayPalClient, saleId: string, requestId: string): Promise<{ id: string; status: string }> {
  const refund = await pp.rest<{ id: string; state?: string; status?: string }>(
    "POST",
    `/v1/payments/sale/${encodeURIComponent(saleId)}/refund`,
    {},
    requestId,
  );
  return { id: refund.id, status: refund.state ?? refund.status ?? "" };
}

// ---------------------------------------------------------------- webhooks

export interface TransmissionHeaders {
  authAlgo: string;
  certUrl: string;
  transmissionId: string;
  transmissionSig: string;
  transmissionTime: string;
}

/**
 * Asks PayPal whether a webhook is its own (verify-webhook-signature). The event goes in as the exact
 * text PayPal sent (spliced into the request, not re-serialised), since the signature covers those bytes.
 */
export async function verifyWebhookSignature(pp: PayPalClient, input: { headers: TransmissionHeaders; webhookId: string; rawEvent: string }): Promise<boolean> {
  const { headers } = input;
  const fields = JSON.stringify({
    auth_algo: headers.authAlgo,
    cert_url: headers.certUrl,
    transmission_id: headers.transmissionId,
    transmission_sig: headers.transmissionSig,
    transmission_time: headers.transmissionTime,
    webhook_id: input.webhookId,
  });
  const body = `${fields.slice(0, -1)},"webhook_event":${input.rawEvent}}`;
  const answer = await pp.rest<{ verification_status?: string }>("POST", "/v1/notifications/verify-webhook-signature", body);
  return answer.verification_status === "SUCCESS";
}
