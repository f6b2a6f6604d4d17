import type { Database } from "../platform/db";
import { formatDate } from "../platform/dates";
import { DomainError } from "../platform/errors";
import { formatUsd } from "../payments/money";
import { writePdf } from "./pdf";

/*
 * Invoice downloads (commerce §7): crypto payments get a PDF we write; card and wallet payments
 * (Stripe) get the gateway's hosted invoice page. {id} is the transaction's id; only its owner may
 * have it, and the gateway (and wallet type) in the path must be the transaction's.
 */

export const INVOICE_MESSAGES = {
  notFound: "Invoice not found.",
} as const;

async function ownInvoice(db: Database, userId: number, transactionId: number, gateway: string) {
  const row = await db
    .selectFrom("transactions")
    .innerJoin("invoices", "invoices.transaction_id", "transactions.id")
    .innerJoin("plans", "plans.id", "transactions.plan_id")
    .innerJoin("users", "users.id", "transactions.user_id")
    .select([
      "transactions.id",
      "transactions.payment_gateway",
      "transactions.wallet_payment_type",
      "transactions.status",
      "invoices.number",
      "invoices.amount_cents",
      "invoices.created_at",
      "invoices.hosted_invoice_url",
      "plans.title",
      "users.email",
    ])
    .where("transactions.id", "=", transactionId)
    .where("transactions.user_id", "=", userId)
    .executeTakeFirst();
  if (!row || row.payment_gateway !== gateway) throw new DomainError("not_found", INVOICE_MESSAGES.notFound);
  return row;
}

/** The gateways whose invoices are our own PDFs (they have no hosted invoice page). */
export const PDF_INVOICE_GATEWAYS = ["bitpay", "paypal"];

/** The PDF of a crypto (BitPay) or PayPal payment's invoice. */
export async function cryptoInvoicePdf(db: Database, userId: number, transactionId: number, gateway: string): Promise<Buffer> {
  if (!PDF_INVOICE_GATEWAYS.includes(gateway)) throw new DomainError("not_found", INVOICE_MESSAGES.notFound);
  const row = await ownInvoice(db, userId, transactionId, gateway);
  const date = formatDate(row.created_at);
  return writePdf(
    [
      { text: "Invoice", size: 22 },
      { text: `Invoice number: ${row.number}`, gapBefore: 12 },
      { text: `Date: ${date}` },
      { text: `Customer: ${row.email}` },
      { text: `Plan: ${row.title}` },
      { text: `Amount: ${formatUsd(row.amount_cents)} USD` },
      { text: `Status: ${row.status === "Payment failed" ? "Payment failed" : "Paid"}` },
      { text: gateway === "paypal" ? "Paid with PayPal" : "Paid with crypto (BitPay)", gapBefore: 12 },
    ],
    `Invoice ${row.number}`,
  );
}

/** The hosted invoice page of a card or wallet payment. */
export async function hostedInvoiceUrl(
  db: Database,
  userId: number,
  transactionId: number,
  gateway: string,
  walletPaymentType: string,
): Promise<string> {
  const row = await ownInvoice(db, userId, transactionId, gateway);
  if (PDF_INVOICE_GATEWAYS.includes(gateway) || row.wallet_payment_type !== walletPaymentType || !row.hosted_invoice_url) {
    throw new DomainError("not_found", INVOICE_MESSAGES.notFound);
  }
  return row.hosted_invoice_url;
}
