// What a wallet sheet asks for (commerce §9): the amount in cents and, for Apple Pay, the recurring
// payment request whose interval comes from the plan's slug. Pure, shared by the checkout and /demo.

export type IntervalUnit = "month" | "year";

/** `t` of the page's language (react-i18next's in a component, translatorOf on the server). */
export type Translate = (key: string, values?: Record<string, unknown>) => string;

/** 'month' or 'year' from the slug, the count from the number in it; default 1 month (commerce §9). */
export function recurringInterval(slug: string | null | undefined): { unit: IntervalUnit; count: number } {
  const text = slug ?? "";
  const unit: IntervalUnit = /year/i.test(text) ? "year" : "month";
  const number = /(\d+)/.exec(text);
  const count = number ? Number(number[1]) : 1;
  return { unit, count: Number.isSafeInteger(count) && count >= 1 ? count : 1 };
}

/** "every month", "every 3 months", "every 2 years" (in English; the catalogue's plural forms). */
export function intervalLabel({ unit, count }: { unit: IntervalUnit; count: number }, t: Translate): string {
  return unit === "year" ? t("payments.wallet.interval.year", { count }) : t("payments.wallet.interval.month", { count });
}

/** A renewal every `months` as a wallet counts it: whole years in years. */
export function intervalOfMonths(months: number): { unit: IntervalUnit; count: number } {
  return months >= 12 && months % 12 === 0 ? { unit: "year", count: months / 12 } : { unit: "month", count: Math.max(1, months) };
}

/** The express-checkout test page: 5.99 USD, 599 cents, monthly (commerce §9). */
const DEMO_PAYMENT = { amount: 5.99, cents: 599, currency: "usd", slug: "1-month", label: "payments.demo.orderLabel" } as const;

/** What the sheet shows and Apple Pay's recurring request needs. */
export type WalletOrder = {
  /** What is bought: 'VPN 1 Month', or a catalogue key (the demo's): shown through `t`. */
  label: string;
  /** What is charged now, in cents. */
  cents: number;
  /** The renewal amount in cents; null for a one-time payment. */
  renewalCents: number | null;
  interval: { unit: IntervalUnit; count: number } | null;
};

/** The wallet's order from the API's quote for wallets (issue 32): what is paid now and what renews. */
export function walletOrder(
  plan: { title: string },
  quote: { amount_cents: number; renewal: { amount_cents: number; interval_months: number } | null },
): WalletOrder {
  return {
    label: `VPN ${plan.title}`,
    cents: quote.amount_cents,
    renewalCents: quote.renewal ? quote.renewal.amount_cents : null,
    interval: quote.renewal ? intervalOfMonths(quote.renewal.interval_months) : null,
  };
}

/** Apple Pay's recurring payment request (Stripe's ApplePayRecurringPaymentRequest shape), in the page's language. */
export function appleRecurringRequest(order: WalletOrder, managementURL: string, t: Translate) {
  if (!order.interval || order.renewalCents === null) return null;
  const label = t(order.label);
  return {
    paymentDescription: t("payments.wallet.apple.subscriptionDescription", { label }),
    managementURL,
    regularBilling: {
      label,
      amount: order.renewalCents,
      recurringPaymentIntervalUnit: order.interval.unit,
      recurringPaymentIntervalCount: order.interval.count,
    },
    billingAgreement: t("payments.wallet.apple.billingAgreement", { interval: intervalLabel(order.interval, t) }),
  };
}

/** What the lazily loaded wallet panel bodies (sandbox or live) receive. */
export type WalletBodyProps = {
  wallet: "googlepay" | "applepay";
  planId: number;
  order: WalletOrder;
  /** The API's payment config: `device.os` is the system the API read from this browser's User-Agent and client hints. */
  gateway: { mode: "live" | "sandbox"; publishable_key: string; device: { os: string | null } };
};

/** The express-checkout test page's order: 5.99 USD now, then monthly (commerce §9). */
export const DEMO_ORDER: WalletOrder = {
  label: DEMO_PAYMENT.label,
  cents: DEMO_PAYMENT.cents,
  renewalCents: DEMO_PAYMENT.cents,
  interval: recurringInterval(DEMO_PAYMENT.slug),
};
