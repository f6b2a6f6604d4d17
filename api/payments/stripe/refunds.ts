import type { Stripe, StripeSetup } from "./client";

/**
 * Refunds a payment in full. The key derives from our transaction, so parallel posts and retries make
 * one refund; Stripe answers charge_already_refunded after its idempotency window.
 */
export function refundPayment(
  gateway: StripeSetup,
  input: { paymentIntentId: string; transactionId: number; refundKey: string },
): Promise<Stripe.Refund> {
  return gateway.stripe.refunds.create(
    { payment_intent: input.paymentIntentId, reason: "requested_by_customer", metadata: { transaction_id: String(input.transactionId) } },
    { idempotencyKey: input.refundKey },
  );
}
