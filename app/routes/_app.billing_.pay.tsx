import { getFormProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirectDocument } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { SubmitButton } from "~/components/submit-button";
import { FormAlert } from "~/components/form-alert";
import { Toasts } from "~/components/toasts";
import { UPDATE_PAYMENT_METHOD_PATH, useDueSentence } from "~/features/dunning/payment-failed-banner";
import { loadPaymentFailed, payPageState } from "~/features/dunning/payment-failed.server";
import type { PayOpenInvoiceFields } from "~/schemas/dunning";
import { PayOpenInvoiceSchema } from "~/schemas/index.server";
import { requireUser } from "~/utils/auth.server";
import { useFormOptions } from "~/utils/client-validation";
import { type FormFailure, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { languageOf } from "~/i18n/i18n.server";
import { redirectWithPageError, redirectWithSuccess } from "~/utils/toast.server";

// The pay page of an unpaid renewal (docs/decisions/027): 'Pay now' with a saved card, 'Pay with a new
// card' on the invoice's hosted page (which also does 3-D Secure), or 'Update payment method'. Plain
// forms: it works without JavaScript; with it, conform checks the choice before the post.

export const meta: MetaFunction = (args) => pageMeta(args, "billing.meta.pay.title", "billing.meta.pay.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const FORM_ID = "pay-open-invoice";
// Catalogue keys: Toasts, FormAlert and the card choice's error show them translated.
const PAY_FAILED = "billing.pay.failed";
const NOTHING_TO_PAY = "billing.pay.nothingToPay";
const PAYPAL_RETRIES = "billing.pay.paypalRetries";
const PAID = "billing.pay.paid";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { api } = await requireUser(request, context);
  const state = await payPageState(api, languageOf(request));
  // PayPal collects its own renewals: Billing's banner says what to do at PayPal; nothing is paid here.
  if (state.failed?.gateway === "paypal") throw await redirectWithPageError("/billing", PAYPAL_RETRIES);
  return data(state, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { api } = await requireUser(request, context);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "pay");

  if (intent === "new-card") {
    // The invoice's hosted page takes a new card (and 3-D Secure) without JavaScript.
    const failed = await loadPaymentFailed(api, languageOf(request));
    if (!failed?.hostedInvoiceUrl) return redirectWithPageError("/billing", NOTHING_TO_PAY);
    return redirectDocument(failed.hostedInvoiceUrl);
  }
  if (intent !== "pay") throw new Response("Unknown form", { status: 400 });
  // Without an unpaid invoice the page has no form to show an error next to: say it on Billing.
  if (!(await loadPaymentFailed(api, languageOf(request)))) return redirectWithPageError("/billing", NOTHING_TO_PAY);

  const submission = parseSubmission(formData, PayOpenInvoiceSchema);
  if (submission.status !== "success") return formFailure(FORM_ID, submission, null, 400, { hideFields: [], headers: NO_STORE });
  const result = await api.post("/api/billing/pay-open-invoice", {
    body: { payment_method_id: submission.value.payment_method_id, idempotency_key: submission.value.idempotency_key || undefined },
  });
  if (result.ok) {
    // A whole-document redirect: the hosted page is not one of the portal's routes (with JavaScript, a
    // plain redirect would be followed as a client-side navigation).
    if (result.data.status === "requires_action" && result.data.hosted_invoice_url) return redirectDocument(result.data.hosted_invoice_url);
    return redirectWithSuccess("/billing", result.message || PAID);
  }
  // The bank's refusal goes next to the card choice; anything else above the form.
  if (result.status === 402 || result.status === 404) {
    return formFailure(FORM_ID, submission, null, result.status, {
      hideFields: [],
      fieldErrors: { payment_method_id: [result.message || PAY_FAILED] },
      headers: NO_STORE,
    });
  }
  return formFailure(FORM_ID, submission, result.message || PAY_FAILED, result.status, { hideFields: [], headers: NO_STORE, errorAt: "" });
}

export default function PayPage() {
  const { t } = useTranslation("billing");
  const due = useDueSentence();
  const { failed, cards, idempotencyKey } = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const serverError = idle ? actionData?.serverError : null;
  const [form, fields] = useForm<PayOpenInvoiceFields>(
    useFormOptions<PayOpenInvoiceFields>(FORM_ID, () => import("~/schemas/dunning").then((module) => module.PayOpenInvoiceSchema)),
  );
  const cardErrors = fields.payment_method_id.errors;

  return (
    <section className="page pay-page">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : []} />
      <header className="page-header">
        <h1>{t("billing.pay.title")}</h1>
      </header>
      {failed === null ? (
        <div className="cards">
          <div className="card">
            <p>{t("billing.pay.noUnpaidInvoice")}</p>
            <Link to="/billing" className="button">
              {t("billing.title")}
            </Link>
          </div>
        </div>
      ) : (
        <div className="cards">
          <article className="card" aria-labelledby="pay-due-heading">
            <h2 id="pay-due-heading">{t("billing.dunning.title")}</h2>
            <p>{failed.reason}</p>
            <p className="muted">{due(failed)}</p>
          </article>

          <article className="card" aria-labelledby="pay-saved-heading">
            <h2 id="pay-saved-heading">{t("billing.pay.savedCard")}</h2>
            {cards.length === 0 ? (
              <p className="muted">{t("billing.pay.noSavedCard")}</p>
            ) : (
              <Form method="post" {...getFormProps(form)}>
                <input type="hidden" name="intent" value="pay" />
                <input type="hidden" name="idempotency_key" value={idempotencyKey} />
                <FormAlert id={form.errorId} errors={form.errors} />
                <fieldset aria-describedby={cardErrors ? `${fields.payment_method_id.id}-error` : undefined} aria-invalid={cardErrors ? true : undefined}>
                  <legend>{t("billing.pay.card")}</legend>
                  {cards.map((card, index) => (
                    <label key={card.paymentMethodId} className="pay-card-choice">
                      <input
                        type="radio"
                        name={fields.payment_method_id.name}
                        value={card.paymentMethodId}
                        required
                        defaultChecked={index === 0 && cards.length === 1}
                      />{" "}
                      {card.label} <span className="muted">{t("billing.pay.expires", { date: card.expires })}</span>
                    </label>
                  ))}
                </fieldset>
                {cardErrors ? (
                  <p id={`${fields.payment_method_id.id}-error`} className="field-error" role="alert">
                    {/* The schema's message is a key; the API's comes in the page's language already. */}
                    {cardErrors.map((error) => t(error)).join(" ")}
                  </p>
                ) : null}
                <SubmitButton intent="pay">{t("billing.dunning.payNow")}</SubmitButton>
              </Form>
            )}
          </article>

          <article className="card" aria-labelledby="pay-other-heading">
            <h2 id="pay-other-heading">{t("billing.pay.otherWays")}</h2>
            <Form method="post" reloadDocument>
              <input type="hidden" name="intent" value="new-card" />
              <SubmitButton intent="new-card" className="button">
                {t("billing.pay.newCard")}
              </SubmitButton>
            </Form>
            <p>
              <Link to={UPDATE_PAYMENT_METHOD_PATH} className="button button--link">
                {t("billing.dunning.updatePaymentMethod")}
              </Link>
            </p>
          </article>
        </div>
      )}
    </section>
  );
}
