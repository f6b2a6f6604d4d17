import { renderEmail } from "../platform/email-template";
import { type Language, type MessageKey, type TextVars, translatorFor } from "../platform/i18n";
import type { Mail } from "../platform/mailer";

// The emails of a failed renewal (api/billing/dunning.ts): at the first failure, before the grace
// period ends, and when the plan ends unpaid. Each is claimed once (notices) before it is sent. Written in
// `lng`, the account's language (docs/decisions/064); amounts, dates and the card's name come written in it.

interface UnpaidRenewal {
  /** '$11.89', VAT included. */
  amount: string;
  /** Its net, VAT line and total (tax.ts's taxSentenceOf); null or absent: no VAT. */
  taxSentence?: string | null;
  /** 'Visa ending in 4242', or null when the card is not saved. */
  card: string | null;
  /** The last day of the grace period, e.g. 'December 14, 2026'. */
  graceUntil: string;
  /** The portal's pay page. */
  link: string;
}

function dunningTexts(lng: Language) {
  const translate = translatorFor(lng);
  return (key: string, vars?: TextVars) => translate(`emails:billing.${key}` as MessageKey, vars);
}

function taxOf(renewal: { taxSentence?: string | null }): { text: string }[] {
  return renewal.taxSentence ? [{ text: renewal.taxSentence }] : [];
}

function charged(renewal: UnpaidRenewal, lng: Language): string {
  return renewal.card ? dunningTexts(lng)("dunning.toCard", { amount: renewal.amount, card: renewal.card }) : renewal.amount;
}

/** The first failure of a renewal invoice. */
export function paymentFailedEmail(to: string, renewal: UnpaidRenewal & { reason: string }, lng: Language): Mail {
  const t = dunningTexts(lng);
  return renderEmail(to, t("subjects.paymentFailed"), {
    lng,
    paragraphs: [
      { text: t("dunning.failed", { charged: charged(renewal, lng), reason: renewal.reason }) },
      ...taxOf(renewal),
      { text: t("dunning.staysActive", { date: renewal.graceUntil }), link: renewal.link },
      { text: t("dunning.otherCard") },
    ],
  });
}

/** A few days before the grace period ends, still unpaid. */
export function gracePeriodEndingEmail(to: string, renewal: UnpaidRenewal, lng: Language): Mail {
  const t = dunningTexts(lng);
  return renderEmail(to, t("subjects.graceEnding"), {
    lng,
    paragraphs: [
      { text: t("dunning.unpaid", { charged: charged(renewal, lng) }) },
      ...taxOf(renewal),
      { text: t("dunning.endsUnlessPaid", { date: renewal.graceUntil }), link: renewal.link },
    ],
  });
}

/** The grace period ended unpaid: the subscription is cancelled. */
export function subscriptionEndedUnpaidEmail(to: string, ended: { plan: string; link: string }, lng: Language): Mail {
  const t = dunningTexts(lng);
  return renderEmail(to, t("subjects.planEnded"), {
    lng,
    paragraphs: [{ text: t("dunning.endedUnpaid", { plan: ended.plan }) }, { text: t("dunning.subscribeAgain"), link: ended.link }],
  });
}

/** Where a PayPal customer fixes how PayPal pays (their automatic payments). */
export const PAYPAL_AUTOPAY = "https://www.paypal.com/myaccount/autopay/";

/** The first failure of a PayPal renewal: PayPal retries it itself, so the customer fixes their PayPal funding. */
export function paypalPaymentFailedEmail(
  to: string,
  renewal: { amount: string; taxSentence?: string | null; reason: string; graceUntil: string },
  lng: Language,
): Mail {
  const t = dunningTexts(lng);
  return renderEmail(to, t("subjects.paymentFailed"), {
    lng,
    paragraphs: [
      { text: t("dunning.paypalFailed", { amount: renewal.amount, reason: renewal.reason }) },
      ...taxOf(renewal),
      { text: t("dunning.paypalStaysActive", { date: renewal.graceUntil }), link: PAYPAL_AUTOPAY },
    ],
  });
}

/** A few days before the grace period of a PayPal renewal ends, still unpaid. */
export function paypalGraceEndingEmail(to: string, renewal: { amount: string; taxSentence?: string | null; graceUntil: string }, lng: Language): Mail {
  const t = dunningTexts(lng);
  return renderEmail(to, t("subjects.graceEnding"), {
    lng,
    paragraphs: [
      { text: t("dunning.paypalUnpaid", { amount: renewal.amount }) },
      ...taxOf(renewal),
      { text: t("dunning.paypalEndsUnless", { date: renewal.graceUntil }), link: PAYPAL_AUTOPAY },
    ],
  });
}
