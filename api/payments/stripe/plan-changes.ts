import type { Stripe, StripeSetup } from "./client";

// Plan changes at Stripe (docs/decisions/028): a move to a longer plan now, prorated and invoiced at
// once (previewed first with the same proration_date, so the charge is the amount shown); a move to a
// shorter plan at the next renewal, as a subscription schedule of two phases.

/** The invoice that moving the subscription to `price` now would make (nothing is changed). */
export function previewPriceChange(
  gateway: StripeSetup,
  input: { customer: string; subscription: string; itemId: string; price: string; prorationDate: number },
): Promise<Stripe.Invoice> {
  return gateway.stripe.invoices.createPreview({
    customer: input.customer,
    subscription: input.subscription,
    // Stripe Tax on the preview too, so the amount shown is the amount charged (the subscription has it on).
    automatic_tax: { enabled: true },
    subscription_details: {
      items: [{ id: input.itemId, price: input.price }],
      proration_behavior: "always_invoice",
      proration_date: input.prorationDate,
    },
  });
}

/**
 * Moves the subscription to `price` now: the unused time is credited, the new plan invoiced and
 * charged at once to the subscription's card; a card that fails changes nothing (error_if_incomplete).
 */
export function changePriceNow(
  gateway: StripeSetup,
  input: { subscription: string; itemId: string; price: string; prorationDate: number; metadata: Stripe.MetadataParam; key: string },
): Promise<Stripe.Subscription> {
  return gateway.stripe.subscriptions.update(
    input.subscription,
    {
      items: [{ id: input.itemId, price: input.price }],
      proration_behavior: "always_invoice",
      proration_date: input.prorationDate,
      payment_behavior: "error_if_incomplete",
      metadata: input.metadata,
    },
    { idempotencyKey: `${input.key}:change` },
  );
}

/**
 * Schedules the move to `price` at the end of the current period: a schedule made from the
 * subscription, its current phase kept to its end, then the new price (the phase's metadata names
 * the new plan on the subscription when it starts); released afterwards, so it renews as usual.
 */
export async function scheduleChangeAtRenewal(
  gateway: StripeSetup,
  input: {
    subscription: string;
    currentPrice: string;
    price: string;
    interval: Stripe.PriceCreateParams.Recurring;
    metadata: Stripe.MetadataParam;
    key: string;
  },
): Promise<Stripe.SubscriptionSchedule> {
  const schedule = await gateway.stripe.subscriptionSchedules.create(
    { from_subscription: input.subscription },
    { idempotencyKey: `${input.key}:schedule` },
  );
  const current = schedule.phases[0];
  if (!current) throw new Error(`Subscription schedule ${schedule.id} has no phase`);
  return gateway.stripe.subscriptionSchedules.update(
    schedule.id,
    {
      end_behavior: "release",
      phases: [
        { items: [{ price: input.currentPrice, quantity: 1 }], start_date: current.start_date, end_date: current.end_date },
        {
          items: [{ price: input.price, quantity: 1 }],
          duration: { interval: input.interval.interval as "month" | "year", interval_count: input.interval.interval_count ?? 1 },
          metadata: input.metadata,
        },
      ],
    },
    { idempotencyKey: `${input.key}:phases` },
  );
}

/** Lets the subscription go on as it is now: the pending change is dropped. */
export function releaseSchedule(gateway: StripeSetup, scheduleId: string): Promise<Stripe.SubscriptionSchedule> {
  return gateway.stripe.subscriptionSchedules.release(scheduleId);
}

export function retrieveSchedule(gateway: StripeSetup, scheduleId: string): Promise<Stripe.SubscriptionSchedule> {
  return gateway.stripe.subscriptionSchedules.retrieve(scheduleId);
}
