import type { Plan } from "~/utils/plans";

const SELECT_PLAN_MESSAGE = "Please select a plan.";

/**
 * The small screens' fixed bottom bar (commerce §2): the submit button of the page's GET form. Its words
 * follow the chosen radio once JavaScript runs; the server renders 'Select a Plan' (nothing chosen yet).
 */
export function BuyBar({ chosen, missingChoice }: { chosen: Plan | undefined; missingChoice: boolean }) {
  return (
    <div className="buy-bar">
      <p className="buy-bar__error" role="alert">
        {missingChoice && !chosen ? SELECT_PLAN_MESSAGE : ""}
      </p>
      {/* `buy` marks a submission, so that one with no plan chosen can say so. */}
      <button type="submit" name="buy" value="1" className="button button--primary button--block">
        {chosen ? `Buy for ${chosen.title}` : "Select a Plan"}
      </button>
    </div>
  );
}
