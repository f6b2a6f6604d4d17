import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { PRICING_TABS, type PricingTab } from "~/utils/plans";

/**
 * The Yearly / Monthly toggle: two links, so it works without JavaScript and keeps the same role and
 * names with it (DESIGN §2, §3). With JavaScript the route skips its loader for a tab change
 * (shouldRevalidate), so switching costs no server round trip.
 */
export function BillingPeriodTabs({ active }: { active: PricingTab }) {
  const { t } = useTranslation("pricing");
  return (
    <nav aria-label={t("pricing.tabs.label")} className="period-toggle">
      {PRICING_TABS.map(({ tab, label }) => (
        <Link
          key={tab}
          to={`?tab=${tab}`}
          replace
          preventScrollReset
          aria-current={tab === active ? "page" : undefined}
          className="period-toggle__link"
        >
          {t(label)}
        </Link>
      ))}
    </nav>
  );
}
