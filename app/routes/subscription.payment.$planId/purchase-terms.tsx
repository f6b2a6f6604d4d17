import { purchaseTerms } from "./summary";
import type { CheckoutState } from "./checkout.server";
import type { Receipt } from "./receipt.server";

// What is bought, said plainly (docs/decisions/029): in the order summary before paying, and repeated
// in 'Payment Successful!' with the amount actually charged (a coupon included).

export function PurchaseTerms({ plan, termEndsOn }: { plan: CheckoutState["plan"]; termEndsOn: string }) {
  const terms = purchaseTerms(plan);
  return (
    <div className="purchase-terms">
      <p>
        This payment buys <strong>{terms.buys}</strong>. Your first term ends on <strong>{termEndsOn}</strong>.
      </p>
      <p>{terms.renews}</p>
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
