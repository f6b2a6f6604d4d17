import type { ApiSchemas } from "~/utils/api.server";
import type { Translate, Words } from "~/utils/plans";

// The checkout's words for the API's quotes (issue 32, docs/decisions/048): what is paid now, what it
// buys, when the first term ends and what renews, exactly as POST /api/checkout/quote (and
// /api/account/checkout's `quotes`) answers them. Formatting only: no amount, month or renewal is
// worked out here. Shared by server and browser, in the page's language: `Words` is its `t` and its
// money format (a component's useTranslation and useFormatters, a loader's translatorOf and formattersFor).

export type { Words };

type ApiQuote = ApiSchemas["CheckoutQuote"];
/**
 * A quote as the page's words use it: the API's (POST /api/checkout/quote) without what no word or figure
 * of the checkout reads (the decimal twins of the cents, the first term's end as a timestamp: the loader
 * formats it). The checkout's loader sends the page these (shownQuote).
 */
export type Quote = Pick<ApiQuote, "method" | "coupon_code" | "discount_amount_cents" | "country" | "net_cents" | "tax" | "amount_cents" | "paid_months" | "extra_months" | "months"> & {
  renewal: Pick<NonNullable<ApiQuote["renewal"]>, "amount_cents" | "interval_months"> | null;
};

/** The part of an API quote the page gets (Quote). */
export function shownQuote({ method, coupon_code, discount_amount_cents, country, net_cents, tax, amount_cents, paid_months, extra_months, months, renewal }: ApiQuote): Quote {
  return {
    method,
    coupon_code,
    discount_amount_cents,
    country,
    net_cents,
    tax,
    amount_cents,
    paid_months,
    extra_months,
    months,
    renewal: renewal ? { amount_cents: renewal.amount_cents, interval_months: renewal.interval_months } : null,
  };
}
export type Method = Quote["method"];

/** The ways to pay as the order summary names them: catalogue keys, or brands (which `t` passes through). */
const METHOD_NAMES: Record<Method, string[]> = {
  card: ["checkout.method.card"],
  saved_card: ["checkout.method.card"],
  wallet: ["Apple Pay", "Google Pay"],
  paypal: ["PayPal"],
  crypto: ["checkout.method.crypto"],
};

/** 'card, Apple Pay, Google Pay or PayPal'. */
function anyOf(names: string[], t: Translate): string {
  const words = names.map((name) => t(name));
  return words.length > 1 ? t("checkout.method.or", { list: words.slice(0, -1).join(", "), last: words.at(-1) }) : (words[0] ?? "");
}

/** The quote of one method, when the checkout offers it. */
export function quoteOf<Q extends Pick<Quote, "method">>(quotes: readonly Q[], method: Method): Q | null {
  return quotes.find((quote) => quote.method === method) ?? null;
}

/** '1 month', '27 months'. */
export function monthsLabel(count: number, t: Translate): string {
  return t("checkout.term.months", { count });
}

/** Whole years, when the term is: 24 -> 2. */
function yearsOf(months: number): number | null {
  return months >= 12 && months % 12 === 0 ? months / 12 : null;
}

/** '1 month', '3 months', '1 year', '2 years': a term of whole years said in years. */
export function termLabel(months: number, t: Translate): string {
  const years = yearsOf(months);
  return years !== null ? t("checkout.term.years", { count: years }) : monthsLabel(months, t);
}

/** 'every month', 'every 3 months', 'every year', 'every 2 years': how often it renews. */
export function everyLabel(months: number, t: Translate): string {
  const years = yearsOf(months);
  return years !== null ? t("checkout.every.years", { count: years }) : t("checkout.every.months", { count: months });
}

/** 'every 1 month', 'every 2 years': the terms' own wording of the renewal ('1' said, in English). */
function everyTermLabel(months: number, t: Translate): string {
  const years = yearsOf(months);
  return years !== null ? t("checkout.everyTerm.years", { count: years }) : t("checkout.everyTerm.months", { count: months });
}

/** '27 months (24 months + 3 months free)', or '1 month'. */
export function buysLabel(quote: Pick<Quote, "paid_months" | "extra_months" | "months">, t: Translate): string {
  return quote.extra_months > 0
    ? t("checkout.buys.withExtra", { months: monthsLabel(quote.months, t), paid: monthsLabel(quote.paid_months, t), extra: monthsLabel(quote.extra_months, t) })
    : monthsLabel(quote.months, t);
}

/** The sentence of what follows the first term: 'Then it renews at $107.76 every 2 years, …' or 'It does not renew: …'. */
export function renewsSentence(renewal: Quote["renewal"], { t, money }: Words): string {
  return renewal
    ? t("checkout.renewal.renews", { amount: money(renewal.amount_cents), every: everyLabel(renewal.interval_months, t) })
    : t("checkout.renewal.none");
}

/**
 * The order summary's renewal, for every way to pay offered: one sentence when they all agree, else
 * one per group ('Paid by card, Apple Pay or Google Pay, it then renews … Paid with PayPal or crypto, it does not renew …').
 */
export function renewalSentences(quotes: readonly Quote[], words: Words): string[] {
  const { t, money } = words;
  const groups = new Map<string, { renewal: Quote["renewal"]; names: string[] }>();
  for (const quote of quotes) {
    const key = quote.renewal ? `${quote.renewal.amount_cents}/${quote.renewal.interval_months}` : "none";
    const group = groups.get(key) ?? { renewal: quote.renewal, names: [] };
    for (const name of METHOD_NAMES[quote.method]) if (!group.names.includes(name)) group.names.push(name);
    groups.set(key, group);
  }
  if (groups.size <= 1) return [renewsSentence(quotes[0]?.renewal ?? null, words)];
  return [...groups.values()].map(({ renewal, names }) => {
    const methods = anyOf(names, t);
    return renewal
      ? t("checkout.renewal.byRenews", { methods, amount: money(renewal.amount_cents), every: everyLabel(renewal.interval_months, t) })
      : t("checkout.renewal.byNone", { methods });
  });
}

/** The card panel's terms: renewal (and how to stop it), or a one-time payment. */
export function cardTerms(quote: Quote, { t, money }: Words): string {
  const amount = money(quote.amount_cents);
  if (!quote.renewal) return t("checkout.terms.card.oneTime", { amount, term: termLabel(quote.paid_months, t) });
  return t("checkout.terms.card.renews", { amount, every: everyTermLabel(quote.renewal.interval_months, t), renewal: money(quote.renewal.amount_cents) });
}

/** The PayPal panel's terms (decision 039): a PayPal subscription that renews, or one payment. */
export function paypalTerms(quote: Quote, { t, money }: Words): string {
  const amount = money(quote.amount_cents);
  if (!quote.renewal) return t("checkout.terms.paypal.oneTime", { amount, term: termLabel(quote.paid_months, t) });
  return t("checkout.terms.paypal.renews", { amount, renewal: money(quote.renewal.amount_cents), every: everyTermLabel(quote.renewal.interval_months, t) });
}

/** The crypto panel's terms (commerce §9: crypto plans do not auto-renew). */
export function cryptoTerms(quote: Quote, words: Words): string {
  const amount = words.money(quote.amount_cents);
  if (quote.renewal) return words.t("checkout.terms.crypto.renews", { amount, renews: renewsSentence(quote.renewal, words) });
  return words.t("checkout.terms.crypto.oneTime", { amount });
}

