import { Link } from "@remix-run/react";
import type { PaymentFailedView } from "./payment-failed.server";

/** Where the unpaid renewal is paid, and where saved cards are managed. */
export const PAY_PATH = "/billing/pay";
export const UPDATE_PAYMENT_METHOD_PATH = "/billing?tab=payment-method";

/**
 * 'Your last payment failed.' on the home and the billing page while a renewal is unpaid within its
 * grace period: the bank's reason, what is due and until when the plan stays, and two links.
 */
export function PaymentFailedBanner({ failed }: { failed: PaymentFailedView }) {
  if (failed.gateway === "paypal") return <PayPalPaymentFailedBanner failed={failed} />;
  return (
    <section className="payment-failed-banner" role="alert" aria-labelledby="payment-failed-title">
      <h2 id="payment-failed-title">Your last payment failed.</h2>
      <p>{failed.reason}</p>
      <p className="muted">
        {failed.amount}
        {failed.card ? ` on your ${failed.card}` : ""} is due. Your plan stays active until {failed.graceUntil}.
      </p>
      <p className="payment-failed-actions">
        <Link to={PAY_PATH} className="button button--primary">
          Pay now
        </Link>{" "}
        <Link to={UPDATE_PAYMENT_METHOD_PATH} className="button">
          Update payment method
        </Link>
      </p>
    </section>
  );
}

/**
 * A PayPal renewal PayPal could not collect: PayPal retries it itself, so there is nothing to pay here;
 * the customer checks how PayPal pays (balance, bank or card) in their PayPal account.
 */
function PayPalPaymentFailedBanner({ failed }: { failed: PaymentFailedView }) {
  return (
    <section className="payment-failed-banner" role="alert" aria-labelledby="payment-failed-title">
      <h2 id="payment-failed-title">Your last payment failed.</h2>
      <p>{failed.reason}</p>
      <p className="muted">
        PayPal could not collect {failed.amount} and will try again. Your plan stays active until {failed.graceUntil}.
      </p>
      {failed.paypalFundingUrl ? (
        <p className="payment-failed-actions">
          <a href={failed.paypalFundingUrl} className="button button--primary" rel="noreferrer">
            Check your PayPal funding
          </a>
        </p>
      ) : null}
    </section>
  );
}
