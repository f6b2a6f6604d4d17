import { renderEmail } from "../platform/email-template";
import { formatDate, formatDateTime } from "../platform/dates";
import type { Mail } from "../platform/mailer";

/** The money-back guarantee: a card or wallet payment returned in full (docs/decisions/016). */
export function refundConfirmationEmail(
  to: string,
  refund: { amount: string; /** A crypto refund: where staff sent it, and its credit note's number. */ crypto?: { address: string; creditNote: string | null } },
): Mail {
  return renderEmail(to, "Your VPN payment was refunded", {
    paragraphs: [
      { text: `We have refunded your payment of ${refund.amount} in full, under our 30-day money-back guarantee.` },
      { text: "Your subscription has ended and your account is now on the Free plan." },
      refund.crypto
        ? { text: `We sent the refund to ${refund.crypto.address}.${refund.crypto.creditNote ? ` Its credit note is ${refund.crypto.creditNote}, in your billing history.` : ""}` }
        : { text: "Your bank usually shows the refund within 5 to 10 business days." },
    ],
  });
}

/** The money-back guarantee for a crypto payment: the request is recorded, staff send the refund. */
export function refundRequestEmail(to: string, request: { amount: string; address: string }): Mail {
  return renderEmail(to, "We received your VPN refund request", {
    paragraphs: [
      { text: `We received your request to refund your crypto payment of ${request.amount} under our 30-day money-back guarantee.` },
      { text: `We will send the refund to this address: ${request.address}` },
      { text: "Your subscription has ended and your account is now on the Free plan." },
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

/** 'Visa ending in 4242'. */
export function cardName(card: CardLabel): string {
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : "Card";
  return `${brand} ending in ${card.last4}`;
}

/** The card's name, or 'your saved card' when it is not known. */
export function cardLabel(card: CardLabel | null): string {
  return card ? cardName(card) : "your saved card";
}

/** '1 month', '27 months'. */
export function monthsText(count: number): string {
  return `${count} month${count === 1 ? "" : "s"}`;
}

/** What a first payment buys: '27 months (24 months + 3 months free)', or '1 month'. */
export function buysText(paidMonths: number, extraMonths: number): string {
  return extraMonths > 0 ? `${monthsText(paidMonths + extraMonths)} (${monthsText(paidMonths)} + ${monthsText(extraMonths)} free)` : monthsText(paidMonths);
}

/** 'month', '3 months', 'year', '2 years': the interval between renewals. */
export function everyText(months: number): string {
  if (months % 12 === 0) return months === 12 ? "year" : `${months / 12} years`;
  return months === 1 ? "month" : `${months} months`;
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
): Mail {
  const renewal =
    receipt.renewal === undefined
      ? []
      : receipt.renewal
        ? [{ text: `It renews automatically on ${formatDate(receipt.renewal.on)} at ${receipt.renewal.amount} every ${everyText(receipt.renewal.everyMonths)}, until you turn auto-renewal off.` }]
        : [{ text: receipt.crypto ? "It does not renew by itself: we email you a renewal invoice 3 days before your plan ends." : "It does not renew: nothing more is charged." }];
  return renderEmail(to, "Your VPN receipt", {
    paragraphs: [
      { text: `Thank you for your payment of ${receipt.amount} for the ${receipt.plan} plan.` },
      ...(receipt.taxSentence ? [{ text: receipt.taxSentence }] : []),
      ...(receipt.buys ? [{ text: `This payment buys ${receipt.buys}.` }] : []),
      { text: `It pays for ${formatDate(receipt.periodStart)} to ${formatDate(receipt.periodEnd)}.` },
      ...renewal,
      { text: `Paid with: ${receipt.paidWith}.` },
      { text: `Invoice ${receipt.number}:`, link: receipt.invoiceUrl },
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
): Mail {
  const as = reminder.changesTo ? `, as the ${reminder.changesTo} plan you changed to` : "";
  return renderEmail(to, "Your VPN plan renews soon", {
    paragraphs: [
      { text: `Your ${reminder.plan} plan renews automatically on ${formatDate(reminder.date)}${as}.` },
      { text: reminder.paypal ? `PayPal will collect ${reminder.amount} from your PayPal account.` : `We will charge ${reminder.amount} to ${cardLabel(reminder.card)}.` },
      ...(reminder.taxSentence ? [{ text: reminder.taxSentence }] : []),
      { text: "You can turn auto-renewal off in your billing settings:", link: reminder.settingsUrl },
    ],
  });
}

/** Confirms that auto-renewal was turned off or on, with the date and time of the change. */
export function autoRenewalEmail(
  to: string,
  change: { enabled: boolean; plan: string; at: string; endsOn: string; amount: string; taxSentence?: string | null; settingsUrl: string },
): Mail {
  const paragraphs = change.enabled
    ? [
        // The time after a colon: 'turned on on November 28' read as a typo (issue 33).
        { text: `You turned on auto-renewal of your ${change.plan} plan: ${formatDateTime(change.at)}.` },
        { text: `Your plan renews on ${formatDate(change.endsOn)} for ${change.amount}.` },
        ...(change.taxSentence ? [{ text: change.taxSentence }] : []),
      ]
    : [
        { text: `You turned off auto-renewal of your ${change.plan} plan: ${formatDateTime(change.at)}.` },
        { text: `Your plan ends on ${formatDate(change.endsOn)} and will not be charged again.` },
      ];
  return renderEmail(to, change.enabled ? "Auto-renewal is on" : "Auto-renewal is off", {
    paragraphs: [...paragraphs, { text: "You can change this setting at any time in your billing settings:", link: change.settingsUrl }],
  });
}

/** A month before the card that pays an active subscription expires. */
export function cardExpiryEmail(to: string, notice: { card: CardLabel; expires: string; updateUrl: string }): Mail {
  return renderEmail(to, "Your card expires soon", {
    paragraphs: [
      { text: `${cardLabel(notice.card)}, which pays your VPN plan, expires at the end of ${notice.expires}.` },
      { text: "Please add a new card so that your plan continues without interruption:", link: notice.updateUrl },
    ],
  });
}

/** A plan ended because auto-renewal was off or a one-time (or crypto) plan ran out. */
export function planEndedEmail(to: string, ended: { plan: string; endedOn: string; pricingUrl: string }): Mail {
  return renderEmail(to, "Your VPN plan has ended", {
    paragraphs: [
      { text: `Your ${ended.plan} plan ended on ${formatDate(ended.endedOn)}.` },
      { text: "Your account is now on the Free plan. You can choose a new plan at any time:", link: ended.pricingUrl },
    ],
  });
}
