import { useTranslation } from "react-i18next";
import type { Plan } from "~/utils/plans";

/**
 * The small screens' fixed bottom bar (commerce §2): the submit button of the page's GET form. Its words
 * follow the chosen radio once JavaScript runs; the server renders 'Select a Plan' (nothing chosen yet).
 */
export function BuyBar({ chosen, missingChoice }: { chosen: Plan | undefined; missingChoice: boolean }) {
  const { t } = useTranslation("pricing");
  return (
    <div className="buy-bar">
      <p className="buy-bar__error" role="alert">
        {missingChoice && !chosen ? t("pricing.buyBar.selectPlanError") : ""}
      </p>
      {/* `buy` marks a submission, so that one with no plan chosen can say so. */}
      <button type="submit" name="buy" value="1" className="button button--primary button--block">
        {chosen ? t("pricing.buyBar.buyFor", { plan: chosen.title }) : t("pricing.buyBar.selectPlan")}
      </button>
    </div>
  );
}
