import { nextChargeView } from "~/features/next-charge/next-charge.server";
import type { ApiSchemas, createApiClient } from "~/utils/api.server";
import { ANDROID_APP_URL, IOS_APP_URL } from "~/utils/app-stores";
import { formatLongDate } from "~/utils/dates.server";
import { formatMoney } from "~/utils/plans";
import { purchaseTerms } from "./summary";

// What the checkout becomes once paid (issue 21): a receipt behind 'Payment Successful!' — what was
// charged (a coupon included), for which plan and how long, when the first term ends and what renews
// then, the invoice — and the next step: the apps, this device's first (from the User-Agent), and how
// to sign in to them.

export type Platform = "Windows" | "macOS" | "Linux" | "Android" | "iOS";

/** Where each app comes from: the fixed store links (identity §2), the desktop links from the API. */
export type AppDownload = { platform: Platform; href: string | null; from: string };

export type Receipt = {
  plan: string;
  /** '27 months (24 months + 3 months free)'. */
  buys: string;
  /** What was charged: the transaction's amount (a coupon included). */
  charged: string;
  /** The plan's price and the coupon's part, when a coupon lowered the charge. */
  discount: { price: string; amount: string } | null;
  paidOn: string | null;
  termEndsOn: string;
  /** 'Renews …' or 'Does not renew …', from the subscription as recorded. */
  renewal: string;
  /** The plan's terms as the order summary said them ('Then it renews at …'), for the dialog. */
  terms: string;
  /** The portal's invoice route for this payment (a PDF for crypto, the hosted invoice otherwise). */
  invoice: { href: string; kind: "pdf" | "hosted" } | null;
  email: string;
  hasPassword: boolean;
  /** This device's platform; null when the User-Agent does not tell. */
  device: Platform | null;
  /** Every app, this device's first. */
  apps: AppDownload[];
};

/** The platform of a User-Agent (the order matters: Android says Linux, iOS says Mac OS X). */
export function platformOf(userAgent: string | null): Platform | null {
  const ua = userAgent ?? "";
  if (/Windows/.test(ua)) return "Windows";
  if (/\b(iPhone|iPad|iPod)\b/.test(ua)) return "iOS";
  if (/Android/.test(ua)) return "Android";
  if (/Macintosh|Mac OS X/.test(ua)) return "macOS";
  if (/Linux|X11|CrOS/.test(ua)) return "Linux";
  return null;
}

const PLATFORMS: Platform[] = ["Windows", "macOS", "Android", "iOS"];

function appsFor(device: Platform | null, links: ApiSchemas["DownloadLinks"] | null): AppDownload[] {
  const apps: AppDownload[] = [
    { platform: "Windows", href: links?.windows ?? null, from: "Download for Windows" },
    { platform: "macOS", href: links?.mac ?? null, from: "Download for macOS" },
    { platform: "Android", href: ANDROID_APP_URL, from: "Get it on Google Play" },
    { platform: "iOS", href: IOS_APP_URL, from: "Download on the App Store" },
  ];
  const index = device ? PLATFORMS.indexOf(device) : -1;
  return index > 0 ? [apps[index]!, ...apps.filter((_, i) => i !== index)] : apps;
}

/** The portal's download route for a transaction, as the billing history links it. */
function invoiceLink(t: ApiSchemas["Transaction"]): Receipt["invoice"] {
  if (!t.invoice_available) return null;
  const gateway = encodeURIComponent(t.payment_gateway);
  // No hosted invoice page at BitPay or PayPal: the API's PDF (as Billing's history links it).
  if (t.payment_gateway === "bitpay" || t.payment_gateway === "paypal") return { href: `/billing/invoice/${t.id}/${gateway}`, kind: "pdf" };
  return { href: `/billing/invoice/${t.id}/${gateway}/${encodeURIComponent(t.wallet_payment_type ?? "card")}`, kind: "hosted" };
}

function renewalOf(
  subscription: ApiSchemas["Subscription"],
  active: { next_charge: ApiSchemas["NextCharge"]; ends_on: string | null },
): string {
  const next = nextChargeView({ subscription, ...active });
  if (next?.kind === "charge") {
    return `Renews automatically on ${next.date} at ${next.amount}${next.card ? `, charged to ${next.card}` : ""}. To stop it, turn auto-renewal off in Billing at least 24 hours before.`;
  }
  if (subscription.subscription_by === "bitpay") {
    return "Does not renew: crypto plans do not renew automatically. We email you a renewal invoice 3 days before your plan ends.";
  }
  if (subscription.billing_type === "single") return "Does not renew: this was a one-time payment, nothing more is charged.";
  return `Does not renew: auto-renewal is off, so your plan ends on ${formatLongDate(active.ends_on ?? subscription.sub_exp_date)}.`;
}

/**
 * The receipt of the payment just made for `plan`, from what the API recorded: the newest paid
 * transaction of this plan and the account's subscription. Null once a later payment was for another
 * plan (a plan change since): the checkout is then the plan-change page again, not this receipt.
 */
export async function loadReceipt(
  api: ReturnType<typeof createApiClient>,
  {
    plan,
    account,
    termEndsOnIfPaidNow,
    userAgent,
  }: { plan: ApiSchemas["Plan"]; account: ApiSchemas["User"]; termEndsOnIfPaidNow: string; userAgent: string | null },
): Promise<Receipt | null> {
  const [active, history, links] = await Promise.all([
    api.post("/api/subscription/active"),
    api.post("/api/billing/transactions", { body: { page: 1, per_page: 5 } }),
    api.get("/api/download-links"),
  ]);
  const payments = history.ok ? history.data.transactions.filter((t) => t.status === "paid") : [];
  const paid = payments.find((t) => t.product.title === plan.title);
  // A payment for another plan recorded after this one's (newest first): a plan change since.
  if (paid && payments[0] !== paid) return null;
  const terms = purchaseTerms(plan);
  const price = plan.discounted_price || plan.regular_price;
  const charged = paid ? paid.amount : price;
  // The subscription this payment made (another one may run beside a one-time plan): its dates, else the plan's terms.
  const subscription = active.ok && active.data.subscription?.plan_id === plan.id ? active.data.subscription : null;
  const device = platformOf(userAgent);
  return {
    plan: plan.title,
    buys: terms.buys,
    charged: formatMoney(charged),
    discount: charged < price - 0.004 ? { price: formatMoney(price), amount: `−${formatMoney(Math.round((price - charged) * 100) / 100)}` } : null,
    paidOn: paid ? formatLongDate(paid.created_at) : null,
    termEndsOn: subscription ? formatLongDate(subscription.sub_exp_date) : termEndsOnIfPaidNow,
    renewal: subscription && active.ok ? renewalOf(subscription, active.data) : terms.renews,
    terms: terms.renews,
    invoice: paid ? invoiceLink(paid) : null,
    email: account.email,
    hasPassword: account.has_password,
    device,
    apps: appsFor(device, links.ok ? links.data : null),
  };
}
