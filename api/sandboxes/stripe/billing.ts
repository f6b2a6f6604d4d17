import { z } from "zod";
import { taxOfCustomer, totalTaxesOf } from "./tax";
import { CARD_MESSAGES, declineError, declineFor } from "./cards";
import { type DiscountSpec, applyCoupons, createDiscounts, discountApplies, resolveDiscounts, zDiscounts } from "./catalog";
import { type Ops, previousAttributes } from "./context";
import { paymentMethodFor, requireOwnPaymentMethod } from "./customers";
import { type SandboxError, cardError, invalidRequest } from "./errors";
import { newId } from "./ids";
import { priceText } from "./money";
import type {
  BillingReason,
  SbCoupon,
  SbDiscount,
  SbInvoice,
  SbInvoiceLine,
  SbPaymentIntent,
  SbPaymentMethod,
  SbPrice,
  SbSubscription,
  SubscriptionStatus,
} from "./objects";
import { applyMetadata, zBool, zId, zInt, zList, zListParams, zMetadata, zText } from "./params";
import { chargeIntent, newPaymentIntent, type paymentIntentConfirmParams } from "./payments";
import type { SandboxStore } from "./store";
import { addInterval } from "./time";

/* Subscriptions, their invoices, and renewals (what advance() runs). */

const NO_PAYMENT_METHOD =
  "This customer has no attached payment source or default payment method. Please consider adding a default payment method.";

export const subscriptionCreateParams = z.strictObject({
  customer: zId,
  items: zList(z.strictObject({ price: zId, quantity: zInt.pipe(z.number().min(1)).optional() })),
  default_payment_method: zText.optional(),
  payment_behavior: z.enum(["default_incomplete", "allow_incomplete", "error_if_incomplete"]).optional(),
  payment_settings: z.strictObject({ save_default_payment_method: z.enum(["off", "on_subscription"]).optional() }).optional(),
  discounts: zDiscounts.optional(),
  off_session: zBool.optional(),
  description: zText.optional(),
  metadata: zMetadata.optional(),
  automatic_tax: z.strictObject({ enabled: zBool }).optional(),
});

export const subscriptionUpdateParams = z.strictObject({
  cancel_at_period_end: zBool.optional(),
  // A free period until this time: no charge until then, and the billing cycle restarts there.
  trial_end: z.coerce.number().int().positive().optional(),
  proration_behavior: zText.optional(),
  default_payment_method: zText.optional(),
  description: zText.optional(),
  metadata: zMetadata.optional(),
});

export const subscriptionListParams = z.strictObject({
  customer: z.string().optional(),
  price: z.string().optional(),
  status: z.enum(["active", "past_due", "unpaid", "canceled", "incomplete", "incomplete_expired", "trialing", "all", "ended"]).optional(),
  ...zListParams,
});

export const invoiceListParams = z.strictObject({
  customer: z.string().optional(),
  subscription: z.string().optional(),
  status: z.enum(["draft", "open", "paid", "uncollectible", "void"]).optional(),
  ...zListParams,
});

/** invoices.update: only auto_advance (whether automatic collection, i.e. the retries, goes on). */
export const invoiceUpdateParams = z.strictObject({
  auto_advance: zBool,
});

export const invoicePayParams = z.strictObject({
  payment_method: zText.optional(),
  off_session: zBool.optional(),
});

// Periods ---------------------------------------------------------------------------------------

export function itemOf(sub: SbSubscription) {
  const item = sub.items.data[0];
  if (!item) throw new Error(`Subscription ${sub.id} has no item`);
  return item;
}

export function currentPeriodEnd(sub: SbSubscription): number {
  return itemOf(sub).current_period_end;
}

/** The end of the `n`th period after the billing anchor (calendar arithmetic from the anchor, as Stripe). */
function periodEndAfter(price: SbPrice, anchor: number, n: number): number {
  const recurring = price.recurring;
  if (!recurring) throw new Error(`Price ${price.id} is not recurring`);
  return addInterval(anchor, recurring.interval, recurring.interval_count * n);
}

function nextPeriodEnd(sub: SbSubscription): number {
  const item = itemOf(sub);
  let n = 1;
  let end = periodEndAfter(item.price, sub.billing_cycle_anchor, n);
  while (end <= item.current_period_end) end = periodEndAfter(item.price, sub.billing_cycle_anchor, ++n);
  return end;
}

// Invoices --------------------------------------------------------------------------------------

async function nextInvoiceNumber(store: SandboxStore): Promise<string> {
  // Runs under the writer lock: counting is enough to be unique.
  return `SBX-${String((await store.count("invoice")) + 1).padStart(4, "0")}`;
}

/** The discounts of a subscription that apply to an invoice, with their coupons. */
async function applicableDiscounts(
  ops: Ops,
  sub: SbSubscription,
  first: boolean,
  serviceStart: number,
): Promise<{ discount: SbDiscount; coupon: SbCoupon }[]> {
  const found: { discount: SbDiscount; coupon: SbCoupon }[] = [];
  for (const id of sub.discounts) {
    const discount = await ops.store.get("discount", id);
    const coupon = discount ? await ops.store.get("coupon", discount.source.coupon) : undefined;
    if (discount && coupon && discountApplies(coupon, discount, first, serviceStart)) found.push({ discount, coupon });
  }
  return found;
}

interface InvoiceDraft {
  invoice: SbInvoice;
  intent: SbPaymentIntent | null;
}

/** A subscription's invoice for one service period, finalized (open), with its PaymentIntent when it is not free. */
export async function buildSubscriptionInvoice(
  ops: Ops,
  sub: SbSubscription,
  opts: { reason: BillingReason; service: { start: number; end: number }; periodStart: number; periodEnd: number },
): Promise<InvoiceDraft> {
  const item = itemOf(sub);
  const first = opts.reason === "subscription_create";
  const customer = await ops.store.require("customer", sub.customer, "customer");
  const product = await ops.store.get("product", item.price.product);
  const discounts = await applicableDiscounts(ops, sub, first, opts.service.start);
  const subtotal = item.price.unit_amount * item.quantity;
  const { amounts, total: net } = applyCoupons(
    subtotal,
    discounts.map((d) => d.coupon),
  );
  // Stripe Tax on the discounted amount, by the customer's address and tax ids as they are now (tax.ts).
  const taxed = sub.automatic_tax.enabled ? taxOfCustomer(ops.taxRates, customer) : null;
  const taxes = taxed ? totalTaxesOf(net, taxed) : [];
  const total = net + taxes.reduce((sum, t) => sum + t.amount, 0);
  const discountAmounts = discounts.map((d, i) => ({ amount: amounts[i] ?? 0, discount: d.discount.id }));
  const id = newId("in_");
  const line: SbInvoiceLine = {
    id: newId("il_"),
    object: "line_item",
    amount: subtotal,
    currency: item.price.currency,
    description: `${item.quantity} × ${product?.name ?? item.price.product} (at ${priceText(item.price)})`,
    discount_amounts: discountAmounts,
    discountable: true,
    discounts: [],
    invoice: id,
    livemode: false,
    metadata: {},
    parent: {
      type: "subscription_item_details",
      subscription_item_details: { invoice_item: null, proration: false, subscription: sub.id, subscription_item: item.id },
    },
    period: opts.service,
    pricing: {
      type: "price_details",
      price_details: { price: item.price.id, product: item.price.product },
      unit_amount_decimal: item.price.unit_amount_decimal,
    },
    quantity: item.quantity,
    taxes,
  };
  const intent =
    total > 0
      ? newPaymentIntent(ops, {
          amount: total,
          currency: item.price.currency,
          customer: sub.customer,
          description: first ? "Subscription creation" : "Subscription update",
          payment_method: sub.default_payment_method,
          setup_future_usage: null,
          _invoice: id,
        })
      : null;
  const invoice: SbInvoice = {
    id,
    object: "invoice",
    created: ops.now,
    livemode: false,
    account_country: "US",
    account_name: "Stripe sandbox",
    automatic_tax: taxed
      ? { disabled_reason: null, enabled: true, liability: { type: "self" }, provider: "stripe", status: "complete" }
      : { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    total_taxes: taxes,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    billing_reason: opts.reason,
    collection_method: "charge_automatically",
    confirmation_secret: intent ? { client_secret: intent.client_secret, type: "payment_intent" } : null,
    currency: item.price.currency,
    customer: sub.customer,
    customer_email: customer.email,
    customer_name: customer.name,
    default_payment_method: null,
    description: null,
    discounts: discounts.map((d) => d.discount.id),
    due_date: null,
    effective_at: ops.now,
    ending_balance: 0,
    hosted_invoice_url: `${ops.publicUrl}/dev/stripe/invoices/${id}`,
    invoice_pdf: null,
    last_finalization_error: null,
    lines: { object: "list", data: [line], has_more: false, url: `/v1/invoices/${id}/lines` },
    metadata: {},
    next_payment_attempt: null,
    number: await nextInvoiceNumber(ops.store),
    parent: {
      type: "subscription_details",
      quote_details: null,
      subscription_details: { metadata: sub.metadata, subscription: sub.id },
    },
    payments: {
      object: "list",
      data: intent
        ? [
            {
              id: newId("inpay_"),
              object: "invoice_payment",
              amount_paid: null,
              amount_requested: total,
              created: ops.now,
              currency: item.price.currency,
              invoice: id,
              is_default: true,
              livemode: false,
              payment: { type: "payment_intent", payment_intent: intent.id },
              status: "open",
              status_transitions: { canceled_at: null, paid_at: null },
            },
          ]
        : [],
      has_more: false,
      url: `/v1/invoice_payments?invoice=${id}`,
    },
    period_end: opts.periodEnd,
    period_start: opts.periodStart,
    starting_balance: 0,
    status: "open",
    status_transitions: { finalized_at: ops.now, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal,
    subtotal_excluding_tax: subtotal,
    total,
    total_discount_amounts: discountAmounts,
    total_excluding_tax: net,
    webhooks_delivered_at: null,
  };
  return { invoice, intent };
}

export async function persistInvoice(ops: Ops, draft: InvoiceDraft): Promise<void> {
  if (draft.intent) await ops.store.insert("payment_intent", draft.intent);
  await ops.store.insert("invoice", draft.invoice);
  await ops.emit("invoice.created", draft.invoice);
  await ops.emit("invoice.finalized", draft.invoice);
}

function intentIdOf(invoice: SbInvoice): string | null {
  return invoice.payments.data[0]?.payment.payment_intent ?? null;
}

export async function markInvoicePaid(ops: Ops, invoice: SbInvoice, paidWith: string | null): Promise<SbInvoice> {
  invoice.status = "paid";
  // Paid (by a retry, the API or the hosted page): no further automatic tries.
  invoice.next_payment_attempt = null;
  invoice.amount_paid = invoice.amount_due;
  invoice.amount_remaining = 0;
  invoice.status_transitions.paid_at = ops.now;
  for (const payment of invoice.payments.data) {
    payment.status = "paid";
    payment.amount_paid = payment.amount_requested;
    payment.status_transitions.paid_at = ops.now;
  }
  await ops.store.save("invoice", invoice);
  await ops.emit("invoice.paid", invoice);
  await ops.emit("invoice.payment_succeeded", invoice);
  await settleSubscription(ops, invoice, paidWith);
  return invoice;
}

/** A paid latest invoice makes its subscription active (and saves the card on it when asked to). */
async function settleSubscription(ops: Ops, invoice: SbInvoice, paidWith: string | null): Promise<void> {
  const subId = invoice.parent?.subscription_details.subscription;
  const before = subId ? await ops.store.get("subscription", subId) : undefined;
  if (!before || before.latest_invoice !== invoice.id) return;
  const sub = structuredClone(before);
  if (sub.status === "incomplete" || sub.status === "past_due") sub.status = "active";
  if (paidWith && sub.payment_settings.save_default_payment_method === "on_subscription" && sub.status !== "canceled") {
    sub.default_payment_method = paidWith;
  }
  const changed = previousAttributes(before, sub);
  if (Object.keys(changed).length === 0) return;
  await ops.store.save("subscription", sub);
  await ops.emit("customer.subscription.updated", sub, changed);
}

export type InvoicePaymentResult =
  | { ok: true; invoice: SbInvoice }
  | { ok: false; invoice: SbInvoice; error: SandboxError; intent: SbPaymentIntent | null; needsAction: boolean };

export interface AttemptOptions {
  /** The customer is not there (renewals, retries, invoices.pay by default): 3-D Secure fails the attempt. */
  offSession: boolean;
  /** The confirm's return_url, for the 3-D Secure redirect. */
  returnUrl?: string | null;
  /** Automatic collection: after a failure, the next try is scheduled (next_payment_attempt). */
  schedule?: { retryDays: readonly number[]; previous: number | null };
}

/**
 * When automatic collection tries again after a failed try: `retryDays` days after the first failure
 * (the invoice is made, and first tried, at its period's end); null after the last. `previous` is the
 * scheduled time of the try that just failed (null for the first try).
 */
export function nextAttemptAfter(invoice: SbInvoice, retryDays: readonly number[], previous: number | null): number | null {
  const at = retryDays.map((days) => invoice.created + Math.round(days * 86_400));
  if (previous === null) return at[0] ?? null;
  const index = at.indexOf(previous);
  return index >= 0 ? (at[index + 1] ?? null) : null;
}

/** One attempt to collect an open invoice with `pm`; a failure is recorded (invoice.payment_failed), not thrown. */
export async function attemptInvoicePayment(ops: Ops, invoiceId: string, pm: SbPaymentMethod | null, opts: AttemptOptions): Promise<InvoicePaymentResult> {
  const invoice = await ops.store.require("invoice", invoiceId);
  if (invoice.status === "paid") return { ok: true, invoice };
  if (invoice.amount_due === 0) return { ok: true, invoice: await markInvoicePaid(ops, invoice, pm?.id ?? null) };
  const intentId = intentIdOf(invoice);
  const intent = intentId ? await ops.store.get("payment_intent", intentId) : undefined;
  if (!intent) throw new Error(`Invoice ${invoice.id} has no payment intent`);
  if (intent.status === "succeeded") return { ok: true, invoice: await markInvoicePaid(ops, invoice, intent.payment_method) };
  invoice.attempted = true;
  invoice.attempt_count += 1;
  if (opts.schedule) invoice.next_payment_attempt = nextAttemptAfter(invoice, opts.schedule.retryDays, opts.schedule.previous);
  if (!pm) {
    await ops.store.save("invoice", invoice);
    await ops.emit("invoice.payment_failed", invoice);
    return { ok: false, invoice, error: invalidRequest(NO_PAYMENT_METHOD), intent, needsAction: false };
  }
  const result = await chargeIntent(ops, intent, pm, { offSession: opts.offSession, returnUrl: opts.returnUrl ?? null });
  if (result.ok) return { ok: true, invoice: await markInvoicePaid(ops, invoice, pm.id) };
  await ops.store.save("invoice", invoice);
  // On-session (the first invoice, confirmed by the customer), asking for 3-D Secure is not a failed payment.
  if (!result.needsAction || opts.offSession) await ops.emit("invoice.payment_failed", invoice);
  if (result.needsAction) await ops.emit("invoice.payment_action_required", invoice);
  const error = result.needsAction
    ? cardError("invoice_payment_intent_requires_action", CARD_MESSAGES.invoiceRequiresAction, {
        payment_intent: await ops.render(result.intent),
      })
    : result.error;
  return { ok: false, invoice, error, intent: result.intent, needsAction: result.needsAction };
}

/** The card that pays a subscription's invoices: its own default, else its customer's. */
export async function defaultPaymentMethod(ops: Ops, sub: Pick<SbSubscription, "customer" | "default_payment_method">): Promise<SbPaymentMethod | null> {
  let id = sub.default_payment_method;
  if (!id) id = (await ops.store.get("customer", sub.customer))?.invoice_settings.default_payment_method ?? null;
  return id ? ((await ops.store.get("payment_method", id)) ?? null) : null;
}

/** POST /v1/invoices/:id/pay: a decline throws its card_error (after invoice.payment_failed). */
/**
 * Turns automatic collection of an invoice off or on (Stripe: `auto_advance`). Off, the scheduled
 * retries are skipped (next_payment_attempt stays, as at Stripe, but nothing runs it); the invoice
 * can still be paid by the API or its hosted page.
 */
export async function updateInvoice(ops: Ops, id: string, p: z.output<typeof invoiceUpdateParams>): Promise<SbInvoice> {
  const invoice = await ops.store.require("invoice", id);
  if (invoice.auto_advance === p.auto_advance) return invoice;
  invoice.auto_advance = p.auto_advance;
  await ops.store.save("invoice", invoice);
  await ops.emit("invoice.updated", invoice, { auto_advance: !p.auto_advance });
  return invoice;
}

export async function payInvoice(ops: Ops, id: string, p: z.output<typeof invoicePayParams>): Promise<SbInvoice> {
  const invoice = await ops.store.require("invoice", id);
  if (invoice.status === "paid") throw invalidRequest("Invoice is already paid.");
  if (invoice.status !== "open") throw invalidRequest(`You can only pay an open invoice; this one is ${invoice.status}.`);
  let pm: SbPaymentMethod | null = null;
  if (p.payment_method) {
    pm = await paymentMethodFor(ops, p.payment_method, invoice.customer, "payment_method");
  } else {
    const intentId = intentIdOf(invoice);
    const intent = intentId ? await ops.store.get("payment_intent", intentId) : undefined;
    const subId = invoice.parent?.subscription_details.subscription;
    const sub = subId ? await ops.store.get("subscription", subId) : undefined;
    const fromIntent = intent?.payment_method ? await ops.store.get("payment_method", intent.payment_method) : undefined;
    pm = fromIntent ?? (await defaultPaymentMethod(ops, sub ?? { customer: invoice.customer, default_payment_method: null }));
  }
  if (!pm && invoice.amount_due > 0) throw invalidRequest(NO_PAYMENT_METHOD);
  // As at Stripe, invoices.pay is off-session unless told otherwise.
  const result = await attemptInvoicePayment(ops, id, pm, { offSession: p.off_session ?? true });
  if (!result.ok) throw result.error;
  return result.invoice;
}

/**
 * Confirming an invoice's PaymentIntent directly (the confirmation_secret flow) pays the invoice. It is
 * on-session unless off_session: a card that asks for 3-D Secure answers the intent in requires_action.
 */
export async function confirmInvoiceIntent(ops: Ops, intent: SbPaymentIntent, p: z.output<typeof paymentIntentConfirmParams>): Promise<SbPaymentIntent> {
  if (!intent._invoice) throw new Error("not an invoice's payment intent");
  const invoice = await ops.store.require("invoice", intent._invoice);
  // Paid, void...: payInvoice answers Stripe's refusal.
  if (invoice.status !== "open") await payInvoice(ops, invoice.id, {});
  const pmId = p.payment_method ?? intent.payment_method;
  const pm = pmId ? await paymentMethodFor(ops, pmId, invoice.customer, "payment_method") : null;
  if (!pm) {
    throw invalidRequest(
      "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with the customer, provide payment_method.",
      { param: "payment_method", code: "payment_intent_unexpected_state" },
    );
  }
  const offSession = p.off_session === true;
  const result = await attemptInvoicePayment(ops, invoice.id, pm, { offSession, returnUrl: p.return_url ?? null });
  // A decline throws its card_error; 3-D Secure on-session answers the intent in requires_action.
  if (!result.ok && !(result.needsAction && !offSession)) throw result.error;
  return ops.store.require("payment_intent", intentIdOf(result.invoice) ?? intent.id);
}

export async function listInvoices(store: SandboxStore, p: z.output<typeof invoiceListParams>): Promise<SbInvoice[]> {
  const invoices = await store.list("invoice", p.customer);
  return invoices.filter(
    (invoice) =>
      (!p.subscription || invoice.parent?.subscription_details.subscription === p.subscription) &&
      (!p.status || invoice.status === p.status),
  );
}

// Subscriptions ---------------------------------------------------------------------------------

export async function createSubscription(ops: Ops, p: z.output<typeof subscriptionCreateParams>): Promise<SbSubscription> {
  const customer = await ops.store.require("customer", p.customer, "customer");
  const [first, ...others] = p.items;
  if (!first) throw invalidRequest("Missing required param: items.", { param: "items", code: "parameter_missing" });
  if (others.length > 0) throw invalidRequest("The Stripe sandbox supports one item per subscription.", { param: "items" });
  const price = await ops.store.require("price", first.price, "items[0][price]");
  if (price.type !== "recurring") {
    throw invalidRequest(
      "The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.",
      { param: "items[0][price]" },
    );
  }
  if (!price.active) {
    throw invalidRequest("The price specified is inactive. This field only accepts active prices.", { param: "items[0][price]" });
  }
  const quantity = first.quantity ?? 1;
  const ownPm = p.default_payment_method
    ? await requireOwnPaymentMethod(ops, p.default_payment_method, customer.id, "default_payment_method")
    : null;
  const behaviour = p.payment_behavior ?? "allow_incomplete";
  const specs: DiscountSpec[] = await resolveDiscounts(ops, p.discounts, customer.id);
  const payer = ownPm ?? (await defaultPaymentMethod(ops, { customer: customer.id, default_payment_method: null }));
  const firstTotal = applyCoupons(
    price.unit_amount * quantity,
    specs.map((s) => s.coupon),
  ).total;

  // error_if_incomplete leaves nothing behind when the first payment would fail: decide that first.
  if (behaviour === "error_if_incomplete" && firstTotal > 0) {
    if (!payer) throw invalidRequest(NO_PAYMENT_METHOD);
    const decline = declineFor(payer.card, ops.nowDate);
    if (decline) throw declineError(decline);
  }

  const id = newId("sub_");
  const start = ops.now;
  const end = periodEndAfter(price, start, 1);
  const discounts = await createDiscounts(ops, specs, { customer: customer.id, subscription: id });
  const sub: SbSubscription = {
    id,
    object: "subscription",
    created: start,
    livemode: false,
    application: null,
    automatic_tax: p.automatic_tax?.enabled ? { enabled: true, liability: { type: "self" } } : { enabled: false, liability: null },
    billing_cycle_anchor: start,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, reason: null },
    collection_method: "charge_automatically",
    currency: price.currency,
    customer: customer.id,
    days_until_due: null,
    default_payment_method: ownPm?.id ?? null,
    description: p.description ?? null,
    discounts: discounts.map((d) => d.id),
    ended_at: null,
    items: {
      object: "list",
      data: [
        {
          id: newId("si_"),
          object: "subscription_item",
          created: start,
          current_period_start: start,
          current_period_end: end,
          discounts: [],
          metadata: {},
          price,
          quantity,
          subscription: id,
        },
      ],
      has_more: false,
      url: `/v1/subscription_items?subscription=${id}`,
    },
    latest_invoice: null,
    metadata: applyMetadata({}, p.metadata),
    payment_settings: {
      payment_method_types: null,
      save_default_payment_method: p.payment_settings?.save_default_payment_method ?? "off",
    },
    pending_setup_intent: null,
    pending_update: null,
    start_date: start,
    status: "incomplete",
    test_clock: null,
    trial_end: null,
    trial_start: null,
  };
  // A first invoice's own period is the moment it is made; the line carries the service period.
  const draft = await buildSubscriptionInvoice(ops, sub, {
    reason: "subscription_create",
    service: { start, end },
    periodStart: start,
    periodEnd: start,
  });
  sub.latest_invoice = draft.invoice.id;
  await ops.store.insert("subscription", sub);
  await ops.emit("customer.subscription.created", sub);
  await persistInvoice(ops, draft);

  // The first invoice is paid with the customer there (on-session) unless off_session is given.
  const firstTry = { offSession: p.off_session === true };
  if (draft.invoice.amount_due === 0) {
    await attemptInvoicePayment(ops, draft.invoice.id, payer, firstTry);
  } else if (behaviour !== "default_incomplete" && payer) {
    const result = await attemptInvoicePayment(ops, draft.invoice.id, payer, firstTry);
    // error_if_incomplete was checked above: only a surprise gets here.
    if (!result.ok && behaviour === "error_if_incomplete") throw result.error;
  }
  return ops.store.require("subscription", id);
}

export async function updateSubscription(ops: Ops, id: string, p: z.output<typeof subscriptionUpdateParams>): Promise<SbSubscription> {
  const before = await ops.store.require("subscription", id);
  const ended = before.status === "canceled" || before.status === "incomplete_expired";
  if (ended && (p.cancel_at_period_end !== undefined || p.default_payment_method !== undefined)) {
    throw invalidRequest("A canceled subscription can only update its cancellation_details and metadata.");
  }
  const sub = structuredClone(before);
  if (p.cancel_at_period_end !== undefined && p.cancel_at_period_end !== sub.cancel_at_period_end) {
    sub.cancel_at_period_end = p.cancel_at_period_end;
    sub.cancel_at = p.cancel_at_period_end ? currentPeriodEnd(sub) : null;
    // Stripe's canceled_at is when cancellation was asked for, even before the period ends.
    sub.canceled_at = p.cancel_at_period_end ? ops.now : null;
    sub.cancellation_details.reason = p.cancel_at_period_end ? "cancellation_requested" : null;
  }
  if (p.default_payment_method !== undefined) {
    if (p.default_payment_method) {
      await requireOwnPaymentMethod(ops, p.default_payment_method, sub.customer, "default_payment_method");
    }
    sub.default_payment_method = p.default_payment_method;
  }
  if (p.trial_end !== undefined && p.trial_end !== sub.trial_end) {
    if (p.trial_end <= ops.now) throw invalidRequest("Invalid timestamp: must be an integer Unix timestamp in the future.", { param: "trial_end" });
    if (sub.status !== "active" && sub.status !== "trialing") throw invalidRequest("Only an active subscription can be given a trial.", { param: "trial_end" });
    sub.trial_start = sub.trial_start ?? ops.now;
    sub.trial_end = p.trial_end;
    sub.status = "trialing";
    sub.billing_cycle_anchor = p.trial_end;
    itemOf(sub).current_period_end = p.trial_end;
    if (sub.cancel_at_period_end) sub.cancel_at = p.trial_end;
  }
  if (p.description !== undefined) sub.description = p.description;
  sub.metadata = applyMetadata(sub.metadata, p.metadata);
  const changed = previousAttributes(before, sub);
  if (Object.keys(changed).length === 0) return sub;
  await ops.store.save("subscription", sub);
  await ops.emit("customer.subscription.updated", sub, changed);
  return sub;
}

async function endSubscription(ops: Ops, sub: SbSubscription, reason: "cancellation_requested" | "payment_failed"): Promise<SbSubscription> {
  sub.status = "canceled";
  sub.ended_at = ops.now;
  sub.canceled_at ??= ops.now;
  sub.cancel_at = null;
  sub.cancellation_details.reason = reason;
  await ops.store.save("subscription", sub);
  await ops.emit("customer.subscription.deleted", sub);
  return sub;
}

/** DELETE /v1/subscriptions/:id: ends it now. An incomplete one's unpaid first invoice is voided. */
export async function cancelSubscription(ops: Ops, id: string): Promise<SbSubscription> {
  const sub = await ops.store.require("subscription", id);
  if (sub.status === "canceled" || sub.status === "incomplete_expired") {
    throw invalidRequest(`This subscription has already been canceled (${id}).`);
  }
  if (sub.status === "incomplete" && sub.latest_invoice) {
    const invoice = await ops.store.get("invoice", sub.latest_invoice);
    if (invoice?.status === "open") {
      invoice.status = "void";
      invoice.status_transitions.voided_at = ops.now;
      for (const payment of invoice.payments.data) {
        payment.status = "canceled";
        payment.status_transitions.canceled_at = ops.now;
        const intent = await ops.store.get("payment_intent", payment.payment.payment_intent);
        if (intent && intent.status !== "succeeded") {
          await ops.store.save("payment_intent", { ...intent, status: "canceled", canceled_at: ops.now, cancellation_reason: "void_invoice" });
        }
      }
      await ops.store.save("invoice", invoice);
    }
  }
  sub.canceled_at = ops.now;
  return endSubscription(ops, sub, "cancellation_requested");
}

const LISTED_BY_DEFAULT: SubscriptionStatus[] = ["active", "trialing", "past_due", "unpaid", "incomplete"];

export async function listSubscriptions(store: SandboxStore, p: z.output<typeof subscriptionListParams>): Promise<SbSubscription[]> {
  const subs = await store.list("subscription", p.customer);
  return subs.filter((sub) => {
    if (p.price && sub.items.data[0]?.price.id !== p.price) return false;
    if (!p.status) return LISTED_BY_DEFAULT.includes(sub.status);
    if (p.status === "all") return true;
    if (p.status === "ended") return sub.status === "canceled" || sub.status === "incomplete_expired";
    return sub.status === p.status;
  });
}

/**
 * Runs what is due on one subscription at `ops.now`: the end of a period that was to end it (cancel
 * at period end, or still unpaid after a failed renewal), else one renewal. Returns the next period's
 * end when that is due too, else null. Re-reads the subscription under the lock, so running it twice
 * (or from two advance() calls) never renews a period twice.
 */
export async function runDueRenewal(
  ops: Ops,
  id: string,
  retryDays: readonly number[],
  // A subscription schedule's next phase (plan-changes.ts), applied before the renewal is invoiced.
  applySchedule?: (ops: Ops, sub: SbSubscription) => Promise<void>,
): Promise<number | null> {
  const sub = await ops.store.get("subscription", id);
  if (!sub || !RENEWABLE.includes(sub.status)) return null;
  const end = currentPeriodEnd(sub);
  if (end > ops.now) return null;
  // Everything happens at the period's end, as with Stripe's test clocks.
  const at = ops.at(end);
  if (sub.cancel_at_period_end) {
    await endSubscription(at, sub, "cancellation_requested");
    return null;
  }
  if (sub.status === "past_due") {
    await endSubscription(at, sub, "payment_failed");
    return null;
  }
  const before = structuredClone(sub);
  await applySchedule?.(at, sub);
  const item = itemOf(sub);
  const previousStart = item.current_period_start;
  const nextEnd = nextPeriodEnd(sub);
  item.current_period_start = end;
  item.current_period_end = nextEnd;
  const draft = await buildSubscriptionInvoice(at, sub, {
    reason: "subscription_cycle",
    service: { start: end, end: nextEnd },
    periodStart: previousStart,
    periodEnd: end,
  });
  sub.latest_invoice = draft.invoice.id;
  await ops.store.save("subscription", sub);
  await persistInvoice(at, draft);
  const result = await attemptInvoicePayment(at, draft.invoice.id, await defaultPaymentMethod(at, sub), {
    offSession: true,
    schedule: { retryDays, previous: null },
  });
  const after = await ops.store.require("subscription", id);
  if (!result.ok) after.status = "past_due";
  else if (after.status === "trialing") after.status = "active";
  await ops.store.save("subscription", after);
  await at.emit("customer.subscription.updated", after, previousAttributes(before, after));
  return after.status === "active" && nextEnd <= ops.now ? nextEnd : null;
}

/** The statuses whose period end brings a renewal (or the end). */
const RENEWABLE: SubscriptionStatus[] = ["active", "trialing", "past_due"];

/** The subscriptions with something due at `now`, soonest first. */
export async function dueSubscriptions(store: SandboxStore, now: number): Promise<{ id: string; due: number }[]> {
  return (await store.list("subscription"))
    .filter((sub) => RENEWABLE.includes(sub.status) && currentPeriodEnd(sub) <= now)
    .map((sub) => ({ id: sub.id, due: currentPeriodEnd(sub) }))
    .sort((a, b) => a.due - b.due || (a.id < b.id ? -1 : 1));
}

/**
 * One automatic retry of a failed renewal invoice (Stripe's Smart Retries, on a fixed schedule here),
 * at its next_payment_attempt. Re-reads the invoice under the lock, so a try runs once however many
 * advance() calls race. Paid: the subscription is active again, its periods unchanged. Failed: the next
 * try is scheduled, or none after the last (the subscription stays past_due). Returns the next try's time.
 */
export async function runDueRetry(ops: Ops, invoiceId: string, retryDays: readonly number[]): Promise<number | null> {
  const invoice = await ops.store.get("invoice", invoiceId);
  const scheduled = invoice?.next_payment_attempt ?? null;
  if (invoice?.status !== "open" || !invoice.auto_advance || scheduled === null || scheduled > ops.now) return null;
  const at = ops.at(scheduled);
  const subId = invoice.parent?.subscription_details.subscription;
  const sub = subId ? await ops.store.get("subscription", subId) : undefined;
  if (!sub || (sub.status !== "past_due" && sub.status !== "active")) {
    // The subscription ended: automatic collection stops.
    invoice.next_payment_attempt = null;
    await ops.store.save("invoice", invoice);
    return null;
  }
  const result = await attemptInvoicePayment(at, invoiceId, await defaultPaymentMethod(at, sub), {
    offSession: true,
    schedule: { retryDays, previous: scheduled },
  });
  const next = result.ok ? null : result.invoice.next_payment_attempt;
  return next !== null && next <= ops.now ? next : null;
}

/** The open invoices whose next automatic try is due at `now` (none while automatic collection is off). */
export async function dueRetries(store: SandboxStore, now: number): Promise<{ id: string; due: number }[]> {
  return (await store.list("invoice"))
    .filter((invoice) => invoice.status === "open" && invoice.auto_advance && invoice.next_payment_attempt !== null && invoice.next_payment_attempt <= now)
    .map((invoice) => ({ id: invoice.id, due: invoice.next_payment_attempt as number }));
}
