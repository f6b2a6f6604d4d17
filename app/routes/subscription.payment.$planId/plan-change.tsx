import { Form, Link, useActionData, useNavigation } from "@remix-run/react";
import { SubmitButton } from "~/components/submit-button";
import { formatCents } from "~/utils/plans";
import { taxIncluded } from "~/features/tax/tax";
import { TaxLines } from "~/features/tax/tax-lines";
import type { ChangeFigures, PlanChangeState } from "./plan-change.server";

// The checkout of a subscriber who picked another recurring plan (docs/decisions/028): the change
// instead of a purchase. Plain forms (JavaScript off works); with JavaScript Remix submits them
// without a full reload and the button refuses a second click.

type ActionData = { form?: string; serverError?: string | null } | undefined;

function FormError({ form }: { form: string }) {
  const actionData = useActionData<ActionData>();
  const idle = useNavigation().state === "idle";
  const message = idle && actionData?.form === form ? actionData.serverError : null;
  return (
    <p className="form-error" role={message ? "alert" : undefined}>
      {message ?? ""}
    </p>
  );
}

/** 'Keep current plan': drops the change waiting for the renewal. */
function KeepCurrentPlan() {
  return (
    <Form method="post" className="plan-change__keep">
      <input type="hidden" name="intent" value="keep-plan" />
      <FormError form="keep-plan" />
      <SubmitButton intent="keep-plan" className="button button--block">
        Keep current plan
      </SubmitButton>
    </Form>
  );
}

/** The page instead of the purchase, laid out as the checkout: breadcrumb, heading, the change beside its summary. */
export function PlanChangePage({ state }: { state: Exclude<PlanChangeState, { kind: "replaces" }> }) {
  return (
    <div className="checkout">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <ol>
          <li>
            <Link to="/pricing">Select Plan</Link>
          </li>
          <li aria-current="page">Change plan</li>
        </ol>
      </nav>
      <h1>Change your plan</h1>
      {state.kind === "change" && state.notice ? (
        <p className="notice" role="alert">
          {state.notice}
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
  return (
    <aside aria-labelledby="change-summary-title" className="card order-summary">
      <h2 id="change-summary-title">Plan change summary</h2>
      <dl>
        <div>
          <dt>New plan</dt>
          <dd>{figures.plan}</dd>
        </div>
        <TaxLines taxed={figures.chargedNowTaxed} />
        <div className="total">
          <dt>Charged now</dt>
          <dd>{figures.chargedNow}</dd>
        </div>
        <div>
          <dt>New end date</dt>
          <dd>{figures.newEndDate}</dd>
        </div>
        <div>
          <dt>Next renewal</dt>
          <dd>{figures.nextRenewal}</dd>
        </div>
      </dl>
    </aside>
  );
}

function PlanChange({ state }: { state: Exclude<PlanChangeState, { kind: "replaces" }> }) {
  if (state.kind === "done") {
    return (
      <section className="card plan-change" aria-labelledby="plan-change-title">
        <h2 id="plan-change-title">Your plan</h2>
        <p className="notice" role="status">
          {state.message}
        </p>
        {state.pendingTitle && state.keepable ? <KeepCurrentPlan /> : null}
        <Link to="/" className="button button--primary">
          Go to my account
        </Link>
      </section>
    );
  }
  const { preview } = state;
  const now = preview.kind === "now";
  const paypal = preview.paid_with === "paypal";
  return (
    <section className="card plan-change" aria-labelledby="plan-change-title">
      <h2 id="plan-change-title">
        Change from {preview.current_plan.title} to {preview.plan.title}
      </h2>
      <dl className="plan-change__summary">
        <dt>Current plan</dt>
        <dd>{preview.current_plan.title}</dd>
        <dt>New plan</dt>
        <dd>
          {preview.plan.title} ({formatCents(preview.plan.discounted_price_cents)} for {preview.plan.title})
        </dd>
        <dt>{now ? "You pay now" : "Takes effect"}</dt>
        <dd className="plan-change__amount">
          {now ? formatCents(preview.amount_due_cents) : `${state.effectiveDate}, at your next renewal`}
          {now && preview.tax ? <span className="plan-change__tax"> ({taxIncluded(preview.tax)})</span> : null}
        </dd>
      </dl>
      <p>
        {now
          ? `The new plan starts today. You pay ${formatCents(preview.amount_due_cents)} now: the ${preview.plan.title} plan less the unused part of your ${preview.current_plan.title} plan, charged to the card that pays your subscription. Your plan then runs to ${state.figures.newEndDate}.`
          : paypal
            ? `Your plan changes to ${preview.plan.title} on ${state.effectiveDate}, at your next renewal: PayPal applies a new plan from the next payment. Nothing is charged now; PayPal collects the ${preview.plan.title} price at that renewal. You approve the change at PayPal.`
            : `Your plan changes to ${preview.plan.title} on ${state.effectiveDate}, at your next renewal. Nothing is charged now; the ${preview.plan.title} price is charged at that renewal.`}
      </p>
      {preview.pending && state.pendingDate ? (
        <p className="notice">
          Changes to {preview.pending.plan.title} on {state.pendingDate}. Changing plan now replaces that change.
        </p>
      ) : null}
      <Form method="post">
        <input type="hidden" name="intent" value="change-plan" />
        <input type="hidden" name="idempotency_key" value={state.idempotencyKey} />
        {paypal ? <input type="hidden" name="paid_with" value="paypal" /> : null}
        {preview.proration_date !== null ? <input type="hidden" name="proration_date" value={preview.proration_date} /> : null}
        <FormError form="change-plan" />
        <SubmitButton intent="change-plan">{paypal ? "Continue to PayPal" : "Change plan"}</SubmitButton>
      </Form>
      {preview.pending && !paypal ? <KeepCurrentPlan /> : null}
    </section>
  );
}

/** Said before the pay buttons of the 5-year plan while a recurring plan runs. */
export function ReplacesNotice({ text }: { text: string }) {
  return (
    <p className="notice" role="note">
      {text}
    </p>
  );
}
