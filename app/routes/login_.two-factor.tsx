import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { AuthPage } from "~/components/auth-page";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import type { RecoveryCodeFields, TwoFactorCodeFields } from "~/schemas/two-factor";
import { RecoveryCodeSchema, TwoFactorCodeSchema } from "~/schemas/index.server";
import { createApiClient, FIELD_REFUSED } from "~/utils/api.server";
import { requireAnonymous } from "~/utils/auth.server";
import { useFormOptions } from "~/utils/client-validation";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { redirectWithFormError } from "~/utils/toast.server";
import { completeSignIn } from "~/utils/two-factor.server";

// The second step of a sign-in with two-factor on (docs/decisions/017): the challenge of the first
// step waits in the signed flow cookie; this page asks for the authenticator app's code, or with
// ?recovery=1 (a plain link, so it works without JavaScript) for a recovery code.

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.twoFactor.title", "auth.meta.twoFactor.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

/** The API keeps a challenge 10 minutes; the page says so before the API has to. */
const CHALLENGE_SECONDS = 600;
// Defined here, not imported from two-factor.server.ts: the components need it in the browser too.
const TWO_FACTOR_PATH = "/login/two-factor";
const CODE_FORM = "two-factor-code";
const RECOVERY_FORM = "two-factor-recovery";
const START_AGAIN = "auth.twoFactor.expired";
/** Where an ended sign-in's message stays: the alert of /login's sign-in form (issue 21). */
const SIGN_IN_FORM = { form: "sign-in" };

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  const flow = await readFlow(request, "twoFactor");
  if (!flow) throw redirect("/login");
  if (Date.now() - flow.startedAt > CHALLENGE_SECONDS * 1000) {
    throw await redirectWithFormError("/login", START_AGAIN, SIGN_IN_FORM, { headers: { "Set-Cookie": await writeFlow(request, "twoFactor", undefined) } });
  }
  const recovery = new URL(request.url).searchParams.get("recovery") === "1";
  return data({ recovery, desktop: Boolean(flow.desktop) }, { headers: NO_STORE });
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "verify");
  const flow = await readFlow(request, "twoFactor");

  if (intent === "restart" || !flow) {
    return redirect("/login", { headers: { "Set-Cookie": await writeFlow(request, "twoFactor", undefined) } });
  }

  const recovery = intent === "recovery";
  const submission = recovery ? parseSubmission(formData, RecoveryCodeSchema) : parseSubmission(formData, TwoFactorCodeSchema);
  const form = recovery ? RECOVERY_FORM : CODE_FORM;
  if (submission.status !== "success") return failure(form, submission);

  const value = submission.value;
  const proof = "recovery_code" in value ? { recovery_code: value.recovery_code } : { code: value.code.replace(/\s/g, "") };
  const result = await createApiClient(request, context).post("/api/user/two-factor/verify", {
    body: { challenge: flow.challenge, ...proof },
  });
  if (result.ok) {
    const headers = new Headers({ "Set-Cookie": await writeFlow(request, "twoFactor", undefined) });
    return completeSignIn(request, context, result.data.token, flow, headers);
  }
  // The challenge is gone (expired, or 5 wrong codes): back to the start, with the API's words.
  if (result.code === "challenge_ended") {
    return redirectWithFormError("/login", result.message || START_AGAIN, SIGN_IN_FORM, {
      headers: { "Set-Cookie": await writeFlow(request, "twoFactor", undefined) },
    });
  }
  const field = recovery ? "recovery_code" : "code";
  const fieldMessages = result.fieldErrors[field];
  if (result.code && FIELD_REFUSED.has(result.code) && fieldMessages?.length) return failure(form, submission, { [field]: fieldMessages }, null, 422);
  return failure(form, submission, {}, result.message || "auth.twoFactor.verifyFailed", result.status);
}

type Submission = { reply(options?: { hideFields?: string[]; fieldErrors?: Record<string, string[]> }): unknown };

/** The form's errors next to its field (codes never echoed back) and, when the API refused it otherwise, its message (in the form's alert too). */
function failure(form: string, submission: Submission, fieldErrors: Record<string, string[]> = {}, serverError: string | null = null, status = 400) {
  return formFailure(form, submission, serverError, status, { fieldErrors, headers: NO_STORE, errorAt: "" });
}

export default function TwoFactorSignInPage() {
  const { t } = useTranslation("auth");
  const { recovery } = useLoaderData<typeof loader>();
  return (
    <AuthPage title={t("auth.twoFactor.title")}>
      {recovery ? <RecoveryCodeForm /> : <AuthenticationCodeForm />}
      <div className="code-actions">
        <Form method="post">
          <input type="hidden" name="intent" value="restart" />
          <button type="submit" className="button button--link">
            {t("auth.twoFactor.cancel")}
          </button>
        </Form>
      </div>
    </AuthPage>
  );
}

function AuthenticationCodeForm() {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<TwoFactorCodeFields>(
    useFormOptions<TwoFactorCodeFields>(CODE_FORM, () => import("~/schemas/two-factor").then((module) => module.TwoFactorCodeSchema)),
  );
  return (
    <>
      <p className="muted">{t("auth.twoFactor.enterCode")}</p>
      <Form method="post" action={TWO_FACTOR_PATH} {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="verify" />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.code.id}>{t("auth.twoFactor.codeLabel")}</label>} errorId={fields.code.errorId} errors={fields.code.errors}>
          <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={7} autoFocus />
        </Field>
        <SubmitButton intent="verify">{t("auth.button.verify")}</SubmitButton>
      </Form>
      <p className="auth-links">
        <Link to={`${TWO_FACTOR_PATH}?recovery=1`} replace>
          {t("auth.twoFactor.useRecovery")}
        </Link>
      </p>
    </>
  );
}

function RecoveryCodeForm() {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<RecoveryCodeFields>(
    useFormOptions<RecoveryCodeFields>(RECOVERY_FORM, () => import("~/schemas/two-factor").then((module) => module.RecoveryCodeSchema)),
  );
  return (
    <>
      <p className="muted">{t("auth.twoFactor.enterRecovery")}</p>
      <Form method="post" action={`${TWO_FACTOR_PATH}?recovery=1`} {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="recovery" />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field
          label={<label htmlFor={fields.recovery_code.id}>{t("auth.twoFactor.recoveryLabel")}</label>}
          errorId={fields.recovery_code.errorId}
          errors={fields.recovery_code.errors}
        >
          <input {...getInputProps(fields.recovery_code, { type: "text" })} autoComplete="off" autoCapitalize="none" spellCheck={false} maxLength={40} autoFocus />
        </Field>
        <SubmitButton intent="recovery">{t("auth.button.verify")}</SubmitButton>
      </Form>
      <p className="auth-links">
        <Link to={TWO_FACTOR_PATH} replace>
          {t("auth.twoFactor.useCode")}
        </Link>
      </p>
    </>
  );
}
