import { renderEmail } from "../platform/email-template";
import { type Language, translatorFor } from "../platform/i18n";
import type { Mail } from "../platform/mailer";

/** The crypto renewal invoice (commerce §1): crypto plans do not renew by themselves. In the account's language. */
export function cryptoRenewalEmail(
  to: string,
  invoice: { plan: string; amount: string; /** Net, VAT line and total (tax.ts's taxSentenceOf); null: no VAT. */ taxSentence?: string | null; expires: string; link: string },
  lng: Language,
): Mail {
  const t = translatorFor(lng);
  return renderEmail(to, t("emails:billing.subjects.cryptoRenewal"), {
    lng,
    paragraphs: [
      { text: t("emails:billing.crypto.ends", { plan: invoice.plan, date: invoice.expires }) },
      { text: t("emails:billing.crypto.pay", { amount: invoice.amount }), link: invoice.link },
      ...(invoice.taxSentence ? [{ text: invoice.taxSentence }] : []),
      { text: t("emails:billing.crypto.confirm") },
    ],
  });
}
