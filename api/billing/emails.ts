import { renderEmail } from "../platform/email-template";
import type { Mail } from "../platform/mailer";

/** The money-back guarantee: a card or wallet payment returned in full (docs/decisions/016). */
export function refundConfirmationEmail(to: string, refund: { amount: string }): Mail {
  return renderEmail(to, "Your VPN payment was refunded", {
    paragraphs: [
      { text: `We have refunded your payment of ${refund.amount} in full, under our 30-day money-back guarantee.` },
      { text: "Your subscription has ended and your account is now on the Free plan." },
      { text: "Your bank usually shows the refund within 5 to 10 business days." },
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
