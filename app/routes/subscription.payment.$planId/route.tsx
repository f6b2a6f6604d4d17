import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useFetcher, useLoaderData, useLocation, useNavigate, useNavigation, useSubmit } from "@remix-run/react";
import { type ComponentType, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { useFormatters } from "~/i18n/use-formatters";
import { CodeInput } from "~/components/code-input";
import { formatMinutesSeconds, useCountdown } from "~/components/countdown";
import { Field } from "~/components/field";
import { ModalDialog } from "~/components/modal-dialog";
import { PasswordRules } from "~/components/password-rules";
import { PaymentFrame } from "~/components/payment-frame";
import { ResendForm } from "~/components/resend-form";
import { SocialSignIn } from "~/components/social-sign-in";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import type { CheckoutCodeFields, CheckoutEmailFields } from "~/schemas/checkout";
import type { SignupPasswordFields } from "~/schemas/identity";
import { useFormOptions } from "~/utils/client-validation";
import { readFormData } from "~/utils/forms.server";
import { AuthenticationChallenge } from "~/features/card-entry/authentication-dialog";
import type { CardFormProps } from "~/features/card-entry/card-payment";
import type { PayPalButtonsProps } from "~/features/paypal/paypal-buttons";
import { type CheckoutState, checkoutAction, checkoutState, planIdOf } from "./checkout.server";
import { cardTerms, cryptoTerms, paypalTerms, type Quote, quoteOf } from "./summary";
import { CouponForm } from "./coupon-form";
import { PaidConfirmationDetails, PurchaseTerms } from "./purchase-terms";
import { RECEIPT_PARAM, ReceiptPage } from "./receipt";
import type { Receipt } from "./receipt.server";
import { PlanChangePage, ReplacesNotice } from "./plan-change";
import { PLAN_CHANGE_FORMS, planChangeAction, planChangeState } from "./plan-change.server";
import { WalletPanels } from "~/features/wallets/wallet-panels";
import { COUNTRY_FETCHER, COUNTRY_FORM, COUNTRY_UPDATE, CountryForm } from "~/features/tax/country-form";
import { TaxLines } from "~/features/tax/tax-lines";
import { pageMeta } from "~/utils/meta";
import { twoDecimals, planName } from "~/utils/plans";

const loadCheckoutSchemas = () => import("~/schemas/checkout");
const loadIdentitySchemas = () => import("~/schemas/identity");

export const meta: MetaFunction<typeof loader> = (args) => {
  const { data } = args;
  const plan = data?.plan.title;
  return [
    ...(data?.receipt
      ? pageMeta(args, "checkout.meta.receipt.title", "checkout.meta.receipt.description", { plan: data.plan.title })
      : plan
        ? pageMeta(args, "checkout.meta.payment.title", data.gateway.paypal ? "checkout.meta.payment.descriptionPayPal" : "checkout.meta.payment.description", { plan })
        : pageMeta(args, "checkout.meta.payment.titleNoPlan", "checkout.meta.payment.descriptionNoPlan")),
  // No meta refresh for 'Payment Successful!': a timed refresh cannot be stopped (WCAG 2.2.1); its countdown is
  // the page's script, which 'Stay on this page' stops (PaymentSuccessful below).
  ];
};

// Personal (the account, its cards, a fresh idempotency key): never stored by a shared cache.
export const headers = () => ({ "Cache-Control": "private, no-store" });

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const planId = planIdOf(params.planId);
  const { state, subscription, token } = await checkoutState(request, context, planId);
  // Just paid for this plan (or its hosted payment still being confirmed): the receipt is this page's answer, not "this is your plan".
  if (state.receipt || state.confirming) return { ...state, planChange: null };
  // A subscriber's other recurring plan is a change of plan, not a second purchase (plan-change.tsx).
  return {
    ...state,
    planChange: await planChangeState(request, context, planId, { token, subscription, oneTime: state.plan.billing_type === "single" }),
  };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const planId = planIdOf(params.planId);
  const formData = await readFormData(request);
  // 'Update' of the country names itself: without JavaScript it may post the visitor's email form (CountryForm).
  const intent = formData.get(COUNTRY_UPDATE) === "1" ? COUNTRY_FORM : String(formData.get("intent") ?? "");
  if (PLAN_CHANGE_FORMS.has(intent)) return planChangeAction(intent, { request, context, formData, planId });
  return checkoutAction(intent, { request, context, formData, planId });
}

type PaymentActionData =
  | {
      form?: string;
      serverError?: string | null;
      /** A card payment waiting for the bank's 3-D Secure challenge (JavaScript on). */
      authentication?: { clientSecret: string; url: string | null; paymentIntent: string; subscription: string };
      /** A new key for the page's payments: the attempt before ended (a failed challenge). */
      idempotencyKey?: string;
    }
  | undefined;

export default function CheckoutPage() {
  const { planChange, ...state } = useLoaderData<typeof loader>();
  return (
    <PaymentFrame email={state.accountEmail}>
      {planChange && planChange.kind !== "replaces" ? (
        <PlanChangePage state={planChange} />
      ) : (
        <Checkout state={state} replacesNotice={planChange?.notice ?? null} />
      )}
    </PaymentFrame>
  );
}

/** Forms whose refusal is also a toast (commerce §4: a failed payment shows inline and as a toast). */
const TOASTED_FORMS = new Set(["pay-card", "pay-saved", "hosted", "crypto", "paypal"]);

function Checkout({ state, replacesNotice }: { state: CheckoutState; replacesNotice: string | null }) {
  if (state.receipt) return <Paid receipt={state.receipt} redirectIn={state.paidRedirectIn} />;
  return <Purchase state={state} replacesNotice={replacesNotice} />;
}

/** After paying: the receipt, with 'Payment Successful!' over it until it is closed or counts down. */
function Paid({ receipt, redirectIn }: { receipt: Receipt; redirectIn: number | null }) {
  const { t } = useTranslation("checkout");
  return (
    <div className="checkout">
      <nav aria-label={t("checkout.breadcrumb.label")} className="breadcrumb">
        <ol>
          <li>
            <Link to="/pricing">{t("checkout.breadcrumb.selectPlan")}</Link>
          </li>
          <li aria-current="page">{t("checkout.breadcrumb.receipt")}</li>
        </ol>
      </nav>
      <h1 id="receipt-title" tabIndex={-1}>
        {t("checkout.paid.thanks")}
      </h1>
      {redirectIn !== null ? <PaymentSuccessful seconds={redirectIn} receipt={receipt} /> : null}
      <ReceiptPage receipt={receipt} />
    </div>
  );
}

function Purchase({ state, replacesNotice }: { state: CheckoutState; replacesNotice: string | null }) {
  const { t } = useTranslation("checkout");
  const { money } = useFormatters();
  const words = { t, money };
  const { plan } = state;
  const card = quoteOf(state.quotes, "card");
  const wallet = quoteOf(state.quotes, "wallet");
  const paypal = quoteOf(state.quotes, "paypal");
  const crypto = quoteOf(state.quotes, "crypto");
  const actionData = useActionData<PaymentActionData>();
  const idle = useNavigation().state === "idle";
  const failed =
    idle && actionData?.serverError && TOASTED_FORMS.has(actionData.form ?? "")
      ? actionData.serverError
      : !actionData && state.authenticationFailure
        ? state.authenticationFailure.message
        : !actionData && state.paypalFailure
          ? state.paypalFailure
          : !actionData && state.cryptoFailure
            ? state.cryptoFailure
            : null;
  // Back from PayPal (cancelled, refused) or PayPal's form refused: its panel is the open one, with the message.
  const paypalOpen = Boolean(state.gateway.paypal && (actionData ? actionData.form === "paypal" : state.paypalFailure));
  // The same for crypto: back from an invoice that expired, or its form refused.
  const cryptoOpen = Boolean(state.gateway.crypto && (actionData ? actionData.form === "crypto" : state.cryptoFailure));
  return (
    <div className="checkout">
      {failed ? <Toasts toasts={[{ message: failed, type: "error" }]} /> : null}
      {idle && actionData?.authentication ? <Challenge state={state} form={actionData.form ?? "pay-card"} authentication={actionData.authentication} /> : null}
      <nav aria-label={t("checkout.breadcrumb.label")} className="breadcrumb">
        <ol>
          <li>
            <Link to="/pricing">{t("checkout.breadcrumb.selectPlan")}</Link>
          </li>
          <li aria-current="page">{t("checkout.breadcrumb.payment")}</li>
        </ol>
      </nav>
      <h1>{t("checkout.title")}</h1>
      {state.notice ? (
        <p className="notice" role="status">
          {t(state.notice)}
        </p>
      ) : null}
      {state.cardsFailed ? (
        <p className="notice" role="alert">
          {t("checkout.cardsFailed")}
        </p>
      ) : null}
      <div className="checkout-grid">
        <div className="checkout-main">
          <EmailSection state={state} />
          {state.accountEmail && state.savedCards.length ? <SavedCards state={state} quote={quoteOf(state.quotes, "saved_card") ?? card} /> : null}
        </div>
        {/* Before the payment methods in the page: on a phone the total and the coupon come before the
            methods and their Pay buttons; on a wide screen the summary is the right-hand column. */}
        <OrderSummary state={state} />
        <div className="checkout-methods">
          <section aria-labelledby="methods-title">
            <h2 id="methods-title">{t("checkout.methods.title")}</h2>
            {replacesNotice ? <ReplacesNotice text={replacesNotice} /> : null}
            {/* Once for every method, before them (it was repeated in each panel). */}
            <Guarantee />
            <div className="accordion">
              <details name="payment-method" open={!paypalOpen && !cryptoOpen} className="accordion-item">
                <summary>{t("checkout.methods.card")}</summary>
                {card ? <PanelTerms quote={card} /> : null}
                {state.accountEmail && card ? (
                  <CardPanel state={state} quote={card} />
                ) : (
                  <p className="muted">{t("checkout.methods.verifyForCard")}</p>
                )}
              </details>
              {wallet ? <WalletPanels plan={plan} quote={wallet} gateway={state.gateway} signedIn={Boolean(state.accountEmail)} /> : null}
              {state.gateway.paypal && paypal ? (
                <details name="payment-method" open={paypalOpen} className="accordion-item">
                  <summary>PayPal</summary>
                  <p>{paypalTerms(paypal, words)}</p>
                  {state.accountEmail ? (
                    <PayPalPanel state={state} renews={paypal.renewal !== null} />
                  ) : (
                    <p className="muted">{t("checkout.methods.verifyForPayPal")}</p>
                  )}
                </details>
              ) : null}
              {state.gateway.crypto && crypto ? (
              <details name="payment-method" open={cryptoOpen} className="accordion-item">
                <summary>{t("checkout.methods.crypto")}</summary>
                <p>{cryptoTerms(crypto, words)}</p>
                {state.accountEmail ? (
                  <CryptoPanel quote={crypto} />
                ) : (
                  <p className="muted">{t("checkout.methods.verifyForCrypto")}</p>
                )}
              </details>
              ) : null}
            </div>
          </section>
        </div>
      </div>
    </div>
  );
}

/** The bank's challenge of a card payment; when it ends, the action finishes the attempt through the API. */
function Challenge({
  state,
  form,
  authentication,
}: {
  state: CheckoutState;
  form: string;
  authentication: NonNullable<NonNullable<PaymentActionData>["authentication"]>;
}) {
  const submit = useSubmit();
  return (
    <AuthenticationChallenge
      key={authentication.paymentIntent}
      challenge={authentication}
      gateway={state.gateway}
      onDone={() =>
        submit(
          { intent: "complete-authentication", form, payment_intent: authentication.paymentIntent, subscription: authentication.subscription },
          { method: "post" },
        )
      }
    />
  );
}

/**
 * 'Payment Successful!' (commerce §3). With JavaScript it counts down home, and 'Stay on this page' stops the
 * countdown: a time limit the customer can turn off (WCAG 2.2.1). Without JavaScript nothing counts down (a
 * meta refresh could not be stopped): it says the plan is active and links home. Closing it ('View receipt',
 * or Escape) leaves the customer on the receipt, with no countdown either.
 */
function PaymentSuccessful({ seconds, receipt }: { seconds: number; receipt: Receipt }) {
  const { t } = useTranslation("checkout");
  // The server's HTML, and the first render in the browser, show no countdown: it is shown once React runs.
  const [hydrated, setHydrated] = useState(false);
  const [stopped, setStopped] = useState(false);
  useEffect(() => setHydrated(true), []);
  const counting = hydrated && !stopped;
  // Stopped, the timer ends (0); only a countdown that is still on goes home at 0.
  const left = useCountdown(stopped ? 0 : seconds, seconds);
  const goHome = useRef<HTMLAnchorElement>(null);
  const navigate = useNavigate();
  const receiptHref = `${useLocation().pathname}?${RECEIPT_PARAM}`;
  useEffect(() => {
    if (counting && left === 0) window.location.assign("/");
  }, [counting, left]);
  return (
    <ModalDialog
      labelledBy="paid-title"
      returnFocusTo="#receipt-title"
      onCancel={() => navigate(receiptHref, { replace: true, preventScrollReset: true })}
    >
      <h2 id="paid-title">{t("checkout.paid.title")}</h2>
      <p>
        {t("checkout.paid.active")}
        {counting ? (
          <>
            {" "}
            <Trans t={t} i18nKey="checkout.paid.redirectIn" count={left} components={{ countdown: <span className="countdown" /> }} />
          </>
        ) : null}
      </p>
      {counting ? (
        <button
          type="button"
          className="button button--link"
          onClick={() => {
            setStopped(true);
            // The button goes with the countdown; focus stays in the dialog, on the way home.
            goHome.current?.focus();
          }}
        >
          {t("checkout.paid.stay")}
        </button>
      ) : null}
      <PaidConfirmationDetails confirmation={receipt} />
      <div className="paid-dialog__actions">
        <Link to="/" className="button button--primary" ref={goHome}>
          {t("checkout.goToAccount")}
        </Link>
        <Link to={receiptHref} className="button" replace preventScrollReset>
          {t("checkout.paid.viewReceipt")}
        </Link>
      </div>
    </ModalDialog>
  );
}

function EmailSection({ state }: { state: CheckoutState }) {
  const { t } = useTranslation("checkout");
  const here = useLocation().pathname;
  if (state.accountEmail) {
    return (
      // No aria-labelledby here: a region named "... email" would also answer to the label 'Email'.
      <section className="card">
        <h2>{t("checkout.email.confirm")}</h2>
        <div className="field">
          <label htmlFor="account-email">{t("checkout.email.label")}</label>
          <input id="account-email" type="email" value={state.accountEmail} disabled readOnly />
        </div>
      </section>
    );
  }
  return <VisitorEmail visitor={state.visitor ?? { step: "email" }} here={here} />;
}

function VisitorEmail({ visitor, here }: { visitor: NonNullable<CheckoutState["visitor"]>; here: string }) {
  const { t } = useTranslation("checkout");
  // Back from 'Verify Your Email' ('Use another email', or Escape): focus goes to the email field.
  const lastStep = useRef(visitor.step);
  const backFromDialog = lastStep.current !== "email" && visitor.step === "email";
  useEffect(() => {
    lastStep.current = visitor.step;
  });
  return (
    <section className="card">
      <h2>{t("checkout.email.enter")}</h2>
      {visitor.step === "email" ? <EmailForm focusOnMount={backFromDialog} email={visitor.email} /> : <p className="email-address">{visitor.email}</p>}
      {visitor.step !== "email" ? <VerifyDialog visitor={visitor} /> : null}
      <SocialSignIn oldurl={here} divider={t("checkout.email.orContinueWith")} />
    </section>
  );
}

/** The visitor's email form's id (conform's, and the country's 'Update' names it). */
const EMAIL_FORM = "email";

function EmailForm({ focusOnMount, email }: { focusOnMount: boolean; email?: string }) {
  const { t } = useTranslation("checkout");
  const [form, fields] = useForm<CheckoutEmailFields>({
    ...useFormOptions<CheckoutEmailFields>(EMAIL_FORM, () => loadCheckoutSchemas().then((m) => m.CheckoutEmailSchema)),
    // Back from 'Verify Your Email': the address the code went to.
    defaultValue: email ? { email } : undefined,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the form appears
  useEffect(() => {
    if (focusOnMount) document.getElementById(fields.email.id)?.focus();
  }, []);
  return (
    <Form method="post" {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value="email" />
      <Field label={<label htmlFor={fields.email.id}>{t("checkout.email.label")}</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
        <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" />
      </Field>
      <FormError form="email" />
      <SubmitButton intent="email">{t("checkout.email.continue")}</SubmitButton>
    </Form>
  );
}

/**
 * 'Verify Your Email' (commerce §2): step 1 the code, step 2 the password. Server-rendered, a modal with
 * JavaScript; Escape does what 'Use another email' does (the only way out without JavaScript too).
 */
function VerifyDialog({ visitor }: { visitor: Exclude<CheckoutState["visitor"], null | { step: "email" }> }) {
  const { t } = useTranslation("checkout");
  const submit = useSubmit();
  return (
    <ModalDialog labelledBy="verify-title" onCancel={() => submit({ intent: "restart" }, { method: "post" })}>
      <h2 id="verify-title">{t("checkout.verify.title")}</h2>
      {visitor.step === "code" ? <CodeStep visitor={visitor} /> : <PasswordStep email={visitor.email} />}
      <Form method="post" className="restart-form">
        <input type="hidden" name="intent" value="restart" />
        <button type="submit" className="button button--link">
          {t("checkout.verify.anotherEmail")}
        </button>
      </Form>
    </ModalDialog>
  );
}

function CodeStep({ visitor }: { visitor: Extract<CheckoutState["visitor"], { step: "code" }> }) {
  const { t } = useTranslation("checkout");
  const [form, fields] = useForm<CheckoutCodeFields>(
    useFormOptions<CheckoutCodeFields>("code", () => loadCheckoutSchemas().then((m) => m.CheckoutCodeSchema)),
  );
  const expiresIn = useCountdown(visitor.expiresIn, visitor.sentAt);
  return (
    <>
      <p className="muted">
        <Trans t={t} i18nKey="checkout.verify.codeSent" values={{ email: visitor.email }} components={{ strong: <strong className="email-address" /> }} />
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="code" />
        <CodeInput
          id={fields.verification_code.id}
          name={fields.verification_code.name}
          errorId={fields.verification_code.errorId}
          errors={fields.verification_code.errors}
        />
        <p className="expiry">
          {expiresIn > 0 ? t("checkout.verify.expiresIn", { time: formatMinutesSeconds(expiresIn) }) : t("checkout.verify.expired")}
        </p>
        <FormError form="code" />
        <SubmitButton intent="code">{t("checkout.verify.next")}</SubmitButton>
      </Form>
      <ResendForm secondsLeft={visitor.resendIn} sentAt={visitor.sentAt} />
    </>
  );
}

function PasswordStep({ email }: { email: string }) {
  const { t } = useTranslation("checkout");
  const [form, fields] = useForm<SignupPasswordFields>(
    useFormOptions<SignupPasswordFields>("password", () => loadIdentitySchemas().then((m) => m.SignupPasswordSchema)),
  );
  // From the code step, whose 'Next' is gone: focus stays in the dialog, on its first field.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the step appears
  useEffect(() => {
    const field = document.getElementById(fields.password.id);
    if (field && !field.closest("dialog")?.contains(document.activeElement)) field.focus();
  }, []);
  return (
    <Form method="post" {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value="password" />
      <input type="text" name="username" value={email} autoComplete="username" readOnly hidden />
      <Field label={<label htmlFor={fields.password.id}>{t("checkout.verify.password")}</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
        <input {...getInputProps(fields.password, { type: "password", ariaDescribedBy: "password-rules" })} autoComplete="new-password" />
      </Field>
      <PasswordRules id="password-rules" />
      <Field
        label={<label htmlFor={fields.confirmPassword.id}>{t("checkout.verify.confirmPassword")}</label>}
        errorId={fields.confirmPassword.errorId}
        errors={fields.confirmPassword.errors}
      >
        <input {...getInputProps(fields.confirmPassword, { type: "password" })} autoComplete="new-password" />
      </Field>
      <FormError form="password" />
      <SubmitButton intent="password">{t("checkout.verify.submit")}</SubmitButton>
    </Form>
  );
}

/** The country's refusal next to its field (an action's answer to the 'country' form). */
function countryErrorOf(answer: unknown): string | null {
  const reply = answer as { form?: string; result?: { error?: Record<string, string[] | null> } } | undefined;
  if (reply?.form !== COUNTRY_FORM) return null;
  return reply.result?.error?.country?.[0] ?? null;
}

/** The server's refusal of one of the page's forms, in the HTML (and announced). */
function FormError({ form }: { form: string }) {
  const { t } = useTranslation("checkout");
  const actionData = useActionData<PaymentActionData>();
  const state = useLoaderData<typeof loader>();
  const idle = useNavigation().state === "idle";
  // Back from the bank's challenge without JavaScript, or from PayPal: its failure is the loader's.
  const returned = actionData
    ? null
    : state.authenticationFailure?.form === form
      ? state.authenticationFailure.message
      : form === "paypal"
        ? state.paypalFailure
        : form === "crypto"
          ? state.cryptoFailure
          : null;
  const message = idle && actionData?.form === form ? actionData.serverError : returned;
  return (
    <p className="form-error" role={message ? "alert" : undefined}>
      {/* A catalogue key, or the API's message in the page's language. */}
      {message ? t(message) : ""}
    </p>
  );
}

/**
 * The key the page's payment forms send: the loader's, or the new one the action gave after a failed
 * challenge (a refusal does not reload the page's data). The action derives each card's key from it.
 */
function usePaymentKey(loaderKey: string): string {
  const next = useActionData<PaymentActionData>()?.idempotencyKey;
  const [key, setKey] = useState({ loaderKey, actionKey: next, current: next ?? loaderKey });
  if (key.loaderKey !== loaderKey) setKey({ loaderKey, actionKey: next, current: loaderKey });
  else if (next && next !== key.actionKey) setKey({ loaderKey, actionKey: next, current: next });
  return key.current;
}

function SavedCards({ state, quote }: { state: CheckoutState; quote: Quote | null }) {
  const { t } = useTranslation("checkout");
  const { money } = useFormatters();
  const paymentKey = usePaymentKey(state.idempotencyKey);
  // With JavaScript the action answers the 3-D Secure challenge for the page to show (no redirect).
  const [scripted, setScripted] = useState(false);
  useEffect(() => setScripted(true), []);
  return (
    <section aria-labelledby="saved-title" className="card">
      <details open>
        <summary>
          <h2 id="saved-title">{t("checkout.saved.title")}</h2>
        </summary>
        <ul className="saved-cards">
          {state.savedCards.map((card) => (
            <li key={card.id}>
              <span className={`card-brand card-brand--${card.card_brand}`}>{card.card_brand}</span>{" "}
              <span>{card.card_number}</span> <span className="muted">{t("checkout.saved.expires", { date: card.card_exp })}</span>
              <Form method="post">
                <input type="hidden" name="intent" value="pay-saved" />
                <input type="hidden" name="paymentMethodId" value={card.payment_method_id} />
                <input type="hidden" name="idempotency_key" value={paymentKey} />
                {scripted ? <input type="hidden" name="js" value="1" /> : null}
                <SubmitButton intent="pay-saved" className="button button--primary">
                  {t("checkout.saved.payNow")}
                </SubmitButton>
              </Form>
            </li>
          ))}
        </ul>
        {quote ? <p className="muted">{t("checkout.saved.charges", { amount: money(quote.amount_cents) })}</p> : null}
        <FormError form="pay-saved" />
      </details>
    </section>
  );
}

function PanelTerms({ quote }: { quote: Quote }) {
  const { t } = useTranslation("checkout");
  const { money } = useFormatters();
  return <p>{cardTerms(quote, { t, money })}</p>;
}

function Guarantee() {
  const { t } = useTranslation("checkout");
  return (
    <p className="muted">
      <Trans t={t} i18nKey="checkout.guarantee" components={{ terms: <Link to="/terms" />, privacy: <Link to="/privacy" /> }} />
    </p>
  );
}

/**
 * The card panel. The server renders the hosted page's button (works without JavaScript); once React
 * runs, the card form (the gateway's card entry: Stripe's Payment Element, or the sandbox's inline
 * fields) is loaded and takes its place.
 */
function CardPanel({ state, quote }: { state: CheckoutState; quote: Quote }) {
  const { t } = useTranslation("checkout");
  const { money } = useFormatters();
  const paymentKey = usePaymentKey(state.idempotencyKey);
  const [CardForm, setCardForm] = useState<ComponentType<CardFormProps> | null>(null);
  useEffect(() => {
    let live = true;
    void import("~/features/card-entry/card-form").then((module) => {
      if (live) setCardForm(() => module.CardForm);
    });
    return () => {
      live = false;
    };
  }, []);
  // With scripting on, the sandbox's card form (known height) has its room from the first paint, so
  // the panels below do not jump when it replaces the hosted page's button (app.css, .card-entry).
  return (
    <div className={`card-entry card-entry--${state.gateway.mode}`}>
      {CardForm ? (
        <>
          <CardForm
            gateway={state.gateway}
            idempotencyKey={paymentKey}
            totalCents={quote.amount_cents}
            billingType={state.plan.billing_type}
            payLabel={t("checkout.card.pay", { amount: money(quote.amount_cents) })}
          />
          <FormError form="pay-card" />
        </>
      ) : (
        <Form method="post" reloadDocument>
          <input type="hidden" name="intent" value="hosted" />
          <input type="hidden" name="idempotency_key" value={state.idempotencyKey} />
          <FormError form="hosted" />
          <SubmitButton intent="hosted">{t("checkout.card.hosted")}</SubmitButton>
        </Form>
      )}
    </div>
  );
}

/**
 * PayPal: a plain form; the action opens the order or subscription and sends the browser to PayPal's
 * approval page, which returns to this page. With the live gateway and JavaScript, PayPal's own
 * buttons (loaded only then, never in the page's first chunks) take the form's place, the form staying
 * as their fallback when PayPal's script does not load.
 */
function PayPalPanel({ state, renews }: { state: CheckoutState; renews: boolean }) {
  const { t } = useTranslation("checkout");
  const paymentKey = usePaymentKey(state.idempotencyKey);
  const here = useLocation().pathname;
  const clientId = state.gateway.mode === "live" ? state.gateway.paypal_client_id : null;
  const [Buttons, setButtons] = useState<ComponentType<PayPalButtonsProps> | null>(null);
  useEffect(() => {
    if (!clientId) return;
    let live = true;
    void import("~/features/paypal/paypal-buttons").then((module) => {
      if (live) setButtons(() => module.PayPalCheckoutButtons);
    });
    return () => {
      live = false;
    };
  }, [clientId]);
  const form = (
    <Form method="post" reloadDocument>
      <input type="hidden" name="intent" value="paypal" />
      <input type="hidden" name="idempotency_key" value={paymentKey} />
      <SubmitButton intent="paypal">{t("checkout.paypal.continue")}</SubmitButton>
    </Form>
  );
  return (
    <>
      <FormError form="paypal" />
      {Buttons && clientId ? (
        <Buttons
          clientId={clientId}
          planId={state.plan.id}
          recurring={renews}
          idempotencyKey={paymentKey}
          returnPath={here}
          fallback={form}
        />
      ) : (
        form
      )}
    </>
  );
}

/** Crypto: a plain form; the action opens a BitPay invoice and sends the browser to it. */
function CryptoPanel({ quote }: { quote: Quote }) {
  const { t } = useTranslation("checkout");
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="crypto" />
      <input type="hidden" name="amount" value={twoDecimals(quote.amount_cents)} />
      <FormError form="crypto" />
      <SubmitButton intent="crypto">{t("checkout.crypto.pay")}</SubmitButton>
    </Form>
  );
}

function OrderSummary({ state }: { state: CheckoutState }) {
  const { t } = useTranslation("checkout");
  const { money, number } = useFormatters();
  const { plan } = state;
  // What is charged now is the same whichever way is chosen (the quotes differ only in their renewal).
  const total = state.quotes[0];
  // The country's refusal: the page's form without JavaScript, the fetcher's with it.
  const countryFetcher = useFetcher({ key: COUNTRY_FETCHER });
  const requoting = countryFetcher.state !== "idle";
  const actionData = useActionData<PaymentActionData>();
  const couponOpen = actionData?.form === "coupon";
  const countryError = countryErrorOf(actionData) ?? countryErrorOf(countryFetcher.data);
  return (
    <aside aria-labelledby="summary-title" className="card order-summary">
      <h2 id="summary-title">{t("checkout.summary.title")}</h2>
      {state.country ? (
        <CountryForm
          country={state.country.code}
          error={countryError}
          offerVatNumber={Boolean(state.accountEmail) && !total?.tax?.reverse_charge}
          // A visitor's email field is open: without JavaScript 'Update' posts it too, so nothing typed is lost.
          withForm={!state.accountEmail && (state.visitor?.step ?? "email") === "email" ? EMAIL_FORM : null}
        />
      ) : null}
      <dl aria-busy={requoting || undefined}>
        <div>
          <dt>{t("checkout.summary.plan")}</dt>
          <dd>{planName(state.plan.title, t)}</dd>
        </div>
        <div>
          <dt>{t("checkout.summary.regularPrice")}</dt>
          <dd>{money(plan.regular_price_cents)}</dd>
        </div>
        {plan.discount_percent > 0 ? (
          <div>
            <dt>
              <span className="badge">{t("checkout.summary.save", { percent: number(plan.discount_percent) })}</span>
            </dt>
            <dd>
              <s>{money(plan.savings_cents)}</s>
            </dd>
          </div>
        ) : null}
        {state.coupon ? (
          <div>
            <dt>{t("checkout.summary.coupon", { code: state.coupon.code })}</dt>
            <dd>−{money(state.coupon.discount_amount_cents)}</dd>
          </div>
        ) : null}
        <TaxLines taxed={total} />
        <div className="total">
          <dt>{t("checkout.summary.total")}</dt>
          <dd>{total ? money(total.amount_cents) : null}</dd>
        </div>
      </dl>
      <PurchaseTerms quotes={state.quotes} termEndsOn={state.termEndsOn} />
      {state.coupon ? (
        <Form method="post">
          <input type="hidden" name="intent" value="coupon-clear" />
          <button type="submit" className="button button--link">
            {t("checkout.coupon.remove")}
          </button>
        </Form>
      ) : (
        <details open={couponOpen || undefined}>
          <summary>{t("checkout.coupon.open")}</summary>
          <CouponForm />
        </details>
      )}
    </aside>
  );
}
