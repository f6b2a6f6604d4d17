import { nextChargeView } from "~/features/next-charge/next-charge.server";
import type { ApiSchemas, createApiClient } from "~/utils/api.server";
import { ANDROID_APP_URL, IOS_APP_URL } from "~/utils/app-stores";
import type { formattersFor } from "~/i18n/use-formatters";
import type { Translate } from "~/utils/plans";
import { taxLabel, taxOf } from "~/features/tax/tax";
import { buysLabel, everyLabel, quoteOf, renewsSentence, termLabel } from "./summary";
import { planName } from "~/utils/plans";

// What the checkout becomes once paid (issue 21): a receipt behind 'Payment Successful!' — what was
// charged (a coupon included), for which plan and how long, when the first term ends and what renews
// then, the invoice — and the next step: the apps, this device's first (the API's reading of this
// browser: the payment config's `device.app`), and how to sign in to them.

export type Platform = NonNullable<ApiSchemas["PaymentConfig"]["device"]["app"]>;

/** Where each app comes from: the fixed store links (identity §2), the desktop links from the API. `from` is a catalogue key. */
export type AppDownload = { platform: Platform; href: string | null; from: string };

/** The page's words, in the request's language: `t`, money and dates. */
export type ReceiptWords = ReturnType<typeof formattersFor> & { t: Translate };

export type Receipt = {
  plan: string;
  /** '27 months (24 months + 3 months free)'. */
  buys: string;
  /** What was charged: the transaction's amount (a coupon included). */
  charged: string;
  /** The plan's price and the coupon's part, when a coupon lowered the charge. */
  discount: { price: string; amount: string } | null;
  /** The net and the tax line ('VAT 19 % (Germany)', 'VAT reverse charged') when tax was charged; null otherwise (issue 35). */
  tax: { net: string; label: string; amount: string } | null;
  paidOn: string | null;
  termEndsOn: string;
  /** 'Renews …' or 'Does not renew …', from the payment as the API recorded it. */
  renewal: string;
  /** What follows the first term ('Then it renews at …' or 'It does not renew …'), for the dialog: the API's answer for this payment. */
  terms: string;
  /** Our invoice's download (a PDF, every gateway; issue 35). */
  invoice: { href: string } | null;
  email: string;
  hasPassword: boolean;
  /** This device's platform, as the API read it; null when the User-Agent does not tell. */
  device: Platform | null;
  /** Every app, this device's first. */
  apps: AppDownload[];
};

const PLATFORMS: Platform[] = ["Windows", "macOS", "Android", "iOS"];

function appsFor(device: Platform | null, links: ApiSchemas["DownloadLinks"] | null): AppDownload[] {
  const apps: AppDownload[] = [
    { platform: "Windows", href: links?.windows ?? null, from: "checkout.receipt.app.windows" },
    { platform: "macOS", href: links?.mac ?? null, from: "checkout.receipt.app.macos" },
    { platform: "Android", href: ANDROID_APP_URL, from: "checkout.receipt.app.android" },
    { platform: "iOS", href: IOS_APP_URL, from: "checkout.receipt.app.ios" },
  ];
  const index = device ? PLATFORMS.indexOf(device) : -1;
  return index > 0 ? [apps[index]!, ...apps.filter((_, i) => i !== index)] : apps;
}

/** The portal's download route for a payment, as the billing history links it. */
function invoiceLink(t: ApiSchemas["PaymentReceipt"]): Receipt["invoice"] {
  if (!t.invoice_available) return null;
  // Our invoice, a PDF for every gateway (issue 35), as Billing's history links it.
  return { href: `/billing/invoice/${t.transaction_id}/${encodeURIComponent(t.payment_gateway)}` };
}

/** Who collects the renewals: the card that pays (the API's next charge), or PayPal. */
function payerOf(
  active: { subscription: ApiSchemas["Subscription"] | null; next_charge: ApiSchemas["NextCharge"]; ends_on: string | null } | null,
  words: ReceiptWords,
): string | null {
  if (!active?.subscription) return null;
  const next = nextChargeView(active, words.language);
  return next?.kind === "charge" ? next.card : null;
}

/** The receipt's 'Renewal' line, from the API's answer (renewal, or why none). */
function renewalLine(paid: ApiSchemas["PaymentReceipt"], payer: string | null, w: ReceiptWords): string {
  const { t } = w;
  const { renewal } = paid;
  if (renewal) {
    const values = { date: w.longDate(renewal.renews_on), amount: w.money(renewal.amount_cents), every: everyLabel(renewal.interval_months, t) };
    return payer ? t("checkout.receipt.renewsCharged", { ...values, payer }) : t("checkout.receipt.renews", values);
  }
  switch (paid.does_not_renew_because) {
    case "crypto":
      return t("checkout.receipt.noRenewal.crypto");
    case "one_time":
      return t("checkout.receipt.noRenewal.oneTime");
    case "paypal_term":
      return t("checkout.receipt.noRenewal.paypal", { term: termLabel(paid.paid_months, t) });
    default:
      return t("checkout.receipt.noRenewal.off", { date: w.longDate(paid.first_term_ends_on) });
  }
}

/**
 * The receipt of the payment just made for `plan`, as the API recorded it (/api/account/receipt: the
 * amount, the coupon's part, the months, the first term's end, the renewal by the quote's rule). Null
 * once a later payment was for another plan (a plan change since): the checkout is then the
 * plan-change page again, not this receipt. Before the payment is recorded (a hosted payment's
 * webhook still on its way), the card's quote says what it will be.
 */
export async function loadReceipt(
  api: ReturnType<typeof createApiClient>,
  { plan, account, quotes, device }: { plan: ApiSchemas["Plan"]; account: ApiSchemas["User"]; quotes: ApiSchemas["CheckoutQuote"][]; device: Platform | null },
  w: ReceiptWords,
): Promise<Receipt | null> {
  const { t, money } = w;
  const [recorded, active, links] = await Promise.all([
    api.get("/api/account/receipt", { params: { query: { plan_id: plan.id } } }),
    api.post("/api/subscription/active"),
    api.get("/api/download-links"),
  ]);
  const paid = recorded.ok ? recorded.data.payment : null;
  if (paid?.later_payment_for_another_plan) return null;
  const quote = quoteOf(quotes, "card") ?? quotes[0] ?? null;
  const terms = paid ?? quote;
  const taxLine = taxOf(terms);
  return {
    plan: planName(plan.title, w.t),
    buys: terms ? buysLabel(terms, t) : "",
    charged: money(terms?.amount_cents ?? plan.discounted_price_cents),
    discount: paid && paid.discount_amount_cents > 0 ? { price: money(paid.price_cents), amount: `−${money(paid.discount_amount_cents)}` } : null,
    tax: taxLine ? { net: money(taxLine.net_cents), label: taxLabel(taxLine.tax, w.t, w.language), amount: money(taxLine.tax.amount_cents) } : null,
    paidOn: paid ? w.longDate(paid.created_at) : null,
    termEndsOn: w.longDate(terms?.first_term_ends_on ?? new Date()),
    renewal: paid ? renewalLine(paid, payerOf(active.ok ? active.data : null, w), w) : renewsSentence(quote?.renewal ?? null, w),
    terms: renewsSentence(terms?.renewal ?? null, w),
    invoice: paid ? invoiceLink(paid) : null,
    email: account.email,
    hasPassword: account.has_password,
    device,
    apps: appsFor(device, links.ok ? links.data : null),
  };
}
