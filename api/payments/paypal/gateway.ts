import { DomainError } from "../../platform/errors";
import { GatewayUnavailable, type PaymentGateway, recordedRenewal } from "../gateway";
import { renewalOf } from "../renewal-rule";
import { type PayPalDeps, cancelPayPalSubscription, refundPayPalPayment, setPayPalRenewal } from "./payments";

/*
 * PayPal's adapter (api/payments/gateway.ts): a PayPal subscription is suspended and reactivated at
 * PayPal, which retries an unpaid renewal itself (there is no invoice of ours to pay); its payments go
 * back through PayPal.
 */
export function paypalGateway(deps: PayPalDeps): PaymentGateway {
  return {
    name: "paypal",
    paysRenewalsHere: false,
    refundKind: "paypal",
    // A plan PayPal cannot bill as a subscription is one order that does not renew (the 2-year plan).
    renewsPlan: (plan) => renewalOf(plan, "paypal").renews,
    isPastDue: (row, now) => row.past_due_since !== null && row.grace_until !== null && row.grace_until > now.toISOString(),

    async setRenewal(row, renewing) {
      if (renewing === !row.cancel_at_period_end) return renewing;
      await setPayPalRenewal(deps, row, renewing);
      return renewing;
    },

    async cancel(row, { reason }) {
      if (row.paypal_sub_id) await cancelPayPalSubscription(deps, row.paypal_sub_id, reason);
    },

    /** An order's capture, or a subscription's sale (PayPal-Request-Id from the key: one refund); its subscription cancelled. */
    async refund(transaction, key) {
      try {
        const refund = await refundPayPalPayment(deps, { gatewayRef: transaction.gateway_ref ?? "", key });
        const subscription = transaction.subscription_id
          ? await deps.db.selectFrom("subscriptions").select("paypal_sub_id").where("id", "=", transaction.subscription_id).executeTakeFirst()
          : undefined;
        if (subscription?.paypal_sub_id) await cancelPayPalSubscription(deps, subscription.paypal_sub_id, "The payment was refunded.");
        return refund.id || null;
      } catch (error) {
        deps.logger.warn(`Refund of transaction ${transaction.id}: PayPal failed or did not answer (${String(error)}); the claim stays for a retry.`);
        throw new GatewayUnavailable("paypal");
      }
    },

    // PayPal names no card of ours.
    cardFingerprint: async () => null,
    payingCard: async () => null,

    // PayPal retries it itself: there is no invoice of ours to pay.
    openRenewal: async (row) => recordedRenewal(row),

    async payOpenRenewal() {
      throw new DomainError("not_found", "There is no unpaid invoice to pay.");
    },
  };
}
