import type { SellerConfig } from "../platform/config";
import type { Database } from "../platform/db";
import { formatDate } from "../platform/dates";
import { DomainError } from "../platform/errors";
import { formatUsd } from "../payments/money";
import { REVERSE_CHARGE_LABEL, REVERSE_CHARGE_NOTE } from "../payments/tax";
import { countryName } from "./countries";
import { type BillingPdf, type PdfParty, renderBillingPdf } from "./pdf";

/*
 * Invoices and credit notes (commerce §7, issue 35, docs/decisions/060). Every paid payment has our
 * invoice: a number of the gap-free INV series and what it says, both recorded with the payment
 * (api/payments/records.ts) and never changed afterwards; a refund adds a credit note of the CN
 * series (credit-notes.ts). The PDF prints what the rows recorded, with the seller's details from the
 * configuration. {id} is the transaction's id; only its owner may have it, and the gateway in the
 * path must be the transaction's. Card and wallet payments also keep the gateway's hosted invoice
 * page (GET /api/invoice/{id}/{gateway}/{wallet}).
 */

export const INVOICE_MESSAGES = {
  notFound: "Invoice not found.",
  creditNoteNotFound: "Credit note not found.",
} as const;

/** The line printed where no VAT was charged: truthful for every sale recorded before tax exists. */
export const NO_VAT_NOTE = "No VAT charged on this invoice.";

async function ownInvoice(db: Database, userId: number, transactionId: number, gateway: string) {
  const row = await db
    .selectFrom("transactions")
    .innerJoin("invoices", "invoices.transaction_id", "transactions.id")
    .innerJoin("plans", "plans.id", "transactions.plan_id")
    .innerJoin("users", "users.id", "transactions.user_id")
    .selectAll("invoices")
    .select([
      "transactions.payment_gateway",
      "transactions.wallet_payment_type",
      "transactions.status as transaction_status",
      "plans.title as current_plan_title",
      "users.email as account_email",
    ])
    .where("transactions.id", "=", transactionId)
    .where("transactions.user_id", "=", userId)
    .executeTakeFirst();
  if (!row || row.payment_gateway !== gateway) throw new DomainError("not_found", INVOICE_MESSAGES.notFound);
  return row;
}

type InvoiceRow = Awaited<ReturnType<typeof ownInvoice>>;

/** Cents as the PDF prints an amount: '$107.76'. */
function money(cents: number): string {
  return cents < 0 ? `-${formatUsd(-cents)}` : formatUsd(cents);
}

/** 'VAT rate' of a line: the recorded rate, or '–' where none was charged. */
function rateText(rate: string | null): string {
  return rate === null ? "–" : `${rate} %`;
}

export function sellerParty(seller: SellerConfig): PdfParty {
  return { name: seller.name, lines: [...seller.addressLines, `VAT number: ${seller.vatId}`] };
}

/** The buyer as the invoice recorded them; invoices made before 0025 name the account's email. */
export function buyerParty(row: Pick<InvoiceRow, "buyer_name" | "buyer_address" | "buyer_country" | "buyer_vat_number" | "buyer_email">, accountEmail: string): PdfParty {
  const email = row.buyer_email ?? accountEmail;
  if (!row.buyer_name) return { name: email, lines: [] };
  const lines = (row.buyer_address ?? "").split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  if (row.buyer_country) lines.push(countryName(row.buyer_country));
  if (row.buyer_vat_number) lines.push(`VAT number: ${row.buyer_vat_number}`);
  lines.push(email);
  return { name: row.buyer_name, lines };
}

/** What the invoice row says, with the amounts of older rows (net = total, no VAT). */
export function invoiceAmounts(row: Pick<InvoiceRow, "amount_cents" | "net_cents" | "vat_cents" | "vat_rate" | "tax_country" | "reverse_charge">) {
  const total = Number(row.amount_cents);
  const net = row.net_cents === null ? total : Number(row.net_cents);
  const vat = row.vat_cents === null ? 0 : Number(row.vat_cents);
  return { net, vat, total, rate: row.vat_rate, country: row.tax_country, reverseCharge: Number(row.reverse_charge ?? 0) === 1 };
}

/** The VAT line's words, as the quote says them: 'VAT 19 % (Germany)', 'VAT reverse charged', or 'VAT' where none applied. */
function vatLabel(rate: string | null, country: string | null, reverseCharge: boolean): string {
  if (reverseCharge) return REVERSE_CHARGE_LABEL;
  if (rate === null) return "VAT";
  return country ? `VAT ${rate} % (${countryName(country)})` : `VAT ${rate} %`;
}

function periodText(row: Pick<InvoiceRow, "period_start" | "period_end">): string | undefined {
  if (!row.period_start || !row.period_end) return undefined;
  return `Period: ${formatDate(row.period_start)} – ${formatDate(row.period_end)}`;
}

function vatNote(rate: string | null, vat: number, reverseCharge: boolean, country: string | null): string {
  if (reverseCharge) return REVERSE_CHARGE_NOTE;
  if (rate === null && vat === 0) return NO_VAT_NOTE;
  return `${vatLabel(rate, country, false)} charged on the net amount (prices exclude VAT).`;
}

export function invoicePdfContent(row: InvoiceRow, seller: SellerConfig): BillingPdf {
  const { net, vat, total, rate, country, reverseCharge } = invoiceAmounts(row);
  const title = row.plan_title ?? row.current_plan_title;
  const date = formatDate(row.created_at);
  return {
    title: "Invoice",
    infoTitle: `Invoice ${row.number}`,
    date: new Date(row.created_at),
    facts: [
      ["Invoice number", row.number],
      ["Invoice date", date],
      ["Date of supply", row.period_start ? formatDate(row.period_start) : date],
      ["Payment method", row.payment_method ?? paymentMethodOf(row.payment_gateway, row.wallet_payment_type)],
      ["Status", row.transaction_status === "refunded" ? "Paid, refunded" : "Paid"],
    ],
    seller: sellerParty(seller),
    buyer: buyerParty(row, row.account_email),
    items: [{ description: `VPN plan: ${title}`, detail: periodText(row), net: money(net), vatRate: rateText(rate), vat: money(vat), total: money(total) }],
    totals: [
      ["Net", money(net)],
      [vatLabel(rate, country, reverseCharge), money(vat)],
      ["Total (USD)", money(total)],
    ],
    notes: [vatNote(rate, vat, reverseCharge, country), "All amounts in US dollars (USD)."],
  };
}

function paymentMethodOf(gateway: string, wallet: string | null): string {
  if (gateway === "paypal") return "PayPal";
  if (gateway === "bitpay") return "Crypto (BitPay)";
  return wallet === "applepay" ? "Apple Pay" : wallet === "googlepay" ? "Google Pay" : "Card";
}

/** The PDF of a payment's invoice (every gateway). */
export async function invoicePdf(db: Database, seller: SellerConfig, userId: number, transactionId: number, gateway: string): Promise<{ number: string; pdf: Buffer }> {
  const row = await ownInvoice(db, userId, transactionId, gateway);
  return { number: row.number, pdf: await renderBillingPdf(invoicePdfContent(row, seller)) };
}

/** The PDF of the credit note of a refunded payment. */
export async function creditNotePdf(db: Database, seller: SellerConfig, userId: number, transactionId: number, gateway: string): Promise<{ number: string; pdf: Buffer }> {
  const row = await ownInvoice(db, userId, transactionId, gateway).catch(() => {
    throw new DomainError("not_found", INVOICE_MESSAGES.creditNoteNotFound);
  });
  const note = await db.selectFrom("credit_notes").selectAll().where("invoice_id", "=", row.id).executeTakeFirst();
  if (!note) throw new DomainError("not_found", INVOICE_MESSAGES.creditNoteNotFound);
  const { net, vat, total, rate, country, reverseCharge } = invoiceAmounts(row);
  const refunded = Number(note.amount_cents);
  // The credit note takes back what it recorded (0027: the VAT share of the amount refunded); older ones the
  // invoice's amounts in proportion.
  const share = total === 0 ? 0 : refunded / total;
  const creditVat = note.vat_cents !== null ? -Number(note.vat_cents) : -Math.round(vat * share);
  const creditNet = note.net_cents !== null ? -Number(note.net_cents) : -Math.round(net * share);
  const title = row.plan_title ?? row.current_plan_title;
  return {
    number: note.number,
    pdf: await renderBillingPdf({
      title: "Credit note",
      infoTitle: `Credit note ${note.number}`,
      date: new Date(note.created_at),
      facts: [
        ["Credit note", note.number],
        ["Date", formatDate(note.created_at)],
        ["For invoice", row.number],
        ["Invoice date", formatDate(row.created_at)],
        ["Refunded to", row.payment_method ?? paymentMethodOf(row.payment_gateway, row.wallet_payment_type)],
      ],
      seller: sellerParty(seller),
      buyer: buyerParty(row, row.account_email),
      items: [
        {
          description: `Refund: VPN plan ${title}`,
          detail: periodText(row),
          net: money(creditNet),
          vatRate: rateText(rate),
          vat: money(creditVat),
          total: money(-refunded),
        },
      ],
      totals: [
        ["Net", money(creditNet)],
        [vatLabel(rate, country, reverseCharge), money(creditVat)],
        ["Total credited (USD)", money(-refunded)],
      ],
      notes: [`This credit note cancels invoice ${row.number} for the amount refunded.`, vatNote(rate, vat, reverseCharge, country), "All amounts in US dollars (USD)."],
    }),
  };
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
  if (gateway !== "stripe" || row.wallet_payment_type !== walletPaymentType || !row.hosted_invoice_url) {
    throw new DomainError("not_found", INVOICE_MESSAGES.notFound);
  }
  return row.hosted_invoice_url;
}
