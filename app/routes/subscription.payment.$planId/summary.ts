import type { ApiSchemas } from "~/utils/api.server";
import { formatCents } from "~/utils/plans";

// The checkout's words for the API's quotes (issue 32, docs/decisions/048): what is paid now, what it
// buys, when the first term ends and what renews, exactly as POST /api/checkout/quote (and
// /api/account/checkout's `quotes`) answers them. Formatting only: no amount, month or renewal is
// worked out here. Shared by server and browser.

export type Quote = ApiSchemas["CheckoutQuote"];
export type Method = Quote["method"];

/** The ways to pay as the order summary names them. */
const METHOD_NAMES: Record<Method, string[]> = {
  card: ["card"],
  saved_card: ["card"],
  wallet: ["Apple Pay", "Google Pay"],
  paypal: ["PayPal"],
  crypto: ["crypto"],
};

/** 'card, Apple Pay, Google Pay or PayPal'. */
function anyOf(names: string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : (names[0] ?? "");
}

/** The quote of one method, when the checkout offers it. */
export function quoteOf(quotes: readonly Quote[], method: Method): Quote | null {
  return quotes.find((quote) => quote.method === method) ?? null;
}

/** '1 month', '27 months'. */
export function monthsLabel(count: number): string {
  return `${count} month${count === 1 ? "" : "s"}`;
}

/** '1 month', '3 months', '1 year', '2 years': a term of whole years said in years. */
export function termLabel(months: number): string {
  if (months >= 12 && months % 12 === 0) {
    const years = months / 12;
    return `${years} year${years === 1 ? "" : "s"}`;
  }
  return monthsLabel(months);
}

/** 'month', '3 months', 'year', '2 years': how often it renews. */
export function everyLabel(months: number): string {
  const term = termLabel(months);
  return term.startsWith("1 ") ? term.slice(2) : term;
}

/** '27 months (24 months + 3 months free)', or '1 month'. */
export function buysLabel(quote: Pick<Quote, "paid_months" | "extra_months" | "months">): string {
  return quote.extra_months > 0 ? `${monthsLabel(quote.months)} (${monthsLabel(quote.paid_months)} + ${monthsLabel(quote.extra_months)} free)` : monthsLabel(quote.months);
}

/** The sentence of what follows the first term: 'Then it renews at $107.76 every 2 years, …' or 'It does not renew: …'. */
export function renewsSentence(renewal: Quote["renewal"]): string {
  return renewal
    ? `Then it renews at ${formatCents(renewal.amount_cents)} every ${everyLabel(renewal.interval_months)}, until you turn auto-renewal off.`
    : "It does not renew: nothing more is charged.";
}

/**
 * The order summary's renewal, for every way to pay offered: one sentence when they all agree, else
 * one per group ('Paid by card, Apple Pay or Google Pay, it then renews … Paid with PayPal or crypto, it does not renew …').
 */
export function renewalSentences(quotes: readonly Quote[]): string[] {
  const groups = new Map<string, { renewal: Quote["renewal"]; names: string[] }>();
  for (const quote of quotes) {
    const key = quote.renewal ? `${quote.renewal.amount_cents}/${quote.renewal.interval_months}` : "none";
    const group = groups.get(key) ?? { renewal: quote.renewal, names: [] };
    for (const name of METHOD_NAMES[quote.method]) if (!group.names.includes(name)) group.names.push(name);
    groups.set(key, group);
  }
  if (groups.size <= 1) return [renewsSentence(quotes[0]?.renewal ?? null)];
  return [...groups.values()].map(({ renewal, names }) => {
    const by = anyOf(names);
    return renewal
      ? `Paid by ${by}, it then renews at ${formatCents(renewal.amount_cents)} every ${everyLabel(renewal.interval_months)}, until you turn auto-renewal off.`
      : `Paid with ${by}, it does not renew: nothing more is charged.`;
  });
}

/** The card panel's terms: renewal (and how to stop it), or a one-time payment. */
export function cardTerms(quote: Quote): string {
  const now = formatCents(quote.amount_cents);
  if (!quote.renewal) return `One-time payment of ${now} for ${termLabel(quote.paid_months)}. It does not renew: nothing more is charged.`;
  return `You pay ${now} now. Your plan renews automatically every ${termLabel(quote.renewal.interval_months)} at ${formatCents(quote.renewal.amount_cents)} until you turn auto-renewal off, at least 24 hours before the end of the billing cycle.`;
}

/** The PayPal panel's terms (decision 039): a PayPal subscription that renews, or one payment. */
export function paypalTerms(quote: Quote): string {
  const now = formatCents(quote.amount_cents);
  if (!quote.renewal) return `With PayPal you pay ${now} once for ${termLabel(quote.paid_months)}. It does not renew: nothing more is charged.`;
  return `With PayPal you pay ${now} now. PayPal then collects ${formatCents(quote.renewal.amount_cents)} every ${termLabel(quote.renewal.interval_months)} until you turn auto-renewal off, at least 24 hours before the end of the billing cycle.`;
}

/** The crypto panel's terms (commerce §9: crypto plans do not auto-renew). */
export function cryptoTerms(quote: Quote): string {
  const now = formatCents(quote.amount_cents);
  if (quote.renewal) return `Pay ${now} in cryptocurrency through BitPay. ${renewsSentence(quote.renewal)} Crypto payments take 1 to 3 hours to confirm.`;
  return `Pay ${now} in cryptocurrency through BitPay. Crypto plans do not auto-renew: we email you a renewal invoice 3 days before your plan expires. Crypto payments take 1 to 3 hours to confirm.`;
}

/** A wallet panel's terms (renewal, or a one-time payment). */
export function walletTerms(name: string, quote: Quote): string {
  const now = formatCents(quote.amount_cents);
  if (!quote.renewal) return `With ${name} you pay ${now} once; this plan never renews.`;
  return `With ${name} you pay ${now} today; the plan then renews every ${everyLabel(quote.renewal.interval_months)} at ${formatCents(quote.renewal.amount_cents)} by auto-renewal, which you can turn off at least 24 hours before a billing cycle ends.`;
}
