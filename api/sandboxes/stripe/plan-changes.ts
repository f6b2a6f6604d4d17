import { z } from "zod";
import {
  attemptInvoicePayment,
  buildSubscriptionInvoice,
  cancelSubscription,
  currentPeriodEnd,
  defaultPaymentMethod,
  itemOf,
  persistInvoice,
} from "./billing";
import { CARD_MESSAGES, authenticationOf, declineError, declineFor } from "./cards";
import { type Ops, previousAttributes } from "./context";
import { cardError, invalidRequest } from "./errors";
import { newId } from "./ids";
import type { SbInvoice, SbInvoiceLine, SbPrice, SbSchedulePhase, SbSubscription, SbSubscriptionSchedule } from "./objects";
import { applyMetadata, zBool, zId, zInt, zList, zListParams, zMetadata } from "./params";
import { addInterval, isoDate } from "./time";
import { taxOfCustomer, totalTaxesOf } from "./tax";

/*
 * Plan changes (docs/decisions/028): a subscription moved to another price now, with proration
 * (POST /v1/subscriptions/:id with items[] and proration_behavior, previewed first with POST
 * /v1/invoices/create_preview), and Subscription Schedules, which change the price at the next
 * renewal (create from_subscription, update phases, release, cancel; advance() applies a phase when
 * the renewal that starts it comes due).
 *
 * Proration as the sandbox does it: the credit is the unused part of the current period, to the
 * second, of what the period's latest invoice paid; the new price is charged in full; a change of
 * price restarts the period (and the billing anchor) at the change, as a change of interval does at
 * Stripe. One invoice, billing_reason subscription_update, charged at once.
 *
 * Tax (issue 35, docs/decisions/061): with automatic_tax, the credit is of the net the period paid (its VAT
 * is not credited as price), and Stripe Tax taxes what the change owes (the new price less the credit) once,
 * at the customer's treatment as it is now: the new line keeps its VAT, the credit line carries the rest.
 */

const zProrationBehavior = z.enum(["always_invoice", "create_prorations", "none"]);
const zItemChange = z.strictObject({ id: zId.optional(), price: zId.optional(), quantity: zInt.pipe(z.number().min(1)).optional() });

/** POST /v1/subscriptions/:id when it carries items[]: a change of price. */
export const subscriptionPriceChangeParams = z.strictObject({
  items: zList(zItemChange),
  proration_behavior: zProrationBehavior.optional(),
  proration_date: zInt.optional(),
  // The sandbox changes nothing when the payment fails, whichever of these is sent.
  payment_behavior: z.enum(["error_if_incomplete", "pending_if_incomplete", "allow_incomplete"]).optional(),
  metadata: zMetadata.optional(),
});

/** Whether an update's parameters are a change of price (they name items). */
export function isPriceChange(params: unknown): boolean {
  return !!params && typeof params === "object" && "items" in params;
}

export const invoicePreviewParams = z.strictObject({
  customer: zId.optional(),
  subscription: zId,
  subscription_details: z
    .strictObject({
      items: zList(zItemChange).optional(),
      proration_behavior: zProrationBehavior.optional(),
      proration_date: zInt.optional(),
    })
    .optional(),
  automatic_tax: z.strictObject({ enabled: zBool }).optional(),
});

const zPhase = z.strictObject({
  items: zList(z.strictObject({ price: zId, quantity: zInt.pipe(z.number().min(1)).optional() })),
  start_date: z.union([z.literal("now"), zInt]).optional(),
  end_date: zInt.optional(),
  duration: z
    .strictObject({ interval: z.enum(["day", "week", "month", "year"]), interval_count: zInt.pipe(z.number().min(1)).optional() })
    .optional(),
  proration_behavior: zProrationBehavior.optional(),
  metadata: zMetadata.optional(),
});

export const scheduleCreateParams = z.strictObject({ from_subscription: zId, metadata: zMetadata.optional() });
export const scheduleUpdateParams = z.strictObject({
  phases: zList(zPhase).optional(),
  end_behavior: z.enum(["release", "cancel"]).optional(),
  proration_behavior: zProrationBehavior.optional(),
  metadata: zMetadata.optional(),
});
export const scheduleReleaseParams = z.strictObject({ preserve_cancel_date: zBool.optional() });
export const scheduleCancelParams = z.strictObject({ invoice_now: zBool.optional(), prorate: zBool.optional() });
export const scheduleListParams = z.strictObject({ customer: z.string().optional(), ...zListParams });

// Changes of price now -----------------------------------------------------------------------------

interface PlannedChange {
  before: SbSubscription;
  after: SbSubscription;
  invoice: SbInvoice;
  intent: Awaited<ReturnType<typeof buildSubscriptionInvoice>>["intent"];
}

async function newPriceOf(ops: Ops, sub: SbSubscription, items: z.output<typeof zItemChange>[]): Promise<{ price: SbPrice; quantity: number }> {
  const [change, ...others] = items;
  if (!change || others.length > 0) throw invalidRequest("The Stripe sandbox changes one item per subscription.", { param: "items" });
  const item = itemOf(sub);
  if (change.id && change.id !== item.id) throw invalidRequest(`Invalid subscription_item: ${change.id}`, { param: "items[0][id]" });
  const price = change.price ? await ops.store.require("price", change.price, "items[0][price]") : item.price;
  if (price.type !== "recurring" || !price.recurring) {
    throw invalidRequest("The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.", {
      param: "items[0][price]",
    });
  }
  if (price.currency !== sub.currency) throw invalidRequest("The price's currency must match the subscription's.", { param: "items[0][price]" });
  return { price, quantity: change.quantity ?? item.quantity };
}

/** What the latest invoice paid for the current period before tax (0 when it is unpaid or free). */
async function paidForPeriod(ops: Ops, sub: SbSubscription): Promise<number> {
  const invoice = sub.latest_invoice ? await ops.store.get("invoice", sub.latest_invoice) : undefined;
  if (invoice?.status !== "paid") return 0;
  const tax = (invoice.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
  return Math.max(0, invoice.amount_paid - tax);
}

/** The subscription after the change, and its invoice (not stored): the new price in full, less the unused time. */
async function planChange(
  ops: Ops,
  before: SbSubscription,
  p: { items: z.output<typeof zItemChange>[]; proration_behavior?: string; proration_date?: number; automatic_tax?: boolean },
): Promise<PlannedChange> {
  if (!["active", "trialing", "past_due"].includes(before.status)) {
    throw invalidRequest(`A ${before.status} subscription's price cannot be changed.`, { param: "items" });
  }
  const behaviour = p.proration_behavior ?? "create_prorations";
  if (behaviour === "create_prorations") {
    // Pending invoice items are not part of the sandbox: the change is invoiced at once or not prorated.
    throw invalidRequest("The Stripe sandbox prorates price changes with proration_behavior=always_invoice (or none).", {
      param: "proration_behavior",
    });
  }
  const { price, quantity } = await newPriceOf(ops, before, p.items);
  const oldItem = itemOf(before);
  const start = oldItem.current_period_start;
  const end = oldItem.current_period_end;
  const at = p.proration_date ?? ops.now;
  if (at < start || at > ops.now) {
    throw invalidRequest("proration_date must be within the current period and not in the future.", { param: "proration_date" });
  }
  const unused = end > start ? Math.max(0, end - at) / (end - start) : 0;
  const credit = behaviour === "none" ? 0 : Math.round((await paidForPeriod(ops, before)) * unused);

  const after = structuredClone(before);
  const item = itemOf(after);
  item.price = price;
  item.quantity = quantity;
  item.current_period_start = ops.now;
  item.current_period_end = addInterval(ops.now, price.recurring!.interval, price.recurring!.interval_count);
  after.billing_cycle_anchor = ops.now;
  if (after.status === "trialing") after.status = "active";
  if (after.cancel_at_period_end) after.cancel_at = item.current_period_end;
  // A preview may ask for Stripe Tax itself (create_preview's automatic_tax); the change keeps the subscription's.
  if (p.automatic_tax !== undefined) after.automatic_tax = p.automatic_tax ? { enabled: true, liability: { type: "self" } } : { enabled: false, liability: null };

  const { invoice, intent } = await buildSubscriptionInvoice(ops, after, {
    reason: "subscription_update",
    service: { start: item.current_period_start, end: item.current_period_end },
    periodStart: start,
    periodEnd: ops.now,
  });
  if (credit > 0) {
    const product = await ops.store.get("product", oldItem.price.product);
    const line: SbInvoiceLine = {
      id: newId("il_"),
      object: "line_item",
      amount: -credit,
      currency: before.currency,
      description: `Unused time on ${product?.name ?? oldItem.price.product} after ${isoDate(at)}`,
      discount_amounts: [],
      discountable: true,
      discounts: [],
      invoice: invoice.id,
      livemode: false,
      metadata: {},
      parent: {
        type: "subscription_item_details",
        subscription_item_details: { invoice_item: null, proration: true, subscription: before.id, subscription_item: oldItem.id },
      },
      period: { start: at, end },
      pricing: {
        type: "price_details",
        price_details: { price: oldItem.price.id, product: oldItem.price.product },
        unit_amount_decimal: String(-credit),
      },
      quantity: 1,
      taxes: [],
    };
    // The new period's line first, then the credit.
    invoice.lines.data.push(line);
    // Stripe Tax on what the change owes, once; the credit line carries the VAT it takes off the new line's.
    const netOwed = (invoice.total_excluding_tax ?? invoice.total) - credit;
    const customer = await ops.store.require("customer", after.customer, "customer");
    const taxes = after.automatic_tax.enabled ? totalTaxesOf(netOwed, taxOfCustomer(ops.taxRates, customer)) : [];
    const taxCents = taxes.reduce((sum, t) => sum + t.amount, 0);
    const newLineTax = (invoice.lines.data[0]?.taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
    const [rate] = taxes;
    if (rate) line.taxes = [{ ...rate, amount: taxCents - newLineTax, taxable_amount: -credit }];
    invoice.total_taxes = taxes;
    const owed = netOwed + taxCents;
    const due = Math.max(0, owed);
    invoice.subtotal -= credit;
    invoice.subtotal_excluding_tax = invoice.subtotal;
    invoice.total = owed;
    invoice.total_excluding_tax = netOwed;
    invoice.amount_due = due;
    invoice.amount_remaining = due;
    // More credit than the new price: the rest goes to the customer's balance, as at Stripe.
    invoice.ending_balance = Math.min(0, owed);
    if (intent) intent.amount = due;
    for (const payment of invoice.payments.data) payment.amount_requested = due;
  }
  after.latest_invoice = invoice.id;
  return { before, after, invoice, intent: invoice.amount_due > 0 ? intent : null };
}

/** POST /v1/invoices/create_preview: the invoice a change of price would make now, nothing stored. */
export async function previewInvoice(ops: Ops, p: z.output<typeof invoicePreviewParams>): Promise<SbInvoice> {
  const sub = await ops.store.require("subscription", p.subscription, "subscription");
  if (p.customer && p.customer !== sub.customer) throw invalidRequest("The subscription is not this customer's.", { param: "customer" });
  const details = p.subscription_details ?? {};
  const planned = await planChange(ops, sub, {
    items: details.items ?? [{}],
    proration_behavior: details.proration_behavior ?? "always_invoice",
    proration_date: details.proration_date,
    automatic_tax: p.automatic_tax?.enabled,
  });
  const invoice = planned.invoice;
  // A preview is a draft that no one can pay: no number, no payment, its own id prefix.
  invoice.id = `upcoming_${invoice.id}`;
  for (const line of invoice.lines.data) line.invoice = invoice.id;
  invoice.status = "draft";
  invoice.status_transitions.finalized_at = null;
  invoice.confirmation_secret = null;
  invoice.payments = { ...invoice.payments, data: [], url: `/v1/invoice_payments?invoice=${invoice.id}` };
  return invoice;
}

/** POST /v1/subscriptions/:id with items[]: the new price now, its prorated invoice charged at once. */
export async function changeSubscriptionPrice(
  ops: Ops,
  id: string,
  p: z.output<typeof subscriptionPriceChangeParams>,
): Promise<SbSubscription> {
  const before = await ops.store.require("subscription", id);
  if (before.schedule) {
    throw invalidRequest(
      `The subscription is managed by the subscription schedule \`${before.schedule}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`,
    );
  }
  const planned = await planChange(ops, before, { ...p, proration_behavior: p.proration_behavior ?? "create_prorations" });
  const payer = await defaultPaymentMethod(ops, before);
  // Nothing changes when the charge would fail: decide that first (error_if_incomplete's promise).
  if (planned.invoice.amount_due > 0) {
    if (!payer) {
      throw invalidRequest(
        "This customer has no attached payment source or default payment method. Please consider adding a default payment method.",
      );
    }
    const decline = declineFor(payer.card, ops.nowDate);
    if (decline) throw declineError(decline);
    // A card that asks for 3-D Secure on every charge cannot be charged without the customer: nothing changes.
    if (authenticationOf(payer.card) === "always") {
      throw cardError("authentication_required", CARD_MESSAGES.authenticationRequired, { decline_code: "authentication_required" });
    }
  }
  planned.after.metadata = applyMetadata(planned.after.metadata, p.metadata);
  await ops.store.save("subscription", planned.after);
  await persistInvoice(ops, { invoice: planned.invoice, intent: planned.intent });
  const result = await attemptInvoicePayment(ops, planned.invoice.id, payer, { offSession: true });
  if (!result.ok) throw result.error;
  const after = await ops.store.require("subscription", id);
  await ops.emit("customer.subscription.updated", after, previousAttributes(before, after));
  return after;
}

// Subscription schedules -------------------------------------------------------------------------

function phaseOf(price: SbPrice, quantity: number, start: number, end: number, metadata: Record<string, string>, defaultPm: string | null): SbSchedulePhase {
  return {
    add_invoice_items: [],
    application_fee_percent: null,
    billing_cycle_anchor: null,
    billing_thresholds: null,
    collection_method: null,
    currency: price.currency,
    default_payment_method: defaultPm,
    description: null,
    discounts: [],
    end_date: end,
    invoice_settings: null,
    items: [{ billing_thresholds: null, discounts: [], metadata: {}, plan: price.id, price: price.id, quantity }],
    metadata,
    on_behalf_of: null,
    proration_behavior: "create_prorations",
    start_date: start,
    transfer_data: null,
    trial_end: null,
  };
}

/** POST /v1/subscription_schedules with from_subscription: one phase, the current period at the current price. */
export async function createSchedule(ops: Ops, p: z.output<typeof scheduleCreateParams>): Promise<SbSubscriptionSchedule> {
  const before = await ops.store.require("subscription", p.from_subscription, "from_subscription");
  if (before.schedule) {
    throw invalidRequest(`You cannot migrate a subscription that is already attached to a schedule: \`${before.schedule}\`.`, {
      param: "from_subscription",
    });
  }
  if (!["active", "trialing", "past_due"].includes(before.status)) {
    throw invalidRequest(`A ${before.status} subscription cannot be attached to a schedule.`, { param: "from_subscription" });
  }
  const item = itemOf(before);
  const schedule: SbSubscriptionSchedule = {
    id: newId("sub_sched_"),
    object: "subscription_schedule",
    created: ops.now,
    livemode: false,
    application: null,
    billing_mode: { flexible: null, type: "classic" },
    canceled_at: null,
    completed_at: null,
    current_phase: { start_date: item.current_period_start, end_date: item.current_period_end },
    customer: before.customer,
    customer_account: null,
    default_settings: {
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: "automatic",
      billing_thresholds: null,
      collection_method: "charge_automatically",
      default_payment_method: before.default_payment_method,
      description: null,
      invoice_settings: { account_tax_ids: null, custom_fields: null, days_until_due: null, description: null, footer: null, issuer: { type: "self" } },
      on_behalf_of: null,
      transfer_data: null,
    },
    end_behavior: "release",
    metadata: applyMetadata({}, p.metadata),
    pause_schedules: [],
    phases: [phaseOf(item.price, item.quantity, item.current_period_start, item.current_period_end, {}, before.default_payment_method)],
    released_at: null,
    released_subscription: null,
    status: "active",
    subscription: before.id,
    test_clock: null,
  };
  await ops.store.insert("subscription_schedule", schedule);
  const after = { ...structuredClone(before), schedule: schedule.id };
  await ops.store.save("subscription", after);
  await ops.emit("customer.subscription.updated", after, previousAttributes(before, after));
  return schedule;
}

async function requireActiveSchedule(ops: Ops, id: string): Promise<SbSubscriptionSchedule> {
  const schedule = await ops.store.require("subscription_schedule", id);
  if (schedule.status !== "active" && schedule.status !== "not_started") {
    throw invalidRequest(`You cannot update a subscription schedule that is currently in the \`${schedule.status}\` status.`);
  }
  return schedule;
}

/** POST /v1/subscription_schedules/:id: new phases (the current one keeps its start), end behaviour, metadata. */
export async function updateSchedule(ops: Ops, id: string, p: z.output<typeof scheduleUpdateParams>): Promise<SbSubscriptionSchedule> {
  const schedule = structuredClone(await requireActiveSchedule(ops, id));
  if (p.phases) {
    const current = schedule.current_phase;
    const phases: SbSchedulePhase[] = [];
    let start = current?.start_date ?? ops.now;
    for (const [i, phase] of p.phases.entries()) {
      const [first, ...others] = phase.items;
      if (!first || others.length > 0) throw invalidRequest("The Stripe sandbox supports one item per phase.", { param: `phases[${i}][items]` });
      const price = await ops.store.require("price", first.price, `phases[${i}][items][0][price]`);
      if (!price.recurring) throw invalidRequest("A phase's price must be recurring.", { param: `phases[${i}][items][0][price]` });
      if (i === 0 && phase.start_date !== undefined && phase.start_date !== "now" && current && phase.start_date !== current.start_date) {
        throw invalidRequest("You can not modify the start date of the current phase.", { param: "phases[0][start_date]" });
      }
      const end =
        phase.end_date ??
        (phase.duration
          ? addInterval(start, phase.duration.interval, phase.duration.interval_count ?? 1)
          : addInterval(start, price.recurring.interval, price.recurring.interval_count));
      if (end <= start) throw invalidRequest("A phase must end after it starts.", { param: `phases[${i}][end_date]` });
      phases.push({
        ...phaseOf(price, first.quantity ?? 1, start, end, applyMetadata({}, phase.metadata), schedule.default_settings.default_payment_method),
        proration_behavior: phase.proration_behavior ?? "create_prorations",
      });
      start = end;
    }
    schedule.phases = phases;
  }
  if (p.end_behavior) schedule.end_behavior = p.end_behavior;
  schedule.metadata = applyMetadata(schedule.metadata, p.metadata);
  await ops.store.save("subscription_schedule", schedule);
  return schedule;
}

async function detach(ops: Ops, schedule: SbSubscriptionSchedule): Promise<void> {
  if (!schedule.subscription) return;
  const before = await ops.store.get("subscription", schedule.subscription);
  if (!before || before.schedule !== schedule.id) return;
  const after = { ...structuredClone(before), schedule: null };
  await ops.store.save("subscription", after);
  await ops.emit("customer.subscription.updated", after, previousAttributes(before, after));
}

/** POST /v1/subscription_schedules/:id/release: the subscription goes on as it is now, without the schedule. */
export async function releaseSchedule(ops: Ops, id: string): Promise<SbSubscriptionSchedule> {
  const schedule = structuredClone(await requireActiveSchedule(ops, id));
  await detach(ops, schedule);
  schedule.status = "released";
  schedule.released_at = ops.now;
  schedule.released_subscription = schedule.subscription;
  schedule.subscription = null;
  schedule.current_phase = null;
  await ops.store.save("subscription_schedule", schedule);
  return schedule;
}

/** POST /v1/subscription_schedules/:id/cancel: the schedule and its subscription end now. */
export async function cancelSchedule(ops: Ops, id: string): Promise<SbSubscriptionSchedule> {
  const schedule = structuredClone(await requireActiveSchedule(ops, id));
  schedule.status = "canceled";
  schedule.canceled_at = ops.now;
  schedule.current_phase = null;
  await ops.store.save("subscription_schedule", schedule);
  if (schedule.subscription) {
    const sub = await ops.store.get("subscription", schedule.subscription);
    if (sub && sub.status !== "canceled") {
      await ops.store.save("subscription", { ...sub, schedule: null });
      await cancelSubscription(ops, sub.id);
    }
  }
  return schedule;
}

/**
 * At a renewal (advance()): the schedule's phase that starts at the period's end takes over the
 * subscription (its price, the billing anchor there, the phase's metadata), so the renewal invoices
 * the new price; a schedule whose last phase has ended lets the subscription go (end_behavior
 * release). Changes `sub` in place; the caller saves it.
 */
export async function applyDueSchedulePhase(ops: Ops, sub: SbSubscription): Promise<void> {
  if (!sub.schedule) return;
  const schedule = await ops.store.get("subscription_schedule", sub.schedule);
  if (schedule?.status !== "active") return;
  const end = currentPeriodEnd(sub);
  const next = schedule.phases.find((phase) => phase.start_date === end);
  const last = schedule.phases[schedule.phases.length - 1];
  if (next) {
    const phaseItem = next.items[0];
    if (!phaseItem) return;
    const item = itemOf(sub);
    item.price = await ops.store.require("price", phaseItem.price);
    item.quantity = phaseItem.quantity;
    sub.billing_cycle_anchor = end;
    sub.metadata = { ...sub.metadata, ...next.metadata };
    schedule.current_phase = { start_date: next.start_date, end_date: next.end_date };
    await ops.store.save("subscription_schedule", schedule);
  } else if (!last || last.end_date <= end) {
    // end_behavior cancel is not used by the product: the sandbox releases either way.
    sub.schedule = null;
    await ops.store.save("subscription_schedule", {
      ...schedule,
      status: "released",
      released_at: end,
      released_subscription: sub.id,
      subscription: null,
      current_phase: null,
    });
  }
}

export async function listSchedules(ops: { store: Ops["store"] }, p: z.output<typeof scheduleListParams>): Promise<SbSubscriptionSchedule[]> {
  return ops.store.list("subscription_schedule", p.customer);
}
