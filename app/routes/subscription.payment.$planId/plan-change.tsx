import { Form, Link, useActionData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { SubmitButton } from "~/components/submit-button";
import { useFormatters } from "~/i18n/use-formatters";
import { taxIncluded } from "~/features/tax/tax";
import { TaxLines } from "~/features/tax/tax-lines";
import type { ChangeFigures, PlanChangeState } from "./plan-change.server";
import { planName } from "~/utils/plans";

// The checkout of a subscriber who picked another recurring plan (docs/decisions/028): the change
// instead of a purchase. Plain forms (JavaScript off works); with JavaScript Remix submits them
// without a full reload and the button refuses a second click.

type ActionData = { form?: string; serverError?: string | null } | undefined;

function FormError({ form }: { form: string }) {
  const { t } = useTranslation("checkout");
  const actionData = useActionData<ActionData>();
  const idle = useNavigation().state === "idle";
  const message = idle && actionData?.form === form ? actionData.serverError : null;
  return (
    <p className="form-error" role={message ? "alert" : undefined}>
      {message ? t(message) : ""}
    </p>
  );
}

/** 'Keep current plan': drops the change waiting for the renewal. */
function KeepCurrentPlan() {
  const { t } = useTranslation("checkout");
  return (
    <Form method="post" className="plan-change__keep">
      <input type="hidden" name="intent" value="keep-plan" />
      <FormError form="keep-plan" />
      <SubmitButton intent="keep-plan" className="button button--block">
        {t("checkout.change.keep")}
      </SubmitButton>
    </Form>
  );
}

/** The page instead of the purchase, laid out as the checkout: breadcrumb, heading, the change beside its summary. */
export function PlanChangePage({ state }: { state: Exclude<PlanChangeState, { kind: "replaces" }> }) {
  const { t } = useTranslation("checkout");
  return (
    <div className="checkout">
      <nav aria-label={t("checkout.breadcrumb.label")} className="breadcrumb">
        <ol>
          <li>
            <Link to="/pricing">{t("checkout.breadcrumb.selectPlan")}</Link>
          </li>
          <li aria-current="page">{t("checkout.breadcrumb.changePlan")}</li>
        </ol>
      </nav>
      <h1>{t("checkout.change.title")}</h1>
      {state.kind === "change" && state.notice ? (
        <p className="notice" role="alert">
          {t(state.notice)}
        </p>
      ) : null}
      <div className="checkout-grid">
        <div className="checkout-main">
          <PlanChange state={state} />
        </div>
        {state.figures ? <ChangeSummary figures={state.figures} /> : null}
      </div>
    </div>
  );
}

/** The three figures of the change (the API's, for the preview and the result alike), where the checkout has its order summary. */
function ChangeSummary({ figures }: { figures: ChangeFigures }) {
  const { t } = useTranslation("checkout");
  return (
    <aside aria-labelledby="change-summary-title" className="card order-summary">
      <h2 id="change-summary-title">{t("checkout.change.summary")}</h2>
      <dl>
        <div>
          <dt>{t("checkout.change.newPlan")}</dt>
          <dd>{figures.plan}</dd>
        </div>
        <TaxLines taxed={figures.chargedNowTaxed} />
        <div className="total">
          <dt>{t("checkout.change.chargedNow")}</dt>
          <dd>{figures.chargedNow}</dd>
        </div>
        <div>
          <dt>{t("checkout.change.newEndDate")}</dt>
          <dd>{figures.newEndDate}</dd>
        </div>
        <div>
          <dt>{t("checkout.change.nextRenewal")}</dt>
          <dd>{figures.nextRenewal}</dd>
        </div>
      </dl>
    </aside>
  );
}

function PlanChange({ state }: { state: Exclude<PlanChangeState, { kind: "replaces" }> }) {
  const { t } = useTranslation("checkout");
  const { money, language } = useFormatters();
  if (state.kind === "done") {
    return (
      <section className="card plan-change" aria-labelledby="plan-change-title">
        <h2 id="plan-change-title">{t("checkout.change.yourPlan")}</h2>
        <p className="notice" role="status">
          {t(state.message)}
        </p>
        {state.pendingTitle && state.keepable ? <KeepCurrentPlan /> : null}
        <Link to="/" className="button button--primary">
          {t("checkout.goToAccount")}
        </Link>
      </section>
    );
  }
  const { preview } = state;
  const now = preview.kind === "now";
  const paypal = preview.paid_with === "paypal";
  return (
    <section className="card plan-change" aria-labelledby="plan-change-title">
      <h2 id="plan-change-title">{t("checkout.change.fromTo", { from: planName(preview.current_plan.title, t), to: planName(preview.plan.title, t) })}</h2>
      <dl className="plan-change__summary">
        <dt>{t("checkout.change.currentPlan")}</dt>
        <dd>{planName(preview.current_plan.title, t)}</dd>
        <dt>{t("checkout.change.newPlan")}</dt>
        <dd>{t("checkout.change.newPlanPrice", { plan: planName(preview.plan.title, t), price: money(preview.plan.discounted_price_cents) })}</dd>
        <dt>{now ? t("checkout.change.youPayNow") : t("checkout.change.takesEffect")}</dt>
        <dd className="plan-change__amount">
          {now ? money(preview.amount_due_cents) : t("checkout.change.atRenewal", { date: state.effectiveDate })}
          {now && preview.tax ? <span className="plan-change__tax"> ({taxIncluded(preview.tax, { t, money, language })})</span> : null}
        </dd>
      </dl>
      <p>
        {now
          ? t("checkout.change.now", {
              amount: money(preview.amount_due_cents),
              plan: planName(preview.plan.title, t),
              current: planName(preview.current_plan.title, t),
              date: state.figures.newEndDate,
            })
          : paypal
            ? t("checkout.change.laterPayPal", { plan: planName(preview.plan.title, t), date: state.effectiveDate })
            : t("checkout.change.later", { plan: planName(preview.plan.title, t), date: state.effectiveDate })}
      </p>
      {preview.pending && state.pendingDate ? (
        <p className="notice">{t("checkout.change.replacesPending", { plan: preview.pending.plan.title, date: state.pendingDate })}</p>
      ) : null}
      <Form method="post">
        <input type="hidden" name="intent" value="change-plan" />
        <input type="hidden" name="idempotency_key" value={state.idempotencyKey} />
        {paypal ? <input type="hidden" name="paid_with" value="paypal" /> : null}
        {preview.proration_date !== null ? <input type="hidden" name="proration_date" value={preview.proration_date} /> : null}
        <FormError form="change-plan" />
        <SubmitButton intent="change-plan">{paypal ? t("checkout.paypal.continue") : t("checkout.change.submit")}</SubmitButton>
      </Form>
      {preview.pending && !paypal ? <KeepCurrentPlan /> : null}
    </section>
  );
}

/** Said before the pay buttons of the 5-year plan while a recurring plan runs. */
export function ReplacesNotice({ text }: { text: string }) {
  const { t } = useTranslation("checkout");
  return (
    <p className="notice" role="note">
      {t(text)}
    </p>
  );
}
