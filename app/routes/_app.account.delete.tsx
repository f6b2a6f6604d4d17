import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import type { DeleteAccountFields } from "~/schemas/account-deletion";
import { DeleteAccountSchema } from "~/schemas/index.server";
import { FIELD_REFUSED } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";
import { useFormOptions } from "~/utils/client-validation";
import { type FormFailure, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { destroySessionCookie } from "~/utils/session.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";

// 'Delete account' (issue 12): what deleting does, then the password (or, for an account without
// one, an emailed code) and 'Delete my account'. The API does the work (docs/decisions/015); this
// page clears the session and sends the browser to /login with the flash message.

export const meta: MetaFunction = () => pageMeta("Delete account | VPN Account", "Delete your VPN account and its personal data.");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const PAGE = "/account/delete";
const FORM_ID = "delete-account";
const DELETE_FAILED = "Failed to delete your account. Please try again.";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user } = await requireUser(request, context);
  return data({ email: user.email, hasPassword: user.has_password }, { headers: NO_STORE });
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

  // The account decides how deletion is confirmed, whatever the hidden field says.
  formData.set("method", user.has_password ? "password" : "code");
  const submission = parseSubmission(formData, DeleteAccountSchema);
  if (submission.status !== "success") return failure(submission);
  const body = user.has_password ? { password: submission.value.password } : { code: submission.value.code };
  const result = await api.post("/api/account/delete", { body });
  if (result.ok) {
    return redirectWithSuccess("/login", result.message || "Your account has been deleted.", {
      headers: { "Set-Cookie": await destroySessionCookie(request) },
    });
  }
  // A refused password or code goes next to its field; anything else (limits, gateway) above the form.
  const field = user.has_password ? "password" : "code";
  const fieldMessages = result.fieldErrors[field];
  if (result.code && FIELD_REFUSED.has(result.code) && fieldMessages?.length) return failure(submission, { [field]: fieldMessages }, null, 422);
  return failure(submission, {}, result.message || DELETE_FAILED, result.status);
}

type Submission = ReturnType<typeof parseSubmission<typeof DeleteAccountSchema>>;

/** The form's errors (secrets never echoed back) and, when the API refused it, its message. */
function failure(submission: Submission, fieldErrors: Record<string, string[]> = {}, serverError: string | null = null, status = 400) {
  return formFailure(FORM_ID, submission, serverError, status, { fieldErrors, headers: NO_STORE, errorAt: "" });
}

export default function DeleteAccountPage() {
  const { email, hasPassword } = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const serverError = idle ? actionData?.serverError : null;
  const [form, fields] = useForm<DeleteAccountFields>(
    useFormOptions<DeleteAccountFields>(FORM_ID, () => import("~/schemas/account-deletion").then((module) => module.DeleteAccountSchema)),
  );

  return (
    <section className="page delete-account">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : []} />
      <header className="page-header">
        <h1>Delete account</h1>
        <p className="tagline">This cannot be undone.</p>
      </header>
      <div className="cards">
        <article className="card" aria-labelledby="consequences-heading">
          <h2 id="consequences-heading">What happens when you delete your account</h2>
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
            <p className="muted">Enter your password to confirm.</p>
          ) : (
            <>
              <p className="muted email-address">Your account has no password. We will email a code to {email} to confirm.</p>
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
