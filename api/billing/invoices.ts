import type { SellerConfig } from "../platform/config";
import type { Database } from "../platform/db";
import { DomainError } from "../platform/errors";
import {
  DEFAULT_LANGUAGE,
  type Language,
  type MessageKey,
  type TextVars,
  asLanguage,
  countryNameIn,
  formatDateIn,
  formatMoney,
  formatNumberIn,
  translatorFor,
} from "../platform/i18n";
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
      "users.language as account_language",
    ])
    .where("transactions.id", "=", transactionId)
    .where("transactions.user_id", "=", userId)
    .executeTakeFirst();
  if (!row || row.payment_gateway !== gateway) throw new DomainError("not_found", INVOICE_MESSAGES.notFound);
  return row;
}

type InvoiceRow = Awaited<ReturnType<typeof ownInvoice>>;

/*
 * The PDF's words and figures in the account's language (docs/decisions/064): api/locales/<lng>/invoice.json,
 * money and dates by Intl (English exactly as before: '$107.76', '05 March, 2027'). What the invoice recorded
 * as text (the buyer, the payment method's name, the plan's title) prints as recorded.
 */
function invoiceTexts(lng: Language) {
  const translate = translatorFor(lng);
  const t = (key: string, vars?: TextVars) => translate(`invoice:${key}` as MessageKey, vars);
  return {
    t,
    lng,
    date: (at: string) => formatDateIn(lng, at),
    /** Cents as the PDF prints an amount: '$107.76', '-$9.99'. */
    money: (cents: number) => (cents < 0 ? `-${formatMoney(lng, -cents)}` : formatMoney(lng, cents)),
    /** A recorded rate ('19', '5.5') as the language writes it. */
    rate: (rate: string) => (lng === DEFAULT_LANGUAGE ? rate : formatNumberIn(lng, Number(rate))),
  };
}
type InvoiceTexts = ReturnType<typeof invoiceTexts>;

/** 'VAT rate' of a line: the recorded rate, or '–' where none was charged. */
function rateText(w: InvoiceTexts, rate: string | null): string {
  return rate === null ? "–" : `${w.rate(rate)} %`;
}

export function sellerParty(seller: SellerConfig, w: InvoiceTexts): PdfParty {
  return { name: seller.name, lines: [...seller.addressLines, w.t("vatNumber", { number: seller.vatId })] };
}

/** The buyer as the invoice recorded them; invoices made before 0025 name the account's email. */
export function buyerParty(
  row: Pick<InvoiceRow, "buyer_name" | "buyer_address" | "buyer_country" | "buyer_vat_number" | "buyer_email">,
  accountEmail: string,
  w: InvoiceTexts,
): PdfParty {
  const email = row.buyer_email ?? accountEmail;
  if (!row.buyer_name) return { name: email, lines: [] };
  const lines = (row.buyer_address ?? "").split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  if (row.buyer_country) lines.push(w.lng === DEFAULT_LANGUAGE ? countryName(row.buyer_country) : countryNameIn(w.lng, row.buyer_country));
  if (row.buyer_vat_number) lines.push(w.t("vatNumber", { number: row.buyer_vat_number }));
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
function vatLabel(w: InvoiceTexts, rate: string | null, country: string | null, reverseCharge: boolean): string {
  if (reverseCharge) return w.lng === DEFAULT_LANGUAGE ? REVERSE_CHARGE_LABEL : w.t("reverseCharged");
  if (rate === null) return w.t("vat");
  if (!country) return w.t("vatWithRate", { rate: w.rate(rate) });
  return w.t("vatWithRateCountry", { rate: w.rate(rate), country: w.lng === DEFAULT_LANGUAGE ? countryName(country) : countryNameIn(w.lng, country) });
}

function periodText(w: InvoiceTexts, row: Pick<InvoiceRow, "period_start" | "period_end">): string | undefined {
  if (!row.period_start || !row.period_end) return undefined;
  return w.t("period", { start: w.date(row.period_start), end: w.date(row.period_end) });
}

function vatNote(w: InvoiceTexts, rate: string | null, vat: number, reverseCharge: boolean, country: string | null): string {
  if (reverseCharge) return w.lng === DEFAULT_LANGUAGE ? REVERSE_CHARGE_NOTE : w.t("reverseChargeNote");
  if (rate === null && vat === 0) return w.lng === DEFAULT_LANGUAGE ? NO_VAT_NOTE : w.t("noVat");
  return w.t("vatCharged", { label: vatLabel(w, rate, country, false) });
}

function pdfLabels(w: InvoiceTexts): BillingPdf["labels"] {
  return {
    seller: w.t("seller"),
    billTo: w.t("billTo"),
    description: w.t("description"),
    net: w.t("net"),
    vatRate: w.t("vatRate"),
    vat: w.t("vat"),
    total: w.t("total"),
  };
}

export function invoicePdfContent(row: InvoiceRow, seller: SellerConfig): BillingPdf {
  const w = invoiceTexts(asLanguage(row.account_language));
  const { t, money } = w;
  const { net, vat, total, rate, country, reverseCharge } = invoiceAmounts(row);
  const title = row.plan_title ?? row.current_plan_title;
  const date = w.date(row.created_at);
  return {
    title: t("invoice"),
    infoTitle: t("invoiceInfo", { number: row.number }),
    date: new Date(row.created_at),
    lang: w.lng,
    labels: pdfLabels(w),
    facts: [
      [t("invoiceNumber"), row.number],
      [t("invoiceDate"), date],
      [t("supplyDate"), row.period_start ? w.date(row.period_start) : date],
      [t("paymentMethod"), row.payment_method ?? paymentMethodOf(w, row.payment_gateway, row.wallet_payment_type)],
      [t("status"), row.transaction_status === "refunded" ? t("paidRefunded") : t("paid")],
    ],
    seller: sellerParty(seller, w),
    buyer: buyerParty(row, row.account_email, w),
    items: [{ description: t("planLine", { plan: title }), detail: periodText(w, row), net: money(net), vatRate: rateText(w, rate), vat: money(vat), total: money(total) }],
    totals: [
      [t("net"), money(net)],
      [vatLabel(w, rate, country, reverseCharge), money(vat)],
      [t("totalUsd"), money(total)],
    ],
    notes: [vatNote(w, rate, vat, reverseCharge, country), t("currency")],
  };
}

function paymentMethodOf(w: InvoiceTexts, gateway: string, wallet: string | null): string {
  if (gateway === "paypal") return "PayPal";
  if (gateway === "bitpay") return w.t("crypto");
  return wallet === "applepay" ? "Apple Pay" : wallet === "googlepay" ? "Google Pay" : w.t("card");
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
  const w = invoiceTexts(asLanguage(row.account_language));
  const { t, money } = w;
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
      title: t("creditNote"),
      infoTitle: t("creditNoteInfo", { number: note.number }),
      date: new Date(note.created_at),
      lang: w.lng,
      labels: pdfLabels(w),
      facts: [
        [t("creditNoteNumber"), note.number],
        [t("date"), w.date(note.created_at)],
        [t("forInvoice"), row.number],
        [t("invoiceDate"), w.date(row.created_at)],
        [t("refundedTo"), row.payment_method ?? paymentMethodOf(w, row.payment_gateway, row.wallet_payment_type)],
      ],
      seller: sellerParty(seller, w),
      buyer: buyerParty(row, row.account_email, w),
      items: [
        {
          description: t("refundLine", { plan: title }),
          detail: periodText(w, row),
          net: money(creditNet),
          vatRate: rateText(w, rate),
          vat: money(creditVat),
          total: money(-refunded),
        },
      ],
      totals: [
        [t("net"), money(creditNet)],
        [vatLabel(w, rate, country, reverseCharge), money(creditVat)],
        [t("totalCredited"), money(-refunded)],
      ],
      notes: [t("cancels", { number: row.number }), vatNote(w, rate, vat, reverseCharge, country), t("currency")],
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
