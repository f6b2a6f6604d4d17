import { z } from "zod";

/*
 * The product's BitPay client: the POS-facade subset (create an invoice, fetch one) as a thin layer
 * over fetch, used against live BitPay and against the crypto sandbox alike (only baseUrl differs).
 * We do not use bitpay-sdk: it is little used, pulls `elliptic`, and the POS facade needs no request
 * signing, only the token in the body or query.
 *
 * The token is a credential: it never appears in an error message or a log line.
 */

export type BitPayStatus = "new" | "paid" | "confirmed" | "complete" | "expired" | "invalid" | "declined";

export interface BitPayInvoice {
  id: string;
  url: string;
  status: BitPayStatus;
  /** In `currency`, e.g. 107.76. */
  price: number;
  /** "USD". */
  currency: string;
  orderId: string | null;
  posData: string | null;
  /** Milliseconds since the epoch, as BitPay. */
  invoiceTime: number;
  expirationTime: number;
  currentTime: number;
  exceptionStatus: false | "paidPartial" | "paidOver" | "paidLate";
  /** What arrived, in `currency`: see amountPaidOf() for how it is derived from BitPay's answer. */
  amountPaid: number;
  buyer: { email: string | null };
  redirectURL: string | null;
  closeURL: string | null;
  notificationURL: string | null;
}

export interface CreateInvoiceParams {
  price: number;
  currency: "USD";
  orderId: string;
  itemDesc: string;
  buyerEmail: string;
  notificationURL: string;
  redirectURL: string;
  closeURL: string;
  posData?: string;
}

export interface BitPayClient {
  createInvoice(params: CreateInvoiceParams): Promise<BitPayInvoice>;
  getInvoice(id: string): Promise<BitPayInvoice>;
}

/** A refused or failed BitPay call: `status` is BitPay's HTTP status, null when BitPay was not reached (network, timeout). */
export class BitPayError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = "BitPayError";
  }
}

const API_VERSION = "2.0.0";
const DEFAULT_TIMEOUT_MS = 15_000;
/** BitPay's error texts are shown in logs: keep a runaway one short. */
const MAX_ERROR_LENGTH = 300;

const STATUSES = ["new", "paid", "confirmed", "complete", "expired", "invalid", "declined"] as const;
const PAID_STATUSES: ReadonlySet<BitPayStatus> = new Set(["paid", "confirmed", "complete"]);
const EXCEPTIONS = ["paidPartial", "paidOver", "paidLate"] as const;

const text = z.string().nullish();

/** The fields we read from BitPay's invoice (it sends many more; they are ignored). */
const invoiceSchema = z.object({
  id: z.string().min(1),
  url: z.string(),
  status: z.enum(STATUSES),
  price: z.number(),
  currency: z.string(),
  orderId: text,
  posData: text,
  invoiceTime: z.number(),
  expirationTime: z.number(),
  currentTime: z.number(),
  exceptionStatus: z.union([z.boolean(), z.string()]).nullish(),
  /** In the smallest unit of transactionCurrency (satoshis for BTC), not in `currency`. */
  amountPaid: z.number().nullish(),
  /** In transactionCurrency units, as a decimal string ("0.0021552"). */
  displayAmountPaid: z.union([z.string(), z.number()]).nullish(),
  transactionCurrency: text,
  /** What is due per payment currency (miner fee included), in its smallest unit. */
  paymentTotals: z.record(z.string(), z.number()).nullish(),
  exchangeRates: z.record(z.string(), z.record(z.string(), z.number())).nullish(),
  buyer: z.object({ email: text }).nullish(),
  buyerProvidedEmail: text,
  redirectURL: text,
  closeURL: text,
  notificationURL: text,
});
type RawInvoice = z.infer<typeof invoiceSchema>;

const answerSchema = z.object({ data: invoiceSchema });

const roundCents = (amount: number) => Math.round((amount + Number.EPSILON) * 100) / 100;

/**
 * What arrived, in the invoice's currency. BitPay's own `amountPaid` is in the smallest unit of the
 * coin that paid (satoshis, wei, ...), so it is converted:
 *  1. by the share of what was due in that coin: price × amountPaid / paymentTotals[coin] (exact,
 *     and needs no table of coin decimals);
 *  2. else displayAmountPaid (coin units) × exchangeRates[coin][currency];
 *  3. else the price when the status says paid (paid, confirmed, complete), 0 otherwise.
 * The crypto sandbox answers the same fields (a fixed BTC rate), so this runs against it too.
 */
function amountPaidOf(raw: RawInvoice): number {
  const coin = raw.transactionCurrency;
  if (coin && typeof raw.amountPaid === "number") {
    const due = raw.paymentTotals?.[coin];
    if (due && due > 0) return roundCents((raw.price * raw.amountPaid) / due);
    const rate = raw.exchangeRates?.[coin]?.[raw.currency];
    const shown = raw.displayAmountPaid === null || raw.displayAmountPaid === undefined ? Number.NaN : Number(raw.displayAmountPaid);
    if (rate && Number.isFinite(shown)) return roundCents(shown * rate);
  }
  return PAID_STATUSES.has(raw.status) ? raw.price : 0;
}

/** An exception BitPay may add later (e.g. "marked") is not one the product acts on: false. */
function exceptionOf(value: RawInvoice["exceptionStatus"]): BitPayInvoice["exceptionStatus"] {
  return (EXCEPTIONS as readonly string[]).includes(value as string) ? (value as (typeof EXCEPTIONS)[number]) : false;
}

function toInvoice(raw: RawInvoice): BitPayInvoice {
  return {
    id: raw.id,
    url: raw.url,
    status: raw.status,
    price: raw.price,
    currency: raw.currency,
    orderId: raw.orderId ?? null,
    posData: raw.posData ?? null,
    invoiceTime: raw.invoiceTime,
    expirationTime: raw.expirationTime,
    currentTime: raw.currentTime,
    exceptionStatus: exceptionOf(raw.exceptionStatus),
    amountPaid: amountPaidOf(raw),
    buyer: { email: raw.buyer?.email ?? raw.buyerProvidedEmail ?? null },
    redirectURL: raw.redirectURL ?? null,
    closeURL: raw.closeURL ?? null,
    notificationURL: raw.notificationURL ?? null,
  };
}

/** BitPay's error text from an error answer (`{error}` or `{message}`), if any. */
function errorText(body: unknown): string | null {
  if (body === null || typeof body !== "object") return null;
  const { error, message } = body as { error?: unknown; message?: unknown };
  const found = typeof error === "string" && error ? error : typeof message === "string" && message ? message : null;
  return found ? found.slice(0, MAX_ERROR_LENGTH) : null;
}

function networkError(error: unknown, timeoutMs: number): BitPayError {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return new BitPayError(`BitPay did not answer within ${timeoutMs} ms.`, null);
  // Only the error code: a message could carry the request URL, and GET URLs carry the token.
  const code = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return new BitPayError(`Could not reach BitPay${typeof code === "string" ? ` (${code})` : ""}.`, null);
}

export function createBitPayClient(opts: {
  baseUrl: string;
  token: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}): BitPayClient {
  const base = opts.baseUrl.endsWith("/") ? opts.baseUrl : `${opts.baseUrl}/`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = opts.fetch ?? fetch;

  async function call(method: "GET" | "POST", url: URL, body?: unknown): Promise<BitPayInvoice> {
    let status: number;
    let json: unknown;
    try {
      const res = await doFetch(url, {
        method,
        headers: {
          Accept: "application/json",
          "X-Accept-Version": API_VERSION,
          ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      const raw = await res.text();
      try {
        json = raw ? JSON.parse(raw) : undefined;
      } catch {
        json = undefined;
      }
      if (!res.ok) throw new BitPayError(errorText(json) ?? `BitPay answered HTTP ${status}.`, status);
    } catch (error) {
      if (error instanceof BitPayError) throw error;
      throw networkError(error, timeoutMs);
    }
    const parsed = answerSchema.safeParse(json);
    if (!parsed.success) {
      // A 2xx with an error body, or an invoice without the fields we rely on.
      throw new BitPayError(errorText(json) ?? "BitPay answered with an unexpected invoice.", status);
    }
    return toInvoice(parsed.data.data);
  }

  return {
    createInvoice(params) {
      return call("POST", new URL("invoices", base), {
        token: opts.token,
        price: params.price,
        currency: params.currency,
        orderId: params.orderId,
        itemDesc: params.itemDesc,
        notificationURL: params.notificationURL,
        redirectURL: params.redirectURL,
        closeURL: params.closeURL,
        buyer: { email: params.buyerEmail },
        ...(params.posData === undefined ? {} : { posData: params.posData }),
        // Without it BitPay notifies only paid, confirmed and complete: we need expiries too.
        extendedNotifications: true,
      });
    },
    getInvoice(id) {
      const url = new URL(`invoices/${encodeURIComponent(id)}`, base);
      url.searchParams.set("token", opts.token);
      return call("GET", url);
    },
  };
}

const INVOICE_ID = /^[A-Za-z0-9]{1,64}$/;

/**
 * Extracts the invoice id from a notification body (BitPay v1 `{id, ...}` or extended
 * `{event, data: {id}}`); null if none. The body is only a trigger: callers re-fetch.
 * Takes the parsed JSON or its text.
 */
export function invoiceIdOfNotification(body: unknown): string | null {
  let value = body;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== "object") return null;
  const { id, data } = value as { id?: unknown; data?: unknown };
  const candidate = typeof id === "string" ? id : data !== null && typeof data === "object" ? (data as { id?: unknown }).id : undefined;
  // Callers put it in a URL path: only the characters BitPay ids use.
  return typeof candidate === "string" && INVOICE_ID.test(candidate) ? candidate : null;
}
