import {
  compareTablePlans,
  extraMonthsNote,
  MOST_POPULAR_TABLE_PLAN_ID,
  MONEY_BACK_DAYS,
  savingLabel,
  type Plan,
  type PricingTab,
} from "~/utils/plans";

const FEATURES = [
  "High-Speed Worldwide Servers",
  "Industry-Leading Protection",
  "Unlimited Device Protection",
  "Complete Online Privacy",
  "Customer Support",
];

const TABLES: ReadonlyArray<{ tab: PricingTab; caption: string }> = [
  { tab: "monthly", caption: "Monthly plans compared" },
  { tab: "yearly", caption: "Yearly plans compared" },
];

/**
 * 'Compare plans' (commerce §2): a monthly and a yearly table, the inactive one `hidden`, and the
 * auto-renewal small print (commerce §1).
 */
export function ComparePlans({ plans, active }: { plans: readonly Plan[]; active: PricingTab }) {
  return (
    <section className="compare" aria-labelledby="compare-heading">
      <h2 id="compare-heading">Compare plans</h2>
      {TABLES.map(({ tab, caption }) => (
        <div key={tab} className="compare__panel" hidden={tab !== active}>
          {/* On a narrow screen the table scrolls sideways: the keyboard must be able to reach it too. */}
          {/* biome-ignore lint/a11y/useSemanticElements: a scroll box around a table, not a section of the page's outline */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard */}
          <div className="compare__scroll" role="region" aria-labelledby={`compare-${tab}-caption`} tabIndex={0}>
            <CompareTable
              plans={compareTablePlans(plans, tab)}
              caption={caption}
              captionId={`compare-${tab}-caption`}
              flagMostPopular={tab === "yearly"}
            />
          </div>
          <a href="#plans" className="compare__back">
            Back to plans
          </a>
        </div>
      ))}
      <div className="small-print">
        <p>
          Plans renew automatically unless auto-renewal is switched off at least 24 hours before the end of the billing
          cycle. We offer 1-month, 3-month, 6-month, 1-year and 2-year recurring plans, plus a 5-year one-time plan that
          does not renew.
        </p>
        <p>
          Plans paid with cryptocurrency do not renew automatically: we send a crypto renewal invoice 3 days before your
          plan expires, and a crypto payment takes 1 to 3 hours to confirm. Payments are processed in USD and provider
          fees may apply.
        </p>
      </div>
    </section>
  );
}

type CompareTableProps = { plans: Plan[]; caption: string; captionId: string; flagMostPopular: boolean };

function CompareTable({ plans, caption, captionId, flagMostPopular }: CompareTableProps) {
  const cells = (render: (plan: Plan) => string) => plans.map((plan) => <td key={plan.id}>{render(plan)}</td>);
  return (
    <table className="compare__table">
      <caption id={captionId}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Plan</span>
          </th>
          {plans.map((plan) => (
            <th key={plan.id} scope="col">
              {plan.title}{" "}
              {flagMostPopular && plan.id === MOST_POPULAR_TABLE_PLAN_ID ? (
                <span className="compare__popular">Most popular</span>
              ) : null}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        <tr>
          <th scope="row">Money-back Guarantee</th>
          {cells(() => `${MONEY_BACK_DAYS}-day`)}
        </tr>
        <tr>
          <th scope="row">Extra Months</th>
          {cells((plan) => extraMonthsNote(plan.desktop_label))}
        </tr>
        <tr>
          <th scope="row">Saving</th>
          {cells(savingLabel)}
        </tr>
        <tr>
          <th scope="row">Total Discount</th>
          {cells((plan) => `${plan.discount_percent}%`)}
        </tr>
        {FEATURES.map((feature) => (
          <tr key={feature}>
            <th scope="row">{feature}</th>
            {plans.map((plan) => (
              <td key={plan.id}>
                <span aria-hidden="true" className="compare__check">
                  ✓
                </span>
                <span className="visually-hidden">Included</span>
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
