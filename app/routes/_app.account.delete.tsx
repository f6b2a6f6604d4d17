import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import { REFUND_FORM, refundHref } from "~/features/refunds/refund-form";
import { Trans } from "react-i18next";
import type { DeleteAccountFields } from "~/schemas/account-deletion";
import { DeleteAccountSchema } from "~/schemas/index.server";
import { FIELD_REFUSED, serviceUnavailable } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";
import { useFormOptions } from "~/utils/client-validation";
import { formatLongDate } from "~/utils/dates";
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

export const meta: MetaFunction = () => pageMeta("Delete account | VPN Account", "Delete your VPN account and its personal data.");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const PAGE = "/account/delete";
const FORM_ID = "delete-account";
const DELETE_FAILED = "Failed to delete your account. Please try again.";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user, api } = await requireUser(request, context);
  const preview = await api.get("/api/account/delete/preview");
  if (!preview.ok) throw serviceUnavailable();
  const { paid_plan: plan, refund } = preview.data;
  return data(
    {
      email: user.email,
      hasPassword: preview.data.confirm_with === "password",
      twoFactor: preview.data.two_factor,
      loss: plan ? { days: plan.days_left, title: plan.title, paidUntil: formatLongDate(plan.paid_until), autoRenews: plan.auto_renews } : null,
      refund: refund
        ? {
            daysAgo: refund.days_since_payment,
            amount: refund.amount,
            until: formatLongDate(refund.refundable_until),
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
      ? redirectWithSuccess(PAGE, sent.message || "We have emailed you a code to confirm.")
      : redirectWithFormError(PAGE, sent.message || "Failed to send the code. Please try again.", { form: FORM_ID });
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
    return redirectWithSuccess("/login", result.message || "Your account has been deleted.", {
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

  return (
    <section className="page delete-account">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : []} />
      <header className="page-header">
        <h1>Delete account</h1>
        <p className="tagline">This cannot be undone.</p>
      </header>
      <div className="cards">
        {refund ? (
          <article className="card" aria-labelledby="refund-heading">
            <h2 id="refund-heading">Get your money back first</h2>
            <p>You paid {paidAgo(refund.daysAgo)}: you can get your money back first.</p>
            <p className="muted">
              The 30-day money-back guarantee refunds your payment of {refund.amount} until {refund.until}. Ask for it before you delete your account: a
              deleted account cannot be refunded.
            </p>
            <p>
              <Link to={refund.href} className="button button--primary">
                <Trans i18nKey={REFUND_FORM.link} />
              </Link>
            </p>
          </article>
        ) : null}

        <article className="card" aria-labelledby="consequences-heading">
          <h2 id="consequences-heading">What happens when you delete your account</h2>
          {loss ? (
            <p className="delete-account__loss">
              <strong>
                You will lose {loss.days} paid {loss.days === 1 ? "day" : "days"} of your {loss.title} plan (paid until {loss.paidUntil}).
              </strong>
              {loss.autoRenews ? " Its auto-renewal stops, so you will not be charged again." : null}
            </p>
          ) : null}
          <ul>
            <li>Auto-renewal of your subscription is cancelled at the payment provider.</li>
            <li>Your saved cards are removed from the payment provider.</li>
            <li>Every device signed in to your account is signed out.</li>
            <li>Your personal data (email, name, password, sign-in connections) is erased.</li>
            <li>Your payment records (amounts and dates) are kept without personal data, as the law requires.</li>
          </ul>
          <p className="muted">
            Afterwards you can create a new account with <strong className="email-address">{email}</strong>; it will start with no plan and no history.
          </p>
        </article>

        <article className="card" aria-labelledby="confirm-heading">
          <h2 id="confirm-heading">Confirm</h2>
          {hasPassword ? (
            <p className="muted">{twoFactor ? "Enter your password and an authentication code to confirm." : "Enter your password to confirm."}</p>
          ) : (
            <>
              <p className="muted email-address">
                Your account has no password. We will email a code to {email} to confirm{twoFactor ? "; enter it with an authentication code" : ""}.
              </p>
              <Form method="post">
                <input type="hidden" name="intent" value="send-code" />
                <SubmitButton intent="send-code" className="button">
                  Email me a code
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
              <Field label={<label htmlFor={fields.password.id}>Password</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
                <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
              </Field>
            ) : (
              <Field label={<label htmlFor={fields.code.id}>Verification code</label>} errorId={fields.code.errorId} errors={fields.code.errors}>
                <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
              </Field>
            )}
            {twoFactor ? (
              <Field
                label={
                  <>
                    <label htmlFor={fields.authentication_code.id}>Authentication code</label>
                    <p className="muted field-hint" id={authenticationHintId}>
                      The 6-digit code from your authenticator app, or one of your recovery codes.
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
                Keep my account
              </Link>
              <SubmitButton intent="delete" className="button button--danger">
                Delete my account
              </SubmitButton>
            </div>
          </Form>
        </article>
      </div>
    </section>
  );
}

/** 'today', '1 day ago', '12 days ago'. */
function paidAgo(days: number): string {
  if (days === 0) return "today";
  return days === 1 ? "1 day ago" : `${days} days ago`;
}
