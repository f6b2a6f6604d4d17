import type { AppLoadContext } from "@remix-run/node";
import type { ToastView } from "~/components/toasts";
import { REFUND_FORM } from "~/features/refunds/refund-form";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import type { TFunction } from "i18next";
import { languageOf, translatorFor } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import { type NextChargeView, nextChargeView } from "~/features/next-charge/next-charge.server";
import { taxIncluded } from "~/features/tax/tax";
import { redirectWithPageError, redirectWithSuccess } from "~/utils/toast.server";
import { refundAction } from "./refund.server";
import { planName } from "~/utils/plans";

// The 'Payment History' tab of /billing (commerce §2, §4, §7, §8, §9): the transactions 5 a page, an
// invoice download per transaction, and the subscription's auto-renewal row with a server-rendered
// confirm step (?confirm=auto-renewal) that works without JavaScript. Its words are catalogue keys
// (app/locales/<language>/billing.json); what has variables is worded here, in the request's language.

export const HISTORY_PAGE_SIZE = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

export const BILLING_MESSAGES = {
  fetchFailed: "billing.history.fetchFailed",
  subscriptionFetchFailed: "billing.history.subscriptionFetchFailed",
  renewalUpdated: "billing.renewal.updated",
  renewalFailed: "billing.renewal.failed",
  keepFailed: "billing.pendingChange.keepFailed",
  invoiceFailed: "billing.invoice.failed",
  empty: "billing.history.empty",
} as const;

/** A transaction's status: the page words it ('Paid', 'Payment failed', 'Refunded', 'Refund requested') and colours it. */
export type TransactionStatus = "paid" | "failed" | "refunded" | "requested";

export type TransactionRow = {
  id: number;
  date: string;
  title: string;
  method: string;
  amount: string;
  /** What the amount includes of tax ('including VAT 19 % (Germany): $13.66', 'VAT reverse charged'); null without (issue 35). */
  tax: string | null;
  status: TransactionStatus;
  /**
   * The payment was tried more than once (a renewal and its automatic retries are one row, docs/decisions/050):
   * '— retried 4 times, last on 08 December, 2026' after 'Payment failed', ' on 04 December, 2026 — retried 2 times'
   * after 'Paid'; null when it was tried once.
   */
  attempts: string | null;
  /** The 30-day money-back guarantee applies to it now (the API's word). */
  refundable: boolean;
  crypto: boolean;
  /** Paid through PayPal: a refund goes back to the PayPal account. */
  paypal: boolean;
  /** The portal's download route of our invoice (a PDF, every gateway) and its number. */
  invoice: { href: string; number: string | null } | null;
  /** A refunded payment's credit note (a PDF) and its number. */
  creditNote: { href: string; number: string } | null;
  /** A crypto payment that arrived short: what is missing, and the ways on (pay the rest while BitPay's invoice is open; a refund through /help). */
  underpaid: { text: string; payUrl: string | null; refundHref: string } | null;
};

export type RenewalRow =
  /** No active plan; `endedOn` ('DD MMMM, Y') when the account had one that ended, null when it never had one. */
  | { kind: "none"; endedOn: string | null }
  | { kind: "one-time"; title: string }
  | { kind: "crypto"; title: string }
  | {
      kind: "toggle";
      title: string;
      subscriptionId: number;
      on: boolean;
      /** Within 24 hours of the cycle end: turning it off is refused, turning it on is binding. */
      lastDay: boolean;
      renewsOn: string;
    };

export type HistoryState = {
  transactions: TransactionRow[];
  pagination: { current_page: number; last_page: number; per_page: number; total: number };
  renewal: RenewalRow;
  /** 'Your plan changes to {plan} on {date}.': a change to a shorter plan waiting for the renewal (decision 028). */
  pendingChange: string | null;
  nextCharge: NextChargeView;
  confirm: boolean;
  /** The refund step (?refund={id}) for a refundable transaction of this page. */
  refund: TransactionRow | null;
  notices: ToastView[];
};

function statusOf(t: ApiSchemas["Transaction"]): TransactionStatus {
  if (t.status === "Payment failed") return "failed";
  if (t.status === "refunded" || t.refund_status === "refunded") return "refunded";
  if (t.refund_status === "requested") return "requested";
  return "paid";
}

/** The request's language: its `t` and its money and date formats. */
type Words = { t: TFunction; f: ReturnType<typeof formattersFor> };

function wordsOf(request: Request): Words {
  const language = languageOf(request);
  return { t: translatorFor(language), f: formattersFor(language) };
}

/** What a payment tried more than once adds to its status (docs/decisions/050). */
function attemptsNote(t: ApiSchemas["Transaction"], { t: tr, f }: Words): string | null {
  if (t.retries < 1) return null;
  const values = { count: t.retries, date: f.longDate(t.last_attempt_at) };
  return t.status === "Payment failed" ? tr("billing.history.attempts.failed", values) : tr("billing.history.attempts.paid", values);
}


function positiveInt(value: string | null): number | null {
  if (!value || !/^\d{1,6}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 ? n : null;
}

export function historyHref(page?: number, extra?: Record<string, string>): string {
  const params = new URLSearchParams();
  if (page && page > 1) params.set("page", String(page));
  for (const [key, value] of Object.entries(extra ?? {})) params.set(key, value);
  const query = params.toString();
  return query ? `/billing?${query}` : "/billing";
}

/** How a payment was made: names stay as they are, 'Card' and 'Crypto' are catalogue keys. */
const METHOD_LABELS: Record<string, string> = {
  card: "billing.history.method.card",
  applepay: "Apple Pay",
  googlepay: "Google Pay",
  crypto: "billing.history.method.crypto",
  paypal: "PayPal",
};

function methodLabel(t: ApiSchemas["Transaction"]): string {
  if (t.payment_gateway === "bitpay") return METHOD_LABELS.crypto!;
  if (t.payment_gateway === "paypal") return METHOD_LABELS.paypal!;
  return METHOD_LABELS[t.wallet_payment_type ?? "card"] ?? METHOD_LABELS.card!;
}

function invoiceLink(t: ApiSchemas["Transaction"]): TransactionRow["invoice"] {
  if (!t.invoice_available) return null;
  return { href: `/billing/invoice/${t.id}/${encodeURIComponent(t.payment_gateway)}`, number: t.invoice_number };
}

function creditNoteLink(t: ApiSchemas["Transaction"]): TransactionRow["creditNote"] {
  if (!t.credit_note_number) return null;
  return { href: `/billing/credit-note/${t.id}/${encodeURIComponent(t.payment_gateway)}`, number: t.credit_note_number };
}

function underpaidView(short: ApiSchemas["Transaction"]["underpayment"], { t, f }: Words): TransactionRow["underpaid"] {
  if (!short) return null;
  return {
    text: t("billing.history.underpaid", { paid: f.money(short.paid_cents), due: f.money(short.due_cents), missing: f.money(short.missing_cents) }),
    payUrl: short.pay_url,
    refundHref: `/help?${new URLSearchParams({ topic: "refund", invoice: short.invoice_id })}#contact`,
  };
}

function renewalRow(subscription: ApiSchemas["Subscription"] | null, ended: ApiSchemas["EndedPlan"] | undefined, now: Date, { f }: Words): RenewalRow {
  if (!subscription) return { kind: "none", endedOn: ended ? f.longDate(ended.ended_on) : null };
  const { title } = subscription;
  if (subscription.billing_type === "single") return { kind: "one-time", title };
  if (subscription.subscription_by === "bitpay") return { kind: "crypto", title };
  // PayPal bills at most yearly: the 2-year plan paid with PayPal is one order that does not renew
  // (decision 039), so it has no auto-renewal to turn on.
  if (!subscription.auto_renewable) return { kind: "one-time", title };
  // Card and PayPal subscriptions: off suspends the PayPal subscription, on reactivates it (issue 23).
  return {
    kind: "toggle",
    title,
    subscriptionId: subscription.id,
    on: subscription.subs_status === "subscription_started",
    lastDay: new Date(subscription.sub_exp_date).getTime() - now.getTime() < DAY_MS,
    renewsOn: f.longDate(subscription.sub_exp_date),
  };
}

export async function historyState(request: Request, context: AppLoadContext, url: URL): Promise<HistoryState> {
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);
  const words = wordsOf(request);
  const { t: tr, f } = words;
  const page = positiveInt(url.searchParams.get("page")) ?? 1;
  const [list, active] = await Promise.all([
    api.post("/api/billing/transactions", { body: { page, per_page: HISTORY_PAGE_SIZE } }),
    api.post("/api/subscription/active"),
  ]);
  const notices: ToastView[] = [];
  if (!list.ok) notices.push({ type: "error", message: BILLING_MESSAGES.fetchFailed });
  if (!active.ok) notices.push({ type: "error", message: BILLING_MESSAGES.subscriptionFetchFailed });
  const now = active.ok ? new Date(active.data.now) : new Date();
  const renewal: RenewalRow = active.ok ? renewalRow(active.data.subscription, active.data.ended_plan, now, words) : { kind: "none", endedOn: null };
  const transactions: TransactionRow[] = list.ok
      ? list.data.transactions.map((t) => ({
          id: t.id,
          date: f.longDate(t.created_at),
          title: t.product.title,
          method: tr(methodLabel(t)),
          amount: f.money(t.amount_cents),
          tax: taxIncluded(t.tax, { t: tr, money: f.money, language: f.language }),
          status: statusOf(t),
          attempts: attemptsNote(t, words),
          refundable: t.refundable,
          crypto: t.payment_gateway === "bitpay",
          paypal: t.payment_gateway === "paypal",
          invoice: invoiceLink(t),
          creditNote: creditNoteLink(t),
          underpaid: underpaidView(t.underpayment, words),
        }))
      : [];
  const refundId = positiveInt(url.searchParams.get("refund"));
  return {
    transactions,
    pagination: list.ok ? list.data.pagination : { current_page: 1, last_page: 1, per_page: HISTORY_PAGE_SIZE, total: 0 },
    renewal,
    // The same words as the checkout's (plan-change.server.ts).
    pendingChange:
      active.ok && active.data.pending_change
        ? tr("billing.pendingChange.sentence", { plan: planName(active.data.pending_change.plan.title, tr), date: f.longDate(active.data.pending_change.effective_at) })
        : null,
    nextCharge: active.ok ? nextChargeView(active.data, words.f.language) : null,
    confirm: url.searchParams.get("confirm") === "auto-renewal" && renewal.kind === "toggle",
    refund: refundId === null ? null : (transactions.find((t) => t.id === refundId && t.refundable) ?? null),
    notices: refundId !== null && !transactions.some((t) => t.id === refundId && t.refundable)
      ? [...notices, { type: "error", message: REFUND_FORM.notOffered }]
      : notices,
  };
}

/** The tab's form intents: auto-renewal on or off, a refund, keeping the current plan. Null when the intent is not this tab's. */
export async function historyAction(
  intent: string,
  args: { request: Request; context: AppLoadContext; formData: FormData },
): Promise<Response | Awaited<ReturnType<typeof refundAction>> | null> {
  if (intent === REFUND_FORM.intent) return refundAction(args);
  if (intent !== "auto-renewal" && intent !== "keep-plan") return null;
  const { request, context, formData } = args;
  const token = await requireToken(request);
  const back = historyHref(positiveInt(String(formData.get("page") ?? "")) ?? undefined);
  if (intent === "keep-plan") {
    // 'Keep current plan': the pending change is released (as on the checkout), then back here.
    const kept = await createApiClient(request, context, token).post("/api/subscription/change/cancel");
    return kept.ok ? redirectWithSuccess(back, kept.message || "") : redirectWithPageError(back, kept.message || BILLING_MESSAGES.keepFailed);
  }
  const type = formData.get("type");
  const subscriptionId = positiveInt(String(formData.get("subscriptionId") ?? ""));
  if ((type !== "enable" && type !== "disable") || !subscriptionId) return redirectWithPageError(back, BILLING_MESSAGES.renewalFailed);
  const api = createApiClient(request, context, token);
  const result = await api.post("/api/stripe/auto-renewal", { body: { type, subscriptionId } });
  return result.ok
    ? redirectWithSuccess(back, result.data.message || BILLING_MESSAGES.renewalUpdated)
    : redirectWithPageError(back, result.message || BILLING_MESSAGES.renewalFailed);
}
