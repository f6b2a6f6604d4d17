import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { useFormatters } from "~/i18n/use-formatters";
import {
  extraMonths,
  isCurrentPlan,
  isMostPopular,
  isOneTimePlan,
  MONEY_BACK_DAYS,
  paymentPath,
  perMonthPrice,
  planButtonLabel,
  REGULAR_MONTHLY_PRICE_CENTS,
  savingsBadge,
  type Plan,
  planName,
} from "~/utils/plans";

type PlanCardProps = {
  plan: Plan;
  /** Chosen in the small-screen radio group. */
  selected: boolean;
  onSelect: (planId: number) => void;
  /** The account has a recurring plan: the other recurring plans are changes (docs/decisions/028). */
  subscriber?: boolean;
  /** On the current plan: the change waiting for the next renewal, if any. */
  pendingNote?: string | null;
};

/**
 * One plan of the grid (commerce §2). Its radio (small screens only, hidden by CSS on wide ones) belongs
 * to the page's GET form; its heading is the radio's label, so the card's name and the radio's are
 * both the plan's title.
 */
export function PlanCard({ plan, selected, onSelect, subscriber = false, pendingNote = null }: PlanCardProps) {
  const { t } = useTranslation("pricing");
  const { money } = useFormatters();
  const radioId = `plan-${plan.id}`;
  const titleId = `plan-${plan.id}-title`;
  const current = isCurrentPlan(plan);
  const popular = isMostPopular(plan);
  const badge = savingsBadge(plan, t);
  const extra = extraMonths(plan.desktop_label);

  return (
    <article
      className={`plan-card${popular ? " plan-card--popular" : ""}${current ? " plan-card--current" : ""}`}
      aria-labelledby={titleId}
    >
      {popular ? <p className="plan-card__ribbon">{t("pricing.mostPopular")}</p> : null}
      <div className="plan-card__head">
        <input
          type="radio"
          name="plan"
          id={radioId}
          value={plan.id}
          className="plan-card__radio"
          checked={selected}
          disabled={current}
          onChange={() => onSelect(plan.id)}
        />
        <h3 id={titleId} className="plan-card__title">
          <label htmlFor={radioId}>{planName(plan.title, t)}</label>
        </h3>
        {badge ? <span className="plan-card__badge">{badge}</span> : null}
      </div>

      <p className="plan-card__price">
        <strong className="plan-card__amount">{perMonthPrice(plan, money)}</strong>
        <span>{t("pricing.plan.perMonth")}</span>{" "}
        <s className="plan-card__regular">
          <span className="visually-hidden">{t("pricing.plan.regularPrice")} </span>
          {money(REGULAR_MONTHLY_PRICE_CENTS)}
        </s>
      </p>

      <p className={extra ? "plan-card__extra" : "plan-card__extra plan-card__extra--none"}>{extra ?? t("pricing.plan.noExtraMonths")}</p>

      <p className="plan-card__total">
        <s>
          <span className="visually-hidden">{t("pricing.plan.regularPrice")} </span>
          {money(plan.regular_price_cents)}
        </s>{" "}
        <Trans
          t={t}
          i18nKey="pricing.plan.totalFor"
          values={{ price: money(plan.discounted_price_cents), plan: planName(plan.title, t) }}
          components={{ strong: <strong /> }}
        />
      </p>

      {isOneTimePlan(plan) ? (
        <p className="plan-card__one-time">{t("pricing.plan.oneTime")}</p>
      ) : null}

      {current && pendingNote ? <p className="plan-card__pending">{pendingNote}</p> : null}

      {current ? (
        <button type="button" className="button button--block" disabled aria-describedby={titleId}>
          {t(planButtonLabel(plan, subscriber))}
        </button>
      ) : (
        <Link to={paymentPath(plan)} className="button button--primary button--block" aria-describedby={titleId}>
          {t(planButtonLabel(plan, subscriber))}
        </Link>
      )}

      <p className="plan-card__guarantee">{t("pricing.plan.guarantee", { count: MONEY_BACK_DAYS })}</p>
    </article>
  );
}
