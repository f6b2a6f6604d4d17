import { randomBytes, randomInt } from "node:crypto";

/*
 * The sandbox's records and how they look in PayPal's answers (checkout_orders_v2, payments v2/v1,
 * billing_subscriptions_v1, catalogs_products_v1). Pure functions: storage and HTTP are elsewhere.
 * Money is integer cents inside, PayPal's decimal strings outside; times are PayPal's RFC 3339 UTC
 * without fractions ("2026-11-26T12:00:00Z"), from the business clock.
 */

export type Funding = "balance" | "declined" | "fails_renewals";
export const FUNDINGS: readonly Funding[] = ["balance", "declined", "fails_renewals"];

export const CURRENCY = "USD";
/** PayPal account ids are 13 characters of [2-9A-HJ-NP-Z]. */
export const MERCHANT = { merchant_id: "SANDBXMERCHT2", email_address: "merchant@example.com" } as const;
/** The sandbox buyer who approves on the approval page. */
export const BUYER = {
  payer_id: "SANDBXBUYER23",
  email_address: "sb-buyer@personal.example.com",
  name: { given_name: "Sandbox", surname: "Buyer" },
} as const;

const ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
function randomText(length: number, alphabet = ALNUM): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** PayPal-looking ids: orders, captures, sales and refunds are 17 characters; the rest have prefixes. */
export const newId = {
  order: () => randomText(17),
  capture: () => randomText(17),
  sale: () => randomText(17),
  refund: () => randomText(17),
  product: () => `PROD-${randomText(17)}`,
  plan: () => `P-${randomText(24)}`,
  subscription: () => `I-${randomText(12)}`,
  baToken: () => `BA-${randomText(17)}`,
  event: () => `WH-${randomText(17)}-${randomText(17)}`,
  debug: () => randomBytes(7).toString("hex").slice(0, 13),
  transmission: () => crypto.randomUUID(),
};

export const ID_PATTERN = /^[A-Z0-9-]{5,64}$/;

export const paypalTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

export const moneyValue = (cents: number) => (cents / 100).toFixed(2);
export const money = (cents: number) => ({ currency_code: CURRENCY, value: moneyValue(cents) });
/** "12.34" -> 1234; the caller has checked the format. */
export const centsOf = (value: string) => Math.round(Number(value) * 100);

/** PayPal's fee on a payment in the sandbox: 3.49% + $0.49 (US standard rate), never more than the payment. */
export const feeOf = (cents: number) => Math.min(cents, Math.round(cents * 0.0349) + 49);

export interface Link {
  href: string;
  rel: string;
  method: string;
}
const link = (href: string, rel: string, method = "GET"): Link => ({ href, rel, method });

/* ------------------------------------------------------------------ orders and captures */

export type OrderStatus = "CREATED" | "PAYER_ACTION_REQUIRED" | "APPROVED" | "COMPLETED";

export interface OrderRecord {
  id: string;
  status: OrderStatus;
  intent: "CAPTURE";
  amount_cents: number;
  reference_id: string;
  description?: string;
  custom_id?: string;
  invoice_id?: string;
  soft_descriptor?: string;
  /** Given as payment_source.paypal.experience_context (true) or the older application_context. */
  payment_source_paypal: boolean;
  return_url?: string;
  cancel_url?: string;
  brand_name?: string;
  /** Chosen on the approval page. */
  funding?: Funding;
  /** The approval page's last answer: where a second post leads. */
  outcome?: "approved" | "cancelled";
  capture_id?: string;
  create_time: string;
  update_time: string;
}

export type CaptureStatus = "COMPLETED" | "REFUNDED";

export interface CaptureRecord {
  id: string;
  order_id: string;
  status: CaptureStatus;
  amount_cents: number;
  custom_id?: string;
  invoice_id?: string;
  refund_id?: string;
  create_time: string;
  update_time: string;
}

export function orderApprovalUrl(publicUrl: string, id: string): string {
  return `${publicUrl}/dev/paypal/checkoutnow?token=${encodeURIComponent(id)}`;
}

export function captureView(capture: CaptureRecord, base: string) {
  const fee = feeOf(capture.amount_cents);
  return {
    id: capture.id,
    status: capture.status,
    amount: money(capture.amount_cents),
    final_capture: true,
    seller_protection: { status: "ELIGIBLE", dispute_categories: ["ITEM_NOT_RECEIVED", "UNAUTHORIZED_TRANSACTION"] },
    seller_receivable_breakdown: {
      gross_amount: money(capture.amount_cents),
      paypal_fee: money(fee),
      net_amount: money(capture.amount_cents - fee),
    },
    ...(capture.custom_id === undefined ? {} : { custom_id: capture.custom_id }),
    ...(capture.invoice_id === undefined ? {} : { invoice_id: capture.invoice_id }),
    supplementary_data: { related_ids: { order_id: capture.order_id } },
    links: [
      link(`${base}/v2/payments/captures/${capture.id}`, "self"),
      link(`${base}/v2/payments/captures/${capture.id}/refund`, "refund", "POST"),
      link(`${base}/v2/checkout/orders/${capture.order_id}`, "up"),
    ],
    create_time: capture.create_time,
    update_time: capture.update_time,
  };
}

function payerView() {
  return { name: BUYER.name, email_address: BUYER.email_address, payer_id: BUYER.payer_id, address: { country_code: "US" } };
}

function orderLinks(order: OrderRecord, base: string, publicUrl: string): Link[] {
  const self = link(`${base}/v2/checkout/orders/${order.id}`, "self");
  if (order.status === "COMPLETED") return [self];
  if (order.status === "APPROVED") {
    return [self, link(`${base}/v2/checkout/orders/${order.id}`, "update", "PATCH"), link(`${base}/v2/checkout/orders/${order.id}/capture`, "capture", "POST")];
  }
  if (order.status === "PAYER_ACTION_REQUIRED") return [self, link(orderApprovalUrl(publicUrl, order.id), "payer-action")];
  return [
    self,
    link(orderApprovalUrl(publicUrl, order.id), "approve"),
    link(`${base}/v2/checkout/orders/${order.id}`, "update", "PATCH"),
    link(`${base}/v2/checkout/orders/${order.id}/capture`, "capture", "POST"),
  ];
}

function paymentSourceView(order: OrderRecord) {
  const approved = order.status === "APPROVED" || order.status === "COMPLETED";
  if (!approved) return order.payment_source_paypal ? { payment_source: { paypal: {} } } : {};
  return {
    payment_source: {
      paypal: {
        email_address: BUYER.email_address,
        account_id: BUYER.payer_id,
        account_status: "VERIFIED",
        name: BUYER.name,
        address: { country_code: "US" },
      },
    },
  };
}

/** The order as GET /v2/checkout/orders/{id} (and Prefer: return=representation) answers it. */
export function orderView(order: OrderRecord, capture: CaptureRecord | undefined, base: string, publicUrl: string) {
  const approved = order.status === "APPROVED" || order.status === "COMPLETED";
  return {
    id: order.id,
    intent: order.intent,
    status: order.status,
    ...paymentSourceView(order),
    purchase_units: [
      {
        reference_id: order.reference_id,
        amount: money(order.amount_cents),
        payee: MERCHANT,
        ...(order.description === undefined ? {} : { description: order.description }),
        ...(order.custom_id === undefined ? {} : { custom_id: order.custom_id }),
        ...(order.invoice_id === undefined ? {} : { invoice_id: order.invoice_id }),
        ...(order.soft_descriptor === undefined ? {} : { soft_descriptor: order.soft_descriptor }),
        ...(capture ? { payments: { captures: [captureView(capture, base)] } } : {}),
      },
    ],
    ...(approved ? { payer: payerView() } : {}),
    create_time: order.create_time,
    update_time: order.update_time,
    links: orderLinks(order, base, publicUrl),
  };
}

/** Prefer: return=minimal (PayPal's default on create): id, status, payment_source, links. */
export function orderMinimalView(order: OrderRecord, base: string, publicUrl: string) {
  return { id: order.id, status: order.status, ...paymentSourceView(order), links: orderLinks(order, base, publicUrl) };
}

/* ------------------------------------------------------------------ refunds */

export interface RefundRecord {
  id: string;
  /** The capture (v2) or the sale (v1) refunded. */
  parent_id: string;
  kind: "capture" | "sale";
  amount_cents: number;
  invoice_id?: string;
  note_to_payer?: string;
  create_time: string;
}

export function captureRefundView(refund: RefundRecord, base: string) {
  return {
    id: refund.id,
    amount: money(refund.amount_cents),
    ...(refund.invoice_id === undefined ? {} : { invoice_id: refund.invoice_id }),
    ...(refund.note_to_payer === undefined ? {} : { note_to_payer: refund.note_to_payer }),
    seller_payable_breakdown: {
      gross_amount: money(refund.amount_cents),
      paypal_fee: money(0),
      net_amount: money(refund.amount_cents),
      total_refunded_amount: money(refund.amount_cents),
    },
    status: "COMPLETED",
    create_time: refund.create_time,
    update_time: refund.create_time,
    links: [link(`${base}/v2/payments/refunds/${refund.id}`, "self"), link(`${base}/v2/payments/captures/${refund.parent_id}`, "up")],
  };
}

/** v1 payments: amounts are {total, currency}. */
const v1Amount = (cents: number) => ({ total: moneyValue(cents), currency: CURRENCY });
const v1Currency = (cents: number) => ({ currency: CURRENCY, value: moneyValue(cents) });

export function saleRefundView(refund: RefundRecord, base: string) {
  return {
    id: refund.id,
    create_time: refund.create_time,
    update_time: refund.create_time,
    state: "completed",
    amount: v1Amount(refund.amount_cents),
    refund_from_transaction_fee: v1Currency(0),
    total_refunded_amount: v1Currency(refund.amount_cents),
    refund_from_received_amount: v1Currency(refund.amount_cents),
    sale_id: refund.parent_id,
    ...(refund.invoice_id === undefined ? {} : { invoice_number: refund.invoice_id }),
    links: [
      link(`${base}/v1/payments/refund/${refund.id}`, "self"),
      link(`${base}/v1/payments/sale/${refund.parent_id}`, "sale"),
    ],
  };
}

/* ------------------------------------------------------------------ catalog products */

export interface ProductRecord {
  id: string;
  name: string;
  description?: string;
  type: string;
  category?: string;
  image_url?: string;
  home_url?: string;
  create_time: string;
  update_time: string;
}

export function productView(product: ProductRecord, base: string) {
  return {
    ...product,
    links: [link(`${base}/v1/catalogs/products/${product.id}`, "self"), link(`${base}/v1/catalogs/products/${product.id}`, "edit", "PATCH")],
  };
}

/* ------------------------------------------------------------------ plans */

export type IntervalUnit = "DAY" | "WEEK" | "MONTH" | "YEAR";
/** PayPal's caps on interval_count per unit. */
export const MAX_INTERVAL_COUNT: Record<IntervalUnit, number> = { DAY: 365, WEEK: 52, MONTH: 12, YEAR: 1 };

export interface Frequency {
  interval_unit: IntervalUnit;
  interval_count: number;
}

export interface PricingScheme {
  version: number;
  fixed_price?: { currency_code: string; value: string };
  create_time: string;
  update_time: string;
}

export interface BillingCycle {
  frequency: Frequency;
  tenure_type: "REGULAR" | "TRIAL";
  sequence: number;
  total_cycles: number;
  /** Absent: a free trial cycle. */
  pricing_scheme?: PricingScheme;
}

export interface PaymentPreferences {
  auto_bill_outstanding: boolean;
  setup_fee?: { currency_code: string; value: string };
  setup_fee_failure_action: "CONTINUE" | "CANCEL";
  payment_failure_threshold: number;
}

export interface PlanRecord {
  id: string;
  product_id: string;
  name: string;
  status: "CREATED" | "ACTIVE" | "INACTIVE";
  description?: string;
  usage_type: "LICENSED";
  billing_cycles: BillingCycle[];
  payment_preferences: PaymentPreferences;
  taxes?: { percentage: string; inclusive: boolean };
  quantity_supported: boolean;
  create_time: string;
  update_time: string;
}

export function planView(plan: PlanRecord, base: string) {
  return {
    ...plan,
    links: [
      link(`${base}/v1/billing/plans/${plan.id}`, "self"),
      link(`${base}/v1/billing/plans/${plan.id}`, "edit", "PATCH"),
      plan.status === "ACTIVE"
        ? link(`${base}/v1/billing/plans/${plan.id}/deactivate`, "self", "POST")
        : link(`${base}/v1/billing/plans/${plan.id}/activate`, "self", "POST"),
    ],
  };
}

/** A plan in GET /v1/billing/plans (PayPal lists a summary). */
export function planSummaryView(plan: PlanRecord, base: string) {
  return {
    id: plan.id,
    product_id: plan.product_id,
    name: plan.name,
    status: plan.status,
    ...(plan.description === undefined ? {} : { description: plan.description }),
    usage_type: plan.usage_type,
    create_time: plan.create_time,
    links: [link(`${base}/v1/billing/plans/${plan.id}`, "self")],
  };
}

/* ------------------------------------------------------------------ subscriptions */

export type SubscriptionStatus = "APPROVAL_PENDING" | "APPROVED" | "ACTIVE" | "SUSPENDED" | "CANCELLED" | "EXPIRED";

export interface CycleState {
  sequence: number;
  tenure_type: "REGULAR" | "TRIAL";
  total_cycles: number;
  frequency: Frequency;
  /** The subscription's own price for this cycle (plan override); undefined: the plan's current price. */
  override_cents?: number | null;
  completed: number;
}

export interface SubscriptionRecord {
  id: string;
  plan_id: string;
  ba_token: string;
  status: SubscriptionStatus;
  status_change_note?: string;
  status_update_time: string;
  custom_id?: string;
  quantity: string;
  start_time: string;
  create_time: string;
  update_time: string;
  return_url?: string;
  cancel_url?: string;
  brand_name?: string;
  plan_overridden: boolean;
  cycles: CycleState[];
  payment_preferences: PaymentPreferences;
  funding?: Funding;
  /** The approval page's last answer. */
  outcome?: "approved" | "cancelled";
  subscribed: boolean;
  next_billing_time?: string;
  last_payment?: { amount_cents: number; time: string };
  last_failed_payment?: { amount_cents: number; time: string; next_payment_retry_time?: string };
  failed_payments_count: number;
  outstanding_cents: number;
  final_payment_time?: string;
  /** A change of plan (POST …/revise) waiting for, or given, the buyer's consent on its own approval page. */
  revision?: RevisionState;
}

/**
 * A revise: the new plan (and the subscription's overrides of its cycles), consented to on its approval page
 * (`ba_token`); approved, the subscription is on the new plan, whose cycles start at the next billing time
 * (PayPal: "The new price is effective starting on the next billing cycle"; no proration).
 */
export interface RevisionState {
  plan_id: string;
  ba_token: string;
  cycles: CycleState[];
  plan_overridden: boolean;
  return_url?: string;
  cancel_url?: string;
  brand_name?: string;
  outcome?: "approved" | "cancelled";
  create_time: string;
}

export function revisionApprovalUrl(publicUrl: string, subscriptionId: string, baToken: string): string {
  return `${publicUrl}/dev/paypal/webapps/billing/subscriptions/update?subscription_id=${encodeURIComponent(subscriptionId)}&ba_token=${encodeURIComponent(baToken)}`;
}

export function subscriptionApprovalUrl(publicUrl: string, baToken: string): string {
  return `${publicUrl}/dev/paypal/webapps/billing/subscriptions?ba_token=${encodeURIComponent(baToken)}`;
}

/** Adds `count` units to an RFC 3339 time; months and years keep the day of the month where it exists (Jan 31 + 1 month = Feb 28). */
export function addInterval(time: string, frequency: Frequency, times = 1): string {
  const date = new Date(time);
  const count = frequency.interval_count * times;
  switch (frequency.interval_unit) {
    case "DAY":
      return paypalTime(date.getTime() + count * 86_400_000);
    case "WEEK":
      return paypalTime(date.getTime() + count * 7 * 86_400_000);
    case "MONTH":
    case "YEAR": {
      const months = frequency.interval_unit === "YEAR" ? count * 12 : count;
      const day = date.getUTCDate();
      const target = new Date(date.getTime());
      target.setUTCDate(1);
      target.setUTCMonth(target.getUTCMonth() + months);
      const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
      target.setUTCDate(Math.min(day, lastDay));
      return paypalTime(target.getTime());
    }
  }
}

/** The cycle the next payment belongs to, or undefined when every finite cycle has run. */
export function currentCycle(sub: SubscriptionRecord): CycleState | undefined {
  return sub.cycles.find((cycle) => cycle.total_cycles === 0 || cycle.completed < cycle.total_cycles);
}

export function subscriptionView(sub: SubscriptionRecord, base: string, publicUrl: string, planCycles: readonly BillingCycle[]) {
  const started = sub.status !== "APPROVAL_PENDING" && sub.status !== "APPROVED";
  const links: Link[] =
    sub.status === "APPROVAL_PENDING"
      ? [
          link(subscriptionApprovalUrl(publicUrl, sub.ba_token), "approve"),
          link(`${base}/v1/billing/subscriptions/${sub.id}`, "edit", "PATCH"),
          link(`${base}/v1/billing/subscriptions/${sub.id}`, "self"),
        ]
      : [
          link(`${base}/v1/billing/subscriptions/${sub.id}/cancel`, "cancel", "POST"),
          link(`${base}/v1/billing/subscriptions/${sub.id}`, "edit", "PATCH"),
          link(`${base}/v1/billing/subscriptions/${sub.id}`, "self"),
          link(`${base}/v1/billing/subscriptions/${sub.id}/suspend`, "suspend", "POST"),
          link(`${base}/v1/billing/subscriptions/${sub.id}/capture`, "capture", "POST"),
        ];
  const billingInfo = started
    ? {
        billing_info: {
          outstanding_balance: money(sub.outstanding_cents),
          cycle_executions: sub.cycles.map((cycle) => ({
            tenure_type: cycle.tenure_type,
            sequence: cycle.sequence,
            cycles_completed: cycle.completed,
            cycles_remaining: cycle.total_cycles === 0 ? 0 : Math.max(0, cycle.total_cycles - cycle.completed),
            current_pricing_scheme_version: planCycles.find((c) => c.sequence === cycle.sequence)?.pricing_scheme?.version ?? 1,
            total_cycles: cycle.total_cycles,
          })),
          ...(sub.last_payment ? { last_payment: { amount: money(sub.last_payment.amount_cents), time: sub.last_payment.time } } : {}),
          ...(sub.last_failed_payment
            ? {
                last_failed_payment: {
                  amount: money(sub.last_failed_payment.amount_cents),
                  time: sub.last_failed_payment.time,
                  reason_code: "PAYMENT_DENIED",
                  ...(sub.last_failed_payment.next_payment_retry_time
                    ? { next_payment_retry_time: sub.last_failed_payment.next_payment_retry_time }
                    : {}),
                },
              }
            : {}),
          ...(sub.next_billing_time && (sub.status === "ACTIVE" || sub.status === "SUSPENDED") ? { next_billing_time: sub.next_billing_time } : {}),
          ...(sub.final_payment_time ? { final_payment_time: sub.final_payment_time } : {}),
          failed_payments_count: sub.failed_payments_count,
        },
      }
    : {};
  return {
    id: sub.id,
    plan_id: sub.plan_id,
    start_time: sub.start_time,
    quantity: sub.quantity,
    ...(sub.subscribed
      ? {
          subscriber: {
            name: BUYER.name,
            email_address: BUYER.email_address,
            payer_id: BUYER.payer_id,
          },
        }
      : {}),
    ...billingInfo,
    create_time: sub.create_time,
    update_time: sub.update_time,
    ...(sub.custom_id === undefined ? {} : { custom_id: sub.custom_id }),
    plan_overridden: sub.plan_overridden,
    links,
    status: sub.status,
    ...(sub.status_change_note === undefined ? {} : { status_change_note: sub.status_change_note }),
    status_update_time: sub.status_update_time,
  };
}

/* ------------------------------------------------------------------ sales (subscription payments, v1) */

export interface SaleRecord {
  id: string;
  subscription_id: string;
  /** DECLINED: a failed attempt (listed in the subscription's transactions, never refundable). */
  state: "completed" | "refunded" | "declined";
  amount_cents: number;
  custom?: string;
  refund_id?: string;
  create_time: string;
  update_time: string;
}

/** A sale as PAYMENT.SALE.COMPLETED carries it and GET /v1/payments/sale/{id} answers it. */
export function saleView(sale: SaleRecord, base: string) {
  return {
    id: sale.id,
    state: sale.state,
    amount: { total: moneyValue(sale.amount_cents), currency: CURRENCY, details: { subtotal: moneyValue(sale.amount_cents) } },
    payment_mode: "INSTANT_TRANSFER",
    protection_eligibility: "ELIGIBLE",
    protection_eligibility_type: "ITEM_NOT_RECEIVED_ELIGIBLE,UNAUTHORIZED_PAYMENT_ELIGIBLE",
    transaction_fee: { value: moneyValue(feeOf(sale.amount_cents)), currency: CURRENCY },
    billing_agreement_id: sale.subscription_id,
    // Required by the v1 definition; a subscription's sales have no payment of their own, so one derived from the sale.
    parent_payment: `PAYID-${sale.id}`,
    ...(sale.custom === undefined ? {} : { custom: sale.custom }),
    create_time: sale.create_time,
    update_time: sale.update_time,
    links: [
      link(`${base}/v1/payments/sale/${sale.id}`, "self"),
      link(`${base}/v1/payments/sale/${sale.id}/refund`, "refund", "POST"),
    ],
  };
}

/** A row of GET /v1/billing/subscriptions/{id}/transactions. */
export function transactionView(sale: SaleRecord) {
  const fee = sale.state === "declined" ? 0 : feeOf(sale.amount_cents);
  return {
    id: sale.id,
    status: sale.state === "completed" ? "COMPLETED" : sale.state === "refunded" ? "REFUNDED" : "DECLINED",
    amount_with_breakdown: {
      gross_amount: money(sale.amount_cents),
      fee_amount: money(fee),
      net_amount: money(sale.amount_cents - fee),
    },
    payer_name: BUYER.name,
    payer_email: BUYER.email_address,
    time: sale.create_time,
  };
}
