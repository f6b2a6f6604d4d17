import { renderEmail } from "../platform/email-template";
import type { Mail } from "../platform/mailer";

// The emails of a failed renewal (api/billing/dunning.ts): at the first failure, before the grace
// period ends, and when the plan ends unpaid. Each is claimed once (notices) before it is sent.

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

function taxOf(renewal: { taxSentence?: string | null }): { text: string }[] {
  return renewal.taxSentence ? [{ text: renewal.taxSentence }] : [];
}

function charged(renewal: UnpaidRenewal): string {
  return renewal.card ? `${renewal.amount} to your ${renewal.card}` : renewal.amount;
}

/** The first failure of a renewal invoice. */
export function paymentFailedEmail(to: string, renewal: UnpaidRenewal & { reason: string }): Mail {
  return renderEmail(to, "Your VPN payment failed", {
    paragraphs: [
      { text: `We could not charge your subscription renewal of ${charged(renewal)}: ${renewal.reason}` },
      ...taxOf(renewal),
      { text: `Your plan stays active until ${renewal.graceUntil} while we retry the payment. Pay now to keep it:`, link: renewal.link },
      { text: "You can also pay with another card or update your payment method there." },
    ],
  });
}

/** A few days before the grace period ends, still unpaid. */
export function gracePeriodEndingEmail(to: string, renewal: UnpaidRenewal): Mail {
  return renderEmail(to, "Your VPN plan ends soon: payment needed", {
    paragraphs: [
      { text: `Your subscription renewal of ${charged(renewal)} is still unpaid.` },
      ...taxOf(renewal),
      { text: `Your plan ends on ${renewal.graceUntil} unless it is paid. Pay now:`, link: renewal.link },
    ],
  });
}

/** The grace period ended unpaid: the subscription is cancelled. */
export function subscriptionEndedUnpaidEmail(to: string, ended: { plan: string; link: string }): Mail {
  return renderEmail(to, "Your VPN plan has ended", {
    paragraphs: [
      { text: `Your ${ended.plan} plan has ended because its renewal was not paid.` },
      { text: "Your account is now on the Free plan. You can subscribe again at any time:", link: ended.link },
    ],
  });
}

/** Where a PayPal customer fixes how PayPal pays (their automatic payments). */
export const PAYPAL_AUTOPAY = "https://www.paypal.com/myaccount/autopay/";

/** The first failure of a PayPal renewal: PayPal retries it itself, so the customer fixes their PayPal funding. */
export function paypalPaymentFailedEmail(to: string, renewal: { amount: string; taxSentence?: string | null; reason: string; graceUntil: string }): Mail {
  return renderEmail(to, "Your VPN payment failed", {
    paragraphs: [
      { text: `PayPal could not collect your subscription renewal of ${renewal.amount}: ${renewal.reason}` },
      ...taxOf(renewal),
      { text: `Your plan stays active until ${renewal.graceUntil} while PayPal retries the payment. Please check how PayPal pays for it (your PayPal balance, bank account or card) in your PayPal account:`, link: PAYPAL_AUTOPAY },
    ],
  });
}

/** A few days before the grace period of a PayPal renewal ends, still unpaid. */
export function paypalGraceEndingEmail(to: string, renewal: { amount: string; taxSentence?: string | null; graceUntil: string }): Mail {
  return renderEmail(to, "Your VPN plan ends soon: payment needed", {
    paragraphs: [
      { text: `Your subscription renewal of ${renewal.amount} is still unpaid at PayPal.` },
      ...taxOf(renewal),
      { text: `Your plan ends on ${renewal.graceUntil} unless PayPal can collect it. Check your PayPal funding:`, link: PAYPAL_AUTOPAY },
    ],
  });
}
