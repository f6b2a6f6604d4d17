import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import type { NextChargeView } from "./next-charge.server";

/** 'Next charge: $9.99 on 26 December, 2026, Visa ending in 4242', or when the plan ends without renewing. */
export function NextCharge({ view }: { view: NextChargeView }) {
  const { t } = useTranslation("billing");
  if (!view) return null;
  if (view.kind === "ends") return <p className="next-charge">{t("billing.nextCharge.ends", { date: view.date })}</p>;
  const components = {
    strong: <strong />,
    amount: <span className="next-charge-amount" />,
    tax: <span className="next-charge-tax" />,
    date: <span className="next-charge-date" />,
    card: <span className="next-charge-card" />,
  };
  const values = { amount: view.amount, tax: view.tax, date: view.date, card: view.card };
  const key = view.tax
    ? view.card
      ? "billing.nextCharge.chargeTaxCard"
      : "billing.nextCharge.chargeTax"
    : view.card
      ? "billing.nextCharge.chargeCard"
      : "billing.nextCharge.charge";
  return (
    <p className="next-charge">
      <Trans t={t} i18nKey={key} values={values} components={components} />
    </p>
  );
}
