import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import { REFUND_FORM, refundHref } from "~/features/refunds/refund-form";
import type { DeleteAccountFields } from "~/schemas/account-deletion";
import { DeleteAccountSchema } from "~/schemas/index.server";
import { FIELD_REFUSED, serviceUnavailable } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";
import { useFormOptions } from "~/utils/client-validation";
import { languageOf } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import { type FormFailure, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { destroySessionCookie } from "~/utils/session.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";

// 'Delete account' (issue 12): what deleting does, then the password (or, for an account without
// one, an emailed code) and 'Delete my account'. The API does the work (docs/decisions/015); this
// page clears the session and sends the browser to /login with the flash message. Issue 33: with
// two-factor on it also asks for the 'Authentication code'; before the form it says which paid days
// are lost and, while the money-back guarantee covers a payment, offers that refund first (the API
// counts both: GET /api/account/delete/preview; this page words them).

export const meta: MetaFunction = (args) => pageMeta(args, "account.meta.delete.title", "account.meta.delete.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const PAGE = "/account/delete";
const FORM_ID = "delete-account";
const DELETE_FAILED = "account.delete.failed";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, api } = await requireUser(request, context);
  const preview = await api.get("/api/account/delete/preview");
  if (!preview.ok) throw serviceUnavailable();
  const { paid_plan: plan, refund } = preview.data;
  const { longDate } = formattersFor(languageOf(request));
  return data(
    {
      email: user.email,
      hasPassword: preview.data.confirm_with === "password",
      twoFactor: preview.data.two_factor,
      loss: plan ? { days: plan.days_left, title: plan.title, paidUntil: longDate(plan.paid_until), autoRenews: plan.auto_renews } : null,
      refund: refund
        ? {
            daysAgo: refund.days_since_payment,
            amount: refund.amount,
            until: longDate(refund.refundable_until),
            href: refundHref(refund.history_page, refund.transaction_id),
          }
        : null,
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user, api } = await requireUser(request, context);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "delete");

  if (intent === "send-code") {
    const sent = await api.post("/api/account/delete/send-code");
    return sent.ok
      ? redirectWithSuccess(PAGE, sent.message || "account.confirm.codeEmailed")
      : redirectWithFormError(PAGE, sent.message || "account.confirm.codeSendFailed", { form: FORM_ID });
  }

  if (intent !== "delete") throw new Response("Unknown form", { status: 400 });

  // The account decides how deletion is confirmed, whatever the hidden fields say: `method` from it
  // here, and the API asks for the authentication code itself when two-factor is on.
  formData.set("method", user.has_password ? "password" : "code");
  const submission = parseSubmission(formData, DeleteAccountSchema);
  if (submission.status !== "success") return failure(submission);
  const { password, code, authentication_code } = submission.value;
  const body = {
    ...(user.has_password ? { password } : { code }),
    ...(authentication_code ? { authentication_code } : {}),
  };
  const result = await api.post("/api/account/delete", { body });
  if (result.ok) {
    return redirectWithSuccess("/login", result.message || "account.delete.done", {
      headers: { "Set-Cookie": await destroySessionCookie(request) },
    });
  }
  // A refused password, code or authentication code goes next to its field; anything else (limits,
  // gateway) above the form.
  const fields = [user.has_password ? "password" : "code", "authentication_code"];
  const fieldErrors = Object.fromEntries(fields.flatMap((field) => (result.fieldErrors[field]?.length ? [[field, result.fieldErrors[field]]] : [])));
  if (result.code && FIELD_REFUSED.has(result.code) && Object.keys(fieldErrors).length > 0) return failure(submission, fieldErrors, null, 422);
  return failure(submission, {}, result.message || DELETE_FAILED, result.status);
}

type Submission = ReturnType<typeof parseSubmission<typeof DeleteAccountSchema>>;

/** The form's errors (secrets never echoed back) and, when the API refused it, its message. */
function failure(submission: Submission, fieldErrors: Record<string, string[]> = {}, serverError: string | null = null, status = 400) {
  return formFailure(FORM_ID, submission, serverError, status, { fieldErrors, headers: NO_STORE, errorAt: "" });
}

export default function DeleteAccountPage() {
  const { email, hasPassword, twoFactor, loss, refund } = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const serverError = idle ? actionData?.serverError : null;
  const [form, fields] = useForm<DeleteAccountFields>(
    useFormOptions<DeleteAccountFields>(FORM_ID, () => import("~/schemas/account-deletion").then((module) => module.DeleteAccountSchema)),
  );
  const authenticationHintId = `${fields.authentication_code.id}-hint`;
  const { t } = useTranslation("account");

  return (
    <section className="page delete-account">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : []} />
      <header className="page-header">
        <h1>{t("account.delete.heading")}</h1>
        <p className="tagline">{t("account.delete.tagline")}</p>
      </header>
      <div className="cards">
        {refund ? (
          <article className="card" aria-labelledby="refund-heading">
            <h2 id="refund-heading">{t("account.delete.refund.heading")}</h2>
            <p>
              {refund.daysAgo === 0
                ? t("account.delete.refund.paidToday")
                : t("account.delete.refund.paidDaysAgo", { count: refund.daysAgo })}
            </p>
            <p className="muted">{t("account.delete.refund.text", { amount: refund.amount, date: refund.until })}</p>
            <p>
              <Link to={refund.href} className="button button--primary">
                {t(REFUND_FORM.link)}
              </Link>
            </p>
          </article>
        ) : null}

        <article className="card" aria-labelledby="consequences-heading">
          <h2 id="consequences-heading">{t("account.delete.consequences.heading")}</h2>
          {loss ? (
            <p className="delete-account__loss">
              <strong>{t("account.delete.consequences.loss", { count: loss.days, plan: loss.title, date: loss.paidUntil })}</strong>
              {loss.autoRenews ? (
                <>
                  {" "}
                  {t("account.delete.consequences.autoRenewalStops")}
                </>
              ) : null}
            </p>
          ) : null}
          <ul>
            <li>{t("account.delete.consequences.autoRenewal")}</li>
            <li>{t("account.delete.consequences.cards")}</li>
            <li>{t("account.delete.consequences.devices")}</li>
            <li>{t("account.delete.consequences.personalData")}</li>
            <li>{t("account.delete.consequences.paymentRecords")}</li>
          </ul>
          <p className="muted">
            <Trans
              t={t}
              i18nKey="account.delete.consequences.afterwards"
              values={{ email }}
              components={{ strong: <strong className="email-address" /> }}
            />
          </p>
        </article>

        <article className="card" aria-labelledby="confirm-heading">
          <h2 id="confirm-heading">{t("account.delete.confirm.heading")}</h2>
          {hasPassword ? (
            <p className="muted">{twoFactor ? t("account.delete.confirm.passwordAndCode") : t("account.delete.confirm.password")}</p>
          ) : (
            <>
              <p className="muted email-address">
                {twoFactor ? t("account.delete.confirm.emailedCodeAndCode", { email }) : t("account.delete.confirm.emailedCode", { email })}
              </p>
              <Form method="post">
                <input type="hidden" name="intent" value="send-code" />
                <SubmitButton intent="send-code" className="button">
                  {t("account.delete.confirm.sendCode")}
                </SubmitButton>
              </Form>
            </>
          )}
          <Form method="post" {...getFormProps(form)} noValidate>
            <input type="hidden" name="intent" value="delete" />
            <input type="hidden" name="method" value={hasPassword ? "password" : "code"} />
            <input type="hidden" name="two_factor" value={twoFactor ? "1" : ""} />
            <FormAlert id={form.errorId} errors={form.errors} />
            {hasPassword ? (
              <Field label={<label htmlFor={fields.password.id}>{t("account.delete.confirm.passwordLabel")}</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
                <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
              </Field>
            ) : (
              <Field label={<label htmlFor={fields.code.id}>{t("account.delete.confirm.codeLabel")}</label>} errorId={fields.code.errorId} errors={fields.code.errors}>
                <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
              </Field>
            )}
            {twoFactor ? (
              <Field
                label={
                  <>
                    <label htmlFor={fields.authentication_code.id}>{t("account.delete.confirm.authenticationCodeLabel")}</label>
                    <p className="muted field-hint" id={authenticationHintId}>
                      {t("account.delete.confirm.authenticationCodeHint")}
                    </p>
                  </>
                }
                errorId={fields.authentication_code.errorId}
                errors={fields.authentication_code.errors}
              >
                <input
                  {...getInputProps(fields.authentication_code, { type: "text" })}
                  aria-describedby={fields.authentication_code.errors ? `${authenticationHintId} ${fields.authentication_code.errorId}` : authenticationHintId}
                  autoComplete="one-time-code"
                  autoCapitalize="none"
                  spellCheck={false}
                  maxLength={40}
                />
              </Field>
            ) : null}
            <div className="form-actions">
              <Link to="/" className="button">
                {t("account.delete.keep")}
              </Link>
              <SubmitButton intent="delete" className="button button--danger">
                {t("account.delete.submit")}
              </SubmitButton>
            </div>
          </Form>
        </article>
      </div>
    </section>
  );
}
