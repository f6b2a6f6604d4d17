import type { Database } from "../platform/db";
import { nextDocumentNumber } from "../payments/document-numbers";
import { vatShareOf } from "../payments/tax";

/*
 * A refund's credit note (issue 35, docs/decisions/060): a number of its own gap-free series
 * ('CN-2026-000007'), the invoice it corrects and the amount refunded, recorded in the transaction
 * that marks the payment refunded. One per invoice (credit_notes.invoice_id is unique): a second
 * call for the same invoice makes nothing. It records the VAT share it takes back (0027, decision 061).
 */
export async function issueCreditNote(
  trx: Database,
  refund: { transactionId: number; amountCents: number; now: Date },
): Promise<string | null> {
  const invoice = await trx
    .selectFrom("invoices")
    .leftJoin("credit_notes", "credit_notes.invoice_id", "invoices.id")
    .select([
      "invoices.id",
      "invoices.user_id",
      "invoices.currency",
      "invoices.amount_cents",
      "invoices.vat_cents",
      "credit_notes.number as credit_note_number",
    ])
    .where("invoices.transaction_id", "=", refund.transactionId)
    .executeTakeFirst();
  if (!invoice) return null;
  if (invoice.credit_note_number) return invoice.credit_note_number;
  const number = await nextDocumentNumber(trx, "CN", refund.now);
  // The VAT it takes back: the invoice's VAT share of the amount refunded (all of it for a full refund).
  const vat = vatShareOf(Number(invoice.amount_cents), Number(invoice.vat_cents ?? 0), refund.amountCents);
  await trx
    .insertInto("credit_notes")
    .values({
      number,
      user_id: invoice.user_id,
      invoice_id: invoice.id,
      amount_cents: refund.amountCents,
      net_cents: refund.amountCents - vat,
      vat_cents: vat,
      currency: invoice.currency,
      created_at: refund.now.toISOString(),
    })
    .execute();
  return number;
}
