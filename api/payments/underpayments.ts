import type { Database } from "../platform/db";
import { formatUsd } from "./money";

/*
 * Short crypto payments as our records keep them (moved from crypto.ts, now bitpay/payments.ts, so that the
 * billing history reads them without importing a gateway: docs/decisions/049).
 */

/** The gateway_ref of the failed transaction that records a short crypto payment: this prefix and BitPay's invoice id. */
export const SHORT_PAYMENT_PREFIX = "short:";
/** The gateway_ref of a crypto payment for a second recurring plan (one-subscription.ts): recorded, not applied. */
export const NOT_APPLIED_PREFIX = "not-applied:";

/** 'Underpaid: $5.99 of $11.99 arrived; $6.00 is missing. …' (the failed transaction's message). */
export function underpaidMessage(paidCents: number, dueCents: number): string {
  return (
    `Underpaid: ${formatUsd(paidCents)} of ${formatUsd(dueCents)} arrived; ${formatUsd(Math.max(0, dueCents - paidCents))} is missing. ` +
    "Pay the rest on the BitPay invoice while it is open, or ask for your money back on the help page."
  );
}

/** What the billing history says of a short crypto payment, and what it offers. */
export interface Underpayment {
  /** Our invoice id (the uuid): what a refund request names. */
  invoiceId: string;
  paidCents: number;
  dueCents: number;
  /** BitPay's invoice page while the invoice still takes payments ('new'); null once it has closed. */
  payUrl: string | null;
}

/**
 * The short payments among a user's transactions (gateway_refs), by gateway_ref. An invoice that was
 * paid in full in the end has none: its plan is running. BitPay keeps an underpaid invoice `new`, and
 * payable for the rest, until it expires; a new invoice for the missing amount alone is not made.
 */
export async function underpaymentsOf(db: Database, userId: number, gatewayRefs: readonly (string | null)[]): Promise<Map<string, Underpayment>> {
  const ids = gatewayRefs.flatMap((ref) => (ref?.startsWith(SHORT_PAYMENT_PREFIX) ? [ref.slice(SHORT_PAYMENT_PREFIX.length)] : []));
  const result = new Map<string, Underpayment>();
  if (ids.length === 0) return result;
  const [invoices, payments] = await Promise.all([
    db.selectFrom("crypto_invoices").selectAll().where("user_id", "=", userId).where("bitpay_invoice_id", "in", ids).execute(),
    db
      .selectFrom("transactions")
      .select(["gateway_ref", "amount_cents"])
      .where("user_id", "=", userId)
      .where("gateway_ref", "in", ids.map((id) => `${SHORT_PAYMENT_PREFIX}${id}`))
      .execute(),
  ]);
  for (const invoice of invoices) {
    const ref = `${SHORT_PAYMENT_PREFIX}${invoice.bitpay_invoice_id}`;
    const payment = payments.find((p) => p.gateway_ref === ref);
    if (!payment || invoice.activated_at) continue;
    result.set(ref, {
      invoiceId: invoice.uuid,
      paidCents: Number(payment.amount_cents),
      dueCents: Number(invoice.amount_cents),
      payUrl: invoice.status === "new" && invoice.invoice_url ? invoice.invoice_url : null,
    });
  }
  return result;
}
