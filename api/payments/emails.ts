import { renderEmail } from "../platform/email-template";
import type { Mail } from "../platform/mailer";

/** The crypto renewal invoice (commerce §1): crypto plans do not renew by themselves. */
export function cryptoRenewalEmail(
  to: string,
  invoice: { plan: string; amount: string; /** Net, VAT line and total (tax.ts's taxSentenceOf); null: no VAT. */ taxSentence?: string | null; expires: string; link: string },
): Mail {
  return renderEmail(to, "Your VPN renewal invoice", {
    paragraphs: [
      { text: `Your ${invoice.plan} plan, paid with crypto, ends on ${invoice.expires}. Crypto plans do not renew automatically.` },
      { text: `To keep your plan, pay the renewal invoice of ${invoice.amount} with crypto:`, link: invoice.link },
      ...(invoice.taxSentence ? [{ text: invoice.taxSentence }] : []),
      { text: "Crypto payments take 1 to 3 hours to confirm, so please pay before your plan ends." },
    ],
  });
}
