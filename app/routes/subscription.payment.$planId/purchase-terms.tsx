import { buysLabel, type Quote, renewalSentences } from "./summary";
import type { Receipt } from "./receipt.server";

// What is bought, said plainly (docs/decisions/029): in the order summary before paying, and repeated
// in 'Payment Successful!' with the amount actually charged (a coupon included). Both say the API's
// answer (the quotes, the recorded payment: issue 32), formatted.

export function PurchaseTerms({ quotes, termEndsOn }: { quotes: Quote[]; termEndsOn: string }) {
  const first = quotes[0];
  if (!first) return null;
  return (
    <div className="purchase-terms">
      <p>
        This payment buys <strong>{buysLabel(first)}</strong>. Your first term ends on <strong>{termEndsOn}</strong>.
      </p>
      {renewalSentences(quotes).map((sentence) => (
        <p key={sentence}>{sentence}</p>
      ))}
    </div>
  );
}

export function PaidConfirmationDetails({ confirmation }: { confirmation: Receipt }) {
  return (
    <div className="purchase-terms">
      <p>
        You paid <strong>{confirmation.charged}</strong> for the {confirmation.plan} plan: <strong>{confirmation.buys}</strong>.
      </p>
      <p>
        Your first term ends on <strong>{confirmation.termEndsOn}</strong>. {confirmation.terms}
      </p>
    </div>
  );
}
