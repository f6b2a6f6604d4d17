import { type NoticeDeps, sendAutoRenewalConfirmation } from "./notices";
import { recordSubscriptionState } from "../payments/records";
import { type Stripe, isInvalidRequest } from "../payments/stripe/client";
import { setInvoiceCollection } from "../payments/stripe/invoices";
import { setRenewal } from "../payments/stripe/subscriptions";
import { DomainError } from "../platform/errors";
import { setPayPalRenewal } from "../payments/paypal/payments";
import type { Subscription } from "../platform/db/schema";

/*
 * Auto-renewal on or off (commerce §4, §9) for a recurring card subscription, through Stripe:
 * `cancel_at_period_end` at the gateway, and our row updated from Stripe's answer at once (the
 * customer.subscription.updated webhook writes the same values again: both are idempotent).
 *
 * The 24-hour rule: auto-renewal must be turned off at least 24 hours before the end of the billing
 * cycle, because the renewal is committed by then. Turning it ON is allowed until the cycle ends:
 * it only asks for the renewal that the rule protects, so it can never dodge a charge. But it is
 * then binding: within the last 24 hours it cannot be switched off again for this cycle (the portal
 * says so before the customer confirms).
 *
 * Past due (a failed renewal within its grace period, docs/decisions/027): the renewal is already due,
 * so the switch acts on its open invoice instead: off stops Stripe's retries (`auto_advance: false`) and
 * the plan ends at the grace end (the dunning job cancels it) with no charge; on lets them run again.
 */

export const AUTO_RENEWAL_MESSAGES = {
  updated: "Auto-renewal updated successfully",
  tooLate: "Auto-renewal must be turned off at least 24 hours before the end of the billing cycle.",
  notFound: "Subscription not found.",
  crypto: "Crypto plans do not renew automatically: they are renewed by paying the invoice we email 3 days before the plan ends.",
  oneTime: "A one-time plan does not renew.",
  notCard: "Auto-renewal is managed only for subscriptions paid by card.",
  paypalOrder: "This plan was paid once with PayPal and does not renew.",
  ended: "This subscription has ended.",
} as const;

export const AUTO_RENEWAL_NOTICE_MS = 24 * 60 * 60 * 1000;

export type AutoRenewalType = "enable" | "disable";

/** Whether turning auto-renewal off is still allowed at `now` for a cycle ending at `cycleEnd`. */
export function canDisableAt(cycleEnd: string | Date, now: Date): boolean {
  return new Date(cycleEnd).getTime() - now.getTime() >= AUTO_RENEWAL_NOTICE_MS;
}

export async function setAutoRenewal(deps: NoticeDeps, userId: number, subscriptionId: number, type: AutoRenewalType): Promise<void> {
  const row = await deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("id", "=", subscriptionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) throw new DomainError("not_found", AUTO_RENEWAL_MESSAGES.notFound);
  if (row.subscription_by === "bitpay") throw new DomainError("auto_renewal_unavailable", AUTO_RENEWAL_MESSAGES.crypto);
  if (row.billing_type === "single") throw new DomainError("auto_renewal_unavailable", AUTO_RENEWAL_MESSAGES.oneTime);
  if (row.subscription_by === "paypal") return setPayPalAutoRenewal(deps, row, type);
  if (row.subscription_by !== "stripe" || !row.stripe_sub_id) throw new DomainError("auto_renewal_unavailable", AUTO_RENEWAL_MESSAGES.notCard);
  const now = deps.clock.now();
  if (row.past_due_invoice_id && row.grace_until && row.grace_until > now.toISOString()) {
    return setPastDueCollection(deps, row, row.past_due_invoice_id, type === "enable");
  }
  if (new Date(row.sub_exp_date).getTime() <= now.getTime()) throw new DomainError("subscription_ended", AUTO_RENEWAL_MESSAGES.ended);

  const renewingNow = !row.cancel_at_period_end;
  const wantRenewing = type === "enable";
  if (!wantRenewing && renewingNow && !canDisableAt(row.sub_exp_date, now)) {
    throw new DomainError("auto_renewal_too_late", AUTO_RENEWAL_MESSAGES.tooLate);
  }

  let updated: Stripe.Subscription;
  try {
    updated = await setRenewal(deps.gateway, row.stripe_sub_id, wantRenewing);
  } catch (error) {
    // Stripe refuses to change a canceled subscription.
    if (isInvalidRequest(error)) throw new DomainError("subscription_ended", AUTO_RENEWAL_MESSAGES.ended);
    throw error;
  }
  const renewing = !updated.cancel_at_period_end && ["active", "trialing", "past_due"].includes(updated.status);
  const at = deps.clock.now();
  await recordSubscriptionState(deps.db, { stripeSubId: row.stripe_sub_id, renewing, now: at });
  // The confirmation with the date and time of the change, only when it changed. The setting changes only
  // here: we offer no Stripe customer portal, so the webhook's updates merely echo this change.
  if (renewing !== renewingNow) await sendAutoRenewalConfirmation(deps, row, renewing, at);
}

async function setPastDueCollection(deps: NoticeDeps, row: Subscription, invoiceId: string, wantRenewing: boolean): Promise<void> {
  const renewingNow = !row.cancel_at_period_end;
  let invoice: Stripe.Invoice;
  try {
    invoice = await setInvoiceCollection(deps.gateway, invoiceId, wantRenewing);
  } catch (error) {
    // Paid, or ended with its subscription, meanwhile.
    if (isInvalidRequest(error)) throw new DomainError("subscription_ended", AUTO_RENEWAL_MESSAGES.ended);
    throw error;
  }
  const renewing = invoice.status === "open" && invoice.auto_advance !== false;
  const at = deps.clock.now();
  await recordSubscriptionState(deps.db, { stripeSubId: row.stripe_sub_id!, renewing, now: at });
  // Turned off, the plan ends when the grace period does (not on the past renewal date).
  if (renewing !== renewingNow) {
    await sendAutoRenewalConfirmation(deps, renewing ? row : { ...row, sub_exp_date: row.grace_until! }, renewing, at);
  }
}

/**
 * A PayPal subscription: off suspends it at PayPal (nothing more is billed; the paid period runs out),
 * on reactivates it (PayPal bills again at its next billing time). The same 24-hour rule as for cards.
 * A plan paid as one PayPal order (the 2-year plan) has no PayPal subscription: nothing to switch.
 */
async function setPayPalAutoRenewal(deps: NoticeDeps, row: Subscription, type: AutoRenewalType): Promise<void> {
  if (!row.paypal_sub_id) throw new DomainError("auto_renewal_unavailable", AUTO_RENEWAL_MESSAGES.paypalOrder);
  if (!deps.paypal) throw new DomainError("auto_renewal_unavailable", AUTO_RENEWAL_MESSAGES.notCard);
  const now = deps.clock.now();
  const pastDue = row.past_due_since !== null && row.grace_until !== null && row.grace_until > now.toISOString();
  if (!pastDue && new Date(row.sub_exp_date).getTime() <= now.getTime()) throw new DomainError("subscription_ended", AUTO_RENEWAL_MESSAGES.ended);
  const renewingNow = !row.cancel_at_period_end;
  const wantRenewing = type === "enable";
  if (!pastDue && !wantRenewing && renewingNow && !canDisableAt(row.sub_exp_date, now)) {
    throw new DomainError("auto_renewal_too_late", AUTO_RENEWAL_MESSAGES.tooLate);
  }
  if (wantRenewing === renewingNow) return;
  await setPayPalRenewal(deps.paypal, row, wantRenewing);
  await sendAutoRenewalConfirmation(deps, pastDue && !wantRenewing ? { ...row, sub_exp_date: row.grace_until! } : row, wantRenewing, deps.clock.now());
}
