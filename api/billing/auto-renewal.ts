import { type NoticeDeps, sendAutoRenewalConfirmation } from "./notices";
import { type NoRenewal, SubscriptionEndedAtGateway, gatewayFor, noRenewalOf } from "../payments/gateway";
import { DomainError } from "../platform/errors";

/*
 * Auto-renewal on or off (commerce §4, §9) for a recurring subscription, through the gateway that bills
 * it (gatewayFor, docs/decisions/049): a card subscription's `cancel_at_period_end` at Stripe, a PayPal
 * subscription suspended or reactivated at PayPal; our row is updated from the gateway's answer at once
 * (its webhook writes the same values again: both are idempotent).
 *
 * The 24-hour rule: auto-renewal must be turned off at least 24 hours before the end of the billing
 * cycle, because the renewal is committed by then. Turning it ON is allowed until the cycle ends:
 * it only asks for the renewal that the rule protects, so it can never dodge a charge. But it is
 * then binding: within the last 24 hours it cannot be switched off again for this cycle (the portal
 * says so before the customer confirms).
 *
 * Past due (a failed renewal within its grace period, docs/decisions/027): the renewal is already due,
 * so the switch acts on it instead (a card's open invoice: off stops Stripe's retries, `auto_advance:
 * false`) and the plan ends at the grace end (the dunning job cancels it) with no charge; on lets them run again.
 * A plan paid as one PayPal order (the 2-year plan) has no PayPal subscription: nothing to switch.
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

const NO_RENEWAL_MESSAGES: Record<NoRenewal, string> = {
  crypto: AUTO_RENEWAL_MESSAGES.crypto,
  one_time: AUTO_RENEWAL_MESSAGES.oneTime,
  paypal_order: AUTO_RENEWAL_MESSAGES.paypalOrder,
  not_card: AUTO_RENEWAL_MESSAGES.notCard,
};

/** Why a subscription's auto-renewal cannot be switched (AUTO_RENEWAL_MESSAGES), or null. */
export function noRenewalMessage(row: Parameters<typeof noRenewalOf>[0]): string | null {
  const why = noRenewalOf(row);
  return why ? NO_RENEWAL_MESSAGES[why] : null;
}

export async function setAutoRenewal(deps: NoticeDeps, userId: number, subscriptionId: number, type: AutoRenewalType): Promise<void> {
  const row = await deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("id", "=", subscriptionId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!row) throw new DomainError("not_found", AUTO_RENEWAL_MESSAGES.notFound);
  const refused = noRenewalMessage(row);
  if (refused) throw new DomainError("auto_renewal_unavailable", refused);
  // Its gateway is off (PayPal): nothing can switch it.
  const gateway = gatewayFor(deps.gateways, row);
  if (!gateway) throw new DomainError("auto_renewal_unavailable", AUTO_RENEWAL_MESSAGES.notCard);
  const now = deps.clock.now();
  const pastDue = gateway.isPastDue(row, now);
  if (!pastDue && new Date(row.sub_exp_date).getTime() <= now.getTime()) throw new DomainError("subscription_ended", AUTO_RENEWAL_MESSAGES.ended);

  const renewingNow = !row.cancel_at_period_end;
  const wantRenewing = type === "enable";
  if (!pastDue && !wantRenewing && renewingNow && !canDisableAt(row.sub_exp_date, now)) {
    throw new DomainError("auto_renewal_too_late", AUTO_RENEWAL_MESSAGES.tooLate);
  }

  let renewing: boolean;
  try {
    renewing = await gateway.setRenewal(row, wantRenewing, { pastDue });
  } catch (error) {
    if (error instanceof SubscriptionEndedAtGateway) throw new DomainError("subscription_ended", AUTO_RENEWAL_MESSAGES.ended);
    throw error;
  }
  // The confirmation with the date and time of the change, only when it changed. The setting changes only
  // here (we offer no Stripe customer portal), so the webhooks' updates merely echo this change. Turned off
  // while past due, the plan ends when the grace period does (not on the past renewal date).
  if (renewing !== renewingNow) {
    await sendAutoRenewalConfirmation(deps, pastDue && !renewing ? { ...row, sub_exp_date: row.grace_until! } : row, renewing, deps.clock.now());
  }
}
