import { useTranslation } from "react-i18next";
import { useFormatters } from "~/i18n/use-formatters";
import {
  compareTablePlans,
  extraMonthsNote,
  MOST_POPULAR_TABLE_PLAN_ID,
  MONEY_BACK_DAYS,
  savingLabel,
  type Plan,
  type PricingTab,
  planName,
} from "~/utils/plans";

/** The features every plan has (catalogue keys). */
const FEATURES = [
  "pricing.compare.feature.servers",
  "pricing.compare.feature.protection",
  "pricing.compare.feature.devices",
  "pricing.compare.feature.privacy",
  "pricing.compare.feature.support",
];

const TABLES: ReadonlyArray<{ tab: PricingTab; caption: string }> = [
  { tab: "monthly", caption: "pricing.compare.caption.monthly" },
  { tab: "yearly", caption: "pricing.compare.caption.yearly" },
];

/**
 * 'Compare plans' (commerce §2): a monthly and a yearly table, the inactive one `hidden`, and the
 * auto-renewal small print (commerce §1).
 */
export function ComparePlans({ plans, active }: { plans: readonly Plan[]; active: PricingTab }) {
  const { t } = useTranslation("pricing");
  return (
    <section className="compare" aria-labelledby="compare-heading">
      <h2 id="compare-heading">{t("pricing.compare.title")}</h2>
      {TABLES.map(({ tab, caption }) => (
        <div key={tab} className="compare__panel" hidden={tab !== active}>
          {/* On a narrow screen the table scrolls sideways: the keyboard must be able to reach it too. */}
          {/* biome-ignore lint/a11y/useSemanticElements: a scroll box around a table, not a section of the page's outline */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard */}
          <div className="compare__scroll" role="region" aria-labelledby={`compare-${tab}-caption`} tabIndex={0}>
            <CompareTable
              plans={compareTablePlans(plans, tab)}
              caption={t(caption)}
              captionId={`compare-${tab}-caption`}
              flagMostPopular={tab === "yearly"}
            />
          </div>
          <a href="#plans" className="compare__back">
            {t("pricing.compare.back")}
          </a>
        </div>
      ))}
      <div className="small-print">
        <p>{t("pricing.compare.smallPrint.renewal")}</p>
        <p>{t("pricing.compare.smallPrint.crypto")}</p>
      </div>
    </section>
  );
}

type CompareTableProps = { plans: Plan[]; caption: string; captionId: string; flagMostPopular: boolean };

function CompareTable({ plans, caption, captionId, flagMostPopular }: CompareTableProps) {
  const { t } = useTranslation("pricing");
  const { number } = useFormatters();
  const cells = (render: (plan: Plan) => string) => plans.map((plan) => <td key={plan.id}>{render(plan)}</td>);
  return (
    <table className="compare__table">
      <caption id={captionId}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">{t("pricing.compare.plan")}</span>
          </th>
          {plans.map((plan) => (
            <th key={plan.id} scope="col">
              {planName(plan.title, t)}{" "}
              {flagMostPopular && plan.id === MOST_POPULAR_TABLE_PLAN_ID ? (
                <span className="compare__popular">{t("pricing.mostPopular")}</span>
              ) : null}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">{t("pricing.compare.moneyBack")}</th>
          {cells(() => t("pricing.compare.moneyBackDays", { count: MONEY_BACK_DAYS }))}
        </tr>
        <tr>
          <th scope="row">{t("pricing.compare.extraMonths")}</th>
          {cells((plan) => t(extraMonthsNote(plan.desktop_label)))}
        </tr>
        <tr>
          <th scope="row">{t("pricing.compare.saving")}</th>
          {cells(savingLabel)}
        </tr>
        <tr>
          <th scope="row">{t("pricing.compare.totalDiscount")}</th>
          {cells((plan) => t("pricing.compare.percent", { percent: number(plan.discount_percent) }))}
        </tr>
        {FEATURES.map((feature) => (
          <tr key={feature}>
            <th scope="row">{t(feature)}</th>
            {plans.map((plan) => (
              <td key={plan.id}>
                <span aria-hidden="true" className="compare__check">
                  ✓
                </span>
                <span className="visually-hidden">{t("pricing.compare.included")}</span>
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
