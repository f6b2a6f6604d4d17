import type { Stripe, StripeSetup } from "./client";

/**
 * Refunds a payment in full. The key derives from our transaction, so parallel posts and retries make
 * one refund; Stripe answers charge_already_refunded after its idempotency window.
 */
export function refundPayment(
  gateway: StripeSetup,
  /** transactionId: ours, or null for a payment never recorded (a second subscription refused at completion). */
  input: { paymentIntentId: string; transactionId: number | null; refundKey: string },
): Promise<Stripe.Refund> {
  const metadata: Stripe.MetadataParam = input.transactionId === null ? {} : { transaction_id: String(input.transactionId) };
  return gateway.stripe.refunds.create(
    { payment_intent: input.paymentIntentId, reason: "requested_by_customer", metadata },
    { idempotencyKey: input.refundKey },
  );
}
