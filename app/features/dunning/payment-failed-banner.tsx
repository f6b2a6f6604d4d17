import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { PaymentFailedView } from "./payment-failed.server";

/** Where the unpaid renewal is paid, and where saved cards are managed. */
export const PAY_PATH = "/billing/pay";
export const UPDATE_PAYMENT_METHOD_PATH = "/billing?tab=payment-method";

/** '$9.99 on your Visa ending in 4242 is due. Your plan stays active until 14 December, 2026.' (the banner's and the pay page's words). */
export function useDueSentence() {
  const { t } = useTranslation("billing");
  return (failed: PaymentFailedView) =>
    failed.card
      ? t("billing.dunning.dueOnCard", { amount: failed.amount, card: failed.card, date: failed.graceUntil })
      : t("billing.dunning.due", { amount: failed.amount, date: failed.graceUntil });
}

/**
 * 'Your last payment failed.' on the home and the billing page while a renewal is unpaid within its
 * grace period: the bank's reason, what is due and until when the plan stays, and two links.
 */
export function PaymentFailedBanner({ failed }: { failed: PaymentFailedView }) {
  const { t } = useTranslation("billing");
  const due = useDueSentence();
  if (failed.gateway === "paypal") return <PayPalPaymentFailedBanner failed={failed} />;
  return (
    <section className="payment-failed-banner" role="alert" aria-labelledby="payment-failed-title">
      <h2 id="payment-failed-title">{t("billing.dunning.title")}</h2>
      <p>{failed.reason}</p>
      <p className="muted">{due(failed)}</p>
      <p className="payment-failed-actions">
        <Link to={PAY_PATH} className="button button--primary">
          {t("billing.dunning.payNow")}
        </Link>{" "}
        <Link to={UPDATE_PAYMENT_METHOD_PATH} className="button">
          {t("billing.dunning.updatePaymentMethod")}
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
  const { t } = useTranslation("billing");
  return (
    <section className="payment-failed-banner" role="alert" aria-labelledby="payment-failed-title">
      <h2 id="payment-failed-title">{t("billing.dunning.title")}</h2>
      <p>{failed.reason}</p>
      <p className="muted">{t("billing.dunning.paypalRetries", { amount: failed.amount, date: failed.graceUntil })}</p>
      {failed.paypalFundingUrl ? (
        <p className="payment-failed-actions">
          <a href={failed.paypalFundingUrl} className="button button--primary" rel="noreferrer">
            {t("billing.dunning.checkPayPalFunding")}
          </a>
        </p>
      ) : null}
    </section>
  );
}
