import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { useFormatters } from "~/i18n/use-formatters";
import { buysLabel, type Quote, renewalSentences } from "./summary";
import type { Receipt } from "./receipt.server";

// What is bought, said plainly (docs/decisions/029): in the order summary before paying, and repeated
// in 'Payment Successful!' with the amount actually charged (a coupon included). Both say the API's
// answer (the quotes, the recorded payment: issue 32), formatted.

const strong = { strong: <strong /> };

export function PurchaseTerms({ quotes, termEndsOn }: { quotes: Quote[]; termEndsOn: string }) {
  const { t } = useTranslation("checkout");
  const { money } = useFormatters();
  const first = quotes[0];
  if (!first) return null;
  return (
    <div className="purchase-terms">
      <p>
        <Trans t={t} i18nKey="checkout.terms.buys" values={{ buys: buysLabel(first, t), date: termEndsOn }} components={strong} />
      </p>
      {renewalSentences(quotes, { t, money }).map((sentence) => (
        <p key={sentence}>{sentence}</p>
      ))}
    </div>
  );
}

export function PaidConfirmationDetails({ confirmation }: { confirmation: Receipt }) {
  const { t } = useTranslation("checkout");
  return (
    <div className="purchase-terms">
      <p>
        <Trans
          t={t}
          i18nKey="checkout.paid.youPaid"
          values={{ charged: confirmation.charged, plan: confirmation.plan, buys: confirmation.buys }}
          components={strong}
        />
      </p>
      <p>
        <Trans t={t} i18nKey="checkout.paid.termEnds" values={{ date: confirmation.termEndsOn, terms: confirmation.terms }} components={strong} />
      </p>
    </div>
  );
}
