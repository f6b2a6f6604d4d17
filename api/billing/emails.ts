import { renderEmail } from "../platform/email-template";
import { type Language, type MessageKey, type TextVars, formatDateIn, formatDateTimeIn, translatorFor } from "../platform/i18n";
import type { Mail } from "../platform/mailer";

/*
 * Billing's emails, in `lng`: the recipient account's language (users.language, docs/decisions/064). The texts
 * are api/locales/<lng>/emails.json's `billing`; amounts come in already written for the language (formatMoney),
 * dates as ISO 8601, written here (formatDateIn: English exactly as the portal shows them).
 */

/** The billing texts of a language: `t("receipt.thanks")` is emails:billing.receipt.thanks. */
function billingTexts(lng: Language) {
  const translate = translatorFor(lng);
  return (key: string, vars?: TextVars) => translate(`emails:billing.${key}` as MessageKey, vars);
}

/** The money-back guarantee: a card or wallet payment returned in full (docs/decisions/016). */
export function refundConfirmationEmail(
  to: string,
  refund: { amount: string; /** A crypto refund: where staff sent it, and its credit note's number. */ crypto?: { address: string; creditNote: string | null } },
  lng: Language,
): Mail {
  const t = billingTexts(lng);
  return renderEmail(to, t("subjects.refundConfirmation"), {
    lng,
    paragraphs: [
      { text: t("refund.full", { amount: refund.amount }) },
      { text: t("refund.free") },
      refund.crypto
        ? {
            text: `${t("refund.cryptoSent", { address: refund.crypto.address })}${refund.crypto.creditNote ? ` ${t("refund.creditNote", { creditNote: refund.crypto.creditNote })}` : ""}`,
          }
        : { text: t("refund.bank") },
    ],
  });
}

/** The money-back guarantee for a crypto payment: the request is recorded, staff send the refund. */
export function refundRequestEmail(to: string, request: { amount: string; address: string }, lng: Language): Mail {
  const t = billingTexts(lng);
  return renderEmail(to, t("subjects.refundRequest"), {
    lng,
    paragraphs: [
      { text: t("refund.requested", { amount: request.amount }) },
      { text: t("refund.willSend", { address: request.address }) },
      { text: t("refund.free") },
    ],
  });
}

/*
 * The notices owed over a subscription's life (docs/decisions/029): each is claimed once in
 * api/billing/notices.ts before it is sent. Dates are written as the portal shows them (api/platform/dates.ts).
 */

export interface CardLabel {
  brand: string;
  last4: string;
}

/** 'Visa ending in 4242' ('Visa mit Endziffern 4242'). */
export function cardName(card: CardLabel, lng: Language): string {
  const t = billingTexts(lng);
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : t("cards.card");
  return t("cards.name", { brand, last4: card.last4 });
}

/** The card's name, or 'your saved card' when it is not known. */
export function cardLabel(card: CardLabel | null, lng: Language): string {
  return card ? cardName(card, lng) : billingTexts(lng)("cards.saved");
}

/** '1 month', '27 months'. */
export function monthsText(count: number, lng: Language): string {
  return billingTexts(lng)("months", { count });
}

/** What a first payment buys: '27 months (24 months + 3 months free)', or '1 month'. */
export function buysText(paidMonths: number, extraMonths: number, lng: Language): string {
  if (extraMonths <= 0) return monthsText(paidMonths, lng);
  return billingTexts(lng)("buys", {
    total: monthsText(paidMonths + extraMonths, lng),
    paid: monthsText(paidMonths, lng),
    free: monthsText(extraMonths, lng),
  });
}

/** 'every month', 'every 3 months', 'every year', 'every 2 years': the interval between renewals. */
export function everyText(months: number, lng: Language): string {
  const t = billingTexts(lng);
  if (months % 12 === 0) return months === 12 ? t("every.year") : t("every.years", { count: months / 12 });
  return months === 1 ? t("every.month") : t("every.months", { count: months });
}

/** A receipt for a paid charge (first purchase, renewal, retry, plan change, wallet, crypto). */
export function receiptEmail(
  to: string,
  receipt: {
    amount: string;
    plan: string;
    periodStart: string;
    periodEnd: string;
    paidWith: string;
    invoiceUrl: string;
    number: string;
    /** A first payment: what it buys ('27 months (24 months + 3 months free)'). */
    buys?: string | null;
    /** What renews then (terms.ts, as the checkout's quote said it): null, it does not renew by itself. */
    renewal?: { amount: string; everyMonths: number; on: string } | null;
    /** Crypto: a renewal invoice is emailed instead. */
    crypto?: boolean;
    /** The invoice's net, VAT line and total, as tax.ts's taxSentenceOf words them; null: no VAT applied. */
    taxSentence?: string | null;
  },
  lng: Language,
): Mail {
  const t = billingTexts(lng);
  const renewal =
    receipt.renewal === undefined
      ? []
      : receipt.renewal
        ? [
            {
              text: t("receipt.renews", {
                date: formatDateIn(lng, receipt.renewal.on),
                amount: receipt.renewal.amount,
                every: everyText(receipt.renewal.everyMonths, lng),
              }),
            },
          ]
        : [{ text: t(receipt.crypto ? "receipt.cryptoNoRenew" : "receipt.noRenew") }];
  return renderEmail(to, t("subjects.receipt"), {
    lng,
    paragraphs: [
      { text: t("receipt.thanks", { amount: receipt.amount, plan: receipt.plan }) },
      ...(receipt.taxSentence ? [{ text: receipt.taxSentence }] : []),
      ...(receipt.buys ? [{ text: t("receipt.buys", { buys: receipt.buys }) }] : []),
      { text: t("receipt.period", { start: formatDateIn(lng, receipt.periodStart), end: formatDateIn(lng, receipt.periodEnd) }) },
      ...renewal,
      { text: t("receipt.paidWith", { paidWith: receipt.paidWith }) },
      { text: t("receipt.invoice", { number: receipt.number }), link: receipt.invoiceUrl },
    ],
  });
}

/** Before a renewal (30 days ahead for plans of a year or longer, 7 days for shorter ones). */
export function renewalReminderEmail(
  to: string,
  reminder: {
    plan: string;
    changesTo?: string | null;
    date: string;
    /** VAT included. */
    amount: string;
    /** Its net, VAT line and total (tax.ts's taxSentenceOf); null: no VAT. */
    taxSentence?: string | null;
    card: CardLabel | null;
    settingsUrl: string;
    paypal?: boolean;
  },
  lng: Language,
): Mail {
  const t = billingTexts(lng);
  const date = formatDateIn(lng, reminder.date);
  return renderEmail(to, t("subjects.renewalReminder"), {
    lng,
    paragraphs: [
      {
        text: reminder.changesTo
          ? t("reminder.renewsAs", { plan: reminder.plan, date, changesTo: reminder.changesTo })
          : t("reminder.renews", { plan: reminder.plan, date }),
      },
      {
        text: reminder.paypal
          ? t("reminder.paypal", { amount: reminder.amount })
          : t("reminder.card", { amount: reminder.amount, card: cardLabel(reminder.card, lng) }),
      },
      ...(reminder.taxSentence ? [{ text: reminder.taxSentence }] : []),
      { text: t("reminder.turnOff"), link: reminder.settingsUrl },
    ],
  });
}

/** Confirms that auto-renewal was turned off or on, with the date and time of the change. */
export function autoRenewalEmail(
  to: string,
  change: { enabled: boolean; plan: string; at: string; endsOn: string; amount: string; taxSentence?: string | null; settingsUrl: string },
  lng: Language,
): Mail {
  const t = billingTexts(lng);
  const at = formatDateTimeIn(lng, change.at);
  const date = formatDateIn(lng, change.endsOn);
  const paragraphs = change.enabled
    ? [
        // The time after a colon: 'turned on on November 28' read as a typo (issue 33).
        { text: t("autoRenewal.on", { plan: change.plan, at }) },
        { text: t("autoRenewal.renewsOn", { date, amount: change.amount }) },
        ...(change.taxSentence ? [{ text: change.taxSentence }] : []),
      ]
    : [{ text: t("autoRenewal.off", { plan: change.plan, at }) }, { text: t("autoRenewal.endsOn", { date }) }];
  return renderEmail(to, t(change.enabled ? "subjects.autoRenewalOn" : "subjects.autoRenewalOff"), {
    lng,
    paragraphs: [...paragraphs, { text: t("autoRenewal.change"), link: change.settingsUrl }],
  });
}

/** A month before the card that pays an active subscription expires; `expires` is its month ('March 2027'). */
export function cardExpiryEmail(to: string, notice: { card: CardLabel; expires: string; updateUrl: string }, lng: Language): Mail {
  const t = billingTexts(lng);
  return renderEmail(to, t("subjects.cardExpiry"), {
    lng,
    paragraphs: [
      { text: t("cardExpiry.body", { card: cardLabel(notice.card, lng), expires: notice.expires }) },
      { text: t("cardExpiry.addCard"), link: notice.updateUrl },
    ],
  });
}

/** A plan ended because auto-renewal was off or a one-time (or crypto) plan ran out. */
export function planEndedEmail(to: string, ended: { plan: string; endedOn: string; pricingUrl: string }, lng: Language): Mail {
  const t = billingTexts(lng);
  return renderEmail(to, t("subjects.planEnded"), {
    lng,
    paragraphs: [
      { text: t("planEnded.body", { plan: ended.plan, date: formatDateIn(lng, ended.endedOn) }) },
      { text: t("planEnded.free"), link: ended.pricingUrl },
    ],
  });
}
