import { randomBytes } from "node:crypto";

/*
 * The sandbox's invoices in BitPay's shape, and what each simulated outcome does to one. Pure
 * functions: storage, serialization and delivery are elsewhere.
 *
 * Amounts are faithful to BitPay: `amountPaid` is in satoshis of the coin that paid (always BTC
 * here, at a fixed rate), with paymentTotals and exchangeRates beside it, so the product's client
 * converts them exactly as it does for live BitPay.
 */

/** A fixed BTC rate that makes one cent exactly 20 satoshis: no rounding anywhere. */
export const BTC_USD_RATE = 50_000;
const SATS_PER_CENT = 20;
const SATS_PER_BTC = 100_000_000;

/** BitPay's invoice window. */
export const INVOICE_LIFETIME_MS = 15 * 60_000;

export type SandboxStatus = "new" | "confirmed" | "expired";
export type SandboxException = false | "paidPartial" | "paidLate";

/** An invoice as the REST API answers it, without currentTime (added when answering). */
export interface SandboxInvoice {
  id: string;
  url: string;
  status: SandboxStatus;
  price: number;
  currency: "USD";
  itemDesc?: string;
  orderId?: string;
  posData?: string;
  invoiceTime: number;
  expirationTime: number;
  exceptionStatus: SandboxException;
  /** Satoshis received. */
  amountPaid: number;
  /** BTC received, as a decimal string. */
  displayAmountPaid: string;
  /** The coin that paid: null until something arrived. */
  transactionCurrency: "BTC" | null;
  paymentSubtotals: { BTC: number };
  paymentTotals: { BTC: number };
  exchangeRates: { BTC: { USD: number } };
  buyer: { email?: string };
  redirectURL?: string;
  closeURL?: string;
  notificationURL?: string;
  extendedNotifications: boolean;
}

export interface NewInvoiceParams {
  price: number;
  itemDesc?: string;
  orderId?: string;
  posData?: string;
  buyerEmail?: string;
  redirectURL?: string;
  closeURL?: string;
  notificationURL?: string;
  extendedNotifications?: boolean;
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const ID_LENGTH = 22;
export const INVOICE_ID_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{22}$/;

/** A BitPay-looking id: 22 random base58 characters (rejection sampling: no bias). */
export function newInvoiceId(): string {
  let out = "";
  while (out.length < ID_LENGTH) {
    for (const byte of randomBytes(ID_LENGTH * 2)) {
      if (byte < 232 && out.length < ID_LENGTH) out += BASE58[byte % 58];
    }
  }
  return out;
}

export const toCents = (price: number) => Math.round(price * 100);
const satsOfCents = (cents: number) => cents * SATS_PER_CENT;
export const centsOfSats = (sats: number) => Math.round(sats / SATS_PER_CENT);
const btcText = (sats: number) => String(sats / SATS_PER_BTC);

export function newInvoice(id: string, url: string, params: NewInvoiceParams, nowMs: number): SandboxInvoice {
  const due = satsOfCents(toCents(params.price));
  return {
    id,
    url,
    status: "new",
    price: params.price,
    currency: "USD",
    itemDesc: params.itemDesc,
    orderId: params.orderId,
    posData: params.posData,
    invoiceTime: nowMs,
    expirationTime: nowMs + INVOICE_LIFETIME_MS,
    exceptionStatus: false,
    amountPaid: 0,
    displayAmountPaid: "0",
    transactionCurrency: null,
    paymentSubtotals: { BTC: due },
    paymentTotals: { BTC: due },
    exchangeRates: { BTC: { USD: BTC_USD_RATE } },
    buyer: { email: params.buyerEmail },
    redirectURL: params.redirectURL,
    closeURL: params.closeURL,
    notificationURL: params.notificationURL,
    extendedNotifications: params.extendedNotifications ?? false,
  };
}

/** The invoice page's buttons (and advance()'s expiry). */
export type SandboxAction = "pay" | "expire" | "pay_short" | "pay_late";
export const ACTIONS: readonly SandboxAction[] = ["pay", "expire", "pay_short", "pay_late"];

/** A status that a notification announces (BitPay sends `paid` before `confirmed`). */
export type NotifiedStatus = "paid" | "confirmed" | "expired";

function received(invoice: SandboxInvoice, sats: number): Pick<SandboxInvoice, "amountPaid" | "displayAmountPaid" | "transactionCurrency"> {
  return { amountPaid: sats, displayAmountPaid: btcText(sats), transactionCurrency: sats > 0 ? "BTC" : invoice.transactionCurrency };
}

/** What an action makes of a `new` invoice, and the notifications it causes, in order. */
export function settle(invoice: SandboxInvoice, action: SandboxAction): { next: SandboxInvoice; notify: NotifiedStatus[] } {
  const due = invoice.paymentTotals.BTC;
  switch (action) {
    case "pay":
      return { next: { ...invoice, ...received(invoice, due), status: "confirmed", exceptionStatus: false }, notify: ["paid", "confirmed"] };
    case "pay_late":
      // As if the payment arrived after expiry: BitPay still confirms it, flagged paidLate.
      return { next: { ...invoice, ...received(invoice, due), status: "confirmed", exceptionStatus: "paidLate" }, notify: ["paid", "confirmed"] };
    case "pay_short": {
      // Half the price, rounded to cents; BitPay keeps an underpaid invoice `new` until it expires.
      const half = satsOfCents(Math.round(toCents(invoice.price) / 2));
      return { next: { ...invoice, ...received(invoice, half), status: "expired", exceptionStatus: "paidPartial" }, notify: ["expired"] };
    }
    case "expire":
      return { next: { ...invoice, status: "expired" }, notify: ["expired"] };
  }
}

/** The invoice as GET /invoices/:id answers it. */
export function apiView(invoice: SandboxInvoice, nowMs: number): SandboxInvoice & { currentTime: number } {
  return { ...invoice, currentTime: nowMs };
}

/**
 * The exact JSON text BitPay POSTs to notificationURL (its standard, "v1" IPN format), for an
 * invoice in `status`. Absent optional fields are left out, as BitPay does.
 */
export function notificationBody(invoice: SandboxInvoice, status: NotifiedStatus, nowMs: number): string {
  return JSON.stringify({
    id: invoice.id,
    url: invoice.url,
    posData: invoice.posData,
    status,
    price: invoice.price,
    currency: invoice.currency,
    invoiceTime: invoice.invoiceTime,
    expirationTime: invoice.expirationTime,
    currentTime: nowMs,
    exceptionStatus: invoice.exceptionStatus,
    buyerFields: invoice.buyer.email ? { buyerEmail: invoice.buyer.email } : {},
    paymentSubtotals: invoice.paymentSubtotals,
    paymentTotals: invoice.paymentTotals,
    exchangeRates: invoice.exchangeRates,
    amountPaid: invoice.amountPaid,
    orderId: invoice.orderId,
    transactionCurrency: invoice.transactionCurrency ?? undefined,
  });
}
