import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { CopyButton } from "~/components/copy-button";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import type { RecoveryCodeFields, TwoFactorCodeFields, TwoFactorEnableFields } from "~/schemas/two-factor";
import { RecoveryCodeSchema, TwoFactorCodeSchema, TwoFactorEnableSchema } from "~/schemas/index.server";
import { type ApiErrorCode, FIELD_REFUSED, serviceUnavailable } from "~/utils/api.server";
import { requireUser } from "~/utils/auth.server";
import { useFormOptions } from "~/utils/client-validation";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { type FormFailure, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { qrCodeSvg } from "~/utils/qr-code.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";

// 'Two-factor authentication' (issue 12, docs/decisions/017): set up (QR code rendered on the
// server as SVG, the 'Setup key' as text, 'Authentication code', 'Turn on'), the ten recovery codes
// shown once, and 'Turn off' with a current code or a recovery code (?recovery=1 without JavaScript).
// 'Turn on' asks again who is there (issue 17): the 'Current password', or for an account without
// one a 'Verification code' emailed by 'Send code', so a stolen session cannot enrol its own app.

export const meta: MetaFunction = (args) => pageMeta(args, "account.meta.twoFactor.title", "account.meta.twoFactor.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

const PAGE = "/account/two-factor";
const ENABLE_FORM = "two-factor-enable";
const DISABLE_CODE_FORM = "two-factor-disable-code";
const DISABLE_RECOVERY_FORM = "two-factor-disable-recovery";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { api, user } = await requireUser(request, context);
  // Shown once: the cookie that carried them from 'Turn on' is cleared by this very answer.
  const recoveryCodes = await readFlow(request, "recoveryCodes");
  if (recoveryCodes?.length) {
    return data(
      { state: "codes" as const, codes: recoveryCodes },
      { headers: { ...NO_STORE, "Set-Cookie": await writeFlow(request, "recoveryCodes", undefined) } },
    );
  }
  const status = await api.get("/api/account/two-factor");
  if (!status.ok) throw serviceUnavailable();
  if (status.data.enabled) {
    return data({ state: "on" as const, recoveryCodesLeft: status.data.recovery_codes_left }, { headers: NO_STORE });
  }
  const setup = await api.post("/api/account/two-factor/setup");
  if (!setup.ok) throw serviceUnavailable();
  return data(
    {
      state: "setup" as const,
      secret: setup.data.secret,
      qrSvg: await qrCodeSvg(setup.data.otpauth_url),
      hasPassword: user.has_password,
      email: user.email,
    },
    { headers: NO_STORE },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { api, user } = await requireUser(request, context);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");

  if (intent === "send-code") {
    const sent = await api.post("/api/account/two-factor/send-code");
    return sent.ok
      ? redirectWithSuccess(PAGE, sent.message || "account.confirm.codeEmailed")
      : redirectWithFormError(PAGE, sent.message || "account.confirm.codeSendFailed", { form: ENABLE_FORM });
  }

  if (intent === "enable") {
    // The account decides how turning on is confirmed, whatever the hidden field says.
    formData.set("method", user.has_password ? "password" : "code");
    const submission = parseSubmission(formData, TwoFactorEnableSchema);
    if (submission.status !== "success") return failure(ENABLE_FORM, submission);
    const { code, password, verification_code } = submission.value;
    const confirmation = user.has_password ? { password } : { verification_code };
    const enabled = await api.post("/api/account/two-factor/enable", { body: { code: code.replace(/\s/g, ""), ...confirmation } });
    if (enabled.ok) {
      return redirectWithSuccess(PAGE, enabled.message || "account.twoFactor.turnedOn", {
        headers: { "Set-Cookie": await writeFlow(request, "recoveryCodes", enabled.data.recovery_codes) },
      });
    }
    if (enabled.code === "two_factor_already_on" || enabled.code === "two_factor_not_set_up") {
      // Already on: the page now shows 'Turn off'; not set up: a new setup. The message stays by that form.
      const target = { form: enabled.code === "two_factor_already_on" ? DISABLE_CODE_FORM : ENABLE_FORM };
      return redirectWithFormError(PAGE, enabled.message || "account.twoFactor.setUpAgain", target);
    }
    return apiFailure(ENABLE_FORM, submission, enabled, ["code", user.has_password ? "password" : "verification_code"]);
  }

  if (intent === "disable" || intent === "disable-recovery") {
    const recovery = intent === "disable-recovery";
    const form = recovery ? DISABLE_RECOVERY_FORM : DISABLE_CODE_FORM;
    const submission = recovery ? parseSubmission(formData, RecoveryCodeSchema) : parseSubmission(formData, TwoFactorCodeSchema);
    if (submission.status !== "success") return failure(form, submission);
    const value = submission.value;
    const body = "recovery_code" in value ? { recovery_code: value.recovery_code } : { code: value.code.replace(/\s/g, "") };
    const disabled = await api.post("/api/account/two-factor/disable", { body });
    if (disabled.ok || disabled.code === "two_factor_off") {
      return redirectWithSuccess("/", disabled.ok ? disabled.message || "account.twoFactor.turnedOff" : "account.twoFactor.turnedOff");
    }
    return apiFailure(form, submission, disabled, [recovery ? "recovery_code" : "code"]);
  }

  throw new Response("Unknown form", { status: 400 });
}

type Submission = { reply(options?: { hideFields?: string[]; fieldErrors?: Record<string, string[]> }): unknown };

function failure(form: string, submission: Submission, fieldErrors: Record<string, string[]> = {}, serverError: string | null = null, status = 400) {
  return formFailure(form, submission, serverError, status, { fieldErrors, headers: NO_STORE, errorAt: "" });
}

/** A refused code or password goes next to its field; anything else (limits, the API down) above the form. */
function apiFailure(
  form: string,
  submission: Submission,
  result: { status: number; code: ApiErrorCode | null; message: string; fieldErrors: Record<string, string[]> },
  fields: string[],
) {
  const fieldErrors = Object.fromEntries(fields.flatMap((field) => (result.fieldErrors[field]?.length ? [[field, result.fieldErrors[field]!]] : [])));
  if (result.code && FIELD_REFUSED.has(result.code) && Object.keys(fieldErrors).length) return failure(form, submission, fieldErrors, null, 422);
  return failure(form, submission, {}, result.message || "account.somethingWentWrong", result.status);
}

export default function TwoFactorPage() {
  const state = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const idle = useNavigation().state === "idle";
  const serverError = idle ? actionData?.serverError : null;
  const { t } = useTranslation("account");
  return (
    <section className="page two-factor">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : []} />
      <header className="page-header">
        <h1>{t("account.twoFactor.heading")}</h1>
        <p className="tagline">{t("account.twoFactor.tagline")}</p>
      </header>
      <div className="cards">
        {state.state === "setup" ? <SetupCard secret={state.secret} qrSvg={state.qrSvg} hasPassword={state.hasPassword} email={state.email} /> : null}
        {state.state === "codes" ? <RecoveryCodesCard codes={state.codes} /> : null}
        {state.state === "on" ? <TurnOffCard recoveryCodesLeft={state.recoveryCodesLeft} /> : null}
      </div>
    </section>
  );
}

function SetupCard({ secret, qrSvg, hasPassword, email }: { secret: string; qrSvg: string; hasPassword: boolean; email: string }) {
  const [form, fields] = useForm<TwoFactorEnableFields>(
    useFormOptions<TwoFactorEnableFields>(ENABLE_FORM, () => import("~/schemas/two-factor").then((module) => module.TwoFactorEnableSchema)),
  );
  const { t } = useTranslation("account");
  return (
    <article className="card" aria-labelledby="setup-heading">
      <h2 id="setup-heading">{t("account.twoFactor.setup.heading")}</h2>
      <ol className="setup-steps">
        <li>{t("account.twoFactor.setup.scan")}</li>
        <li>{t("account.twoFactor.setup.typeKey")}</li>
        <li>{t("account.twoFactor.setup.enterCode")}</li>
        <li>{hasPassword ? t("account.twoFactor.setup.confirmPassword") : t("account.twoFactor.setup.confirmCode", { email })}</li>
      </ol>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the QR code is our own server's SVG (qrcode), not user input */}
      <div className="qr-code" role="img" aria-label={t("account.twoFactor.setup.qrLabel")} dangerouslySetInnerHTML={{ __html: qrSvg }} />
      <div className="field">
        <label htmlFor="setup-key">{t("account.twoFactor.setup.key")}</label>
        {/* A text area, so that the key wraps on a narrow phone instead of being cut. */}
        <div className="setup-key-row">
          <textarea id="setup-key" className="setup-key" readOnly value={secret} spellCheck={false} rows={2} autoCapitalize="none" autoComplete="off" />
          <CopyButton value={secret} />
        </div>
      </div>
      {hasPassword ? null : (
        // Its own form: sending the code must not submit (or lose) what is typed in 'Turn on'.
        <Form method="post" action={PAGE}>
          <input type="hidden" name="intent" value="send-code" />
          <SubmitButton intent="send-code" className="button">
            {t("account.twoFactor.setup.sendCode")}
          </SubmitButton>
        </Form>
      )}
      <Form method="post" action={PAGE} {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="enable" />
        <input type="hidden" name="method" value={hasPassword ? "password" : "code"} />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.code.id}>{t("account.twoFactor.authenticationCode")}</label>} errorId={fields.code.errorId} errors={fields.code.errors}>
          <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={7} />
        </Field>
        {hasPassword ? (
          <Field label={<label htmlFor={fields.password.id}>{t("account.twoFactor.setup.currentPassword")}</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
            <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
          </Field>
        ) : (
          <Field
            label={<label htmlFor={fields.verification_code.id}>{t("account.twoFactor.setup.verificationCode")}</label>}
            errorId={fields.verification_code.errorId}
            errors={fields.verification_code.errors}
          >
            <input {...getInputProps(fields.verification_code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
          </Field>
        )}
        <div className="form-actions">
          <Link to="/" className="button">
            {t("account.twoFactor.setup.cancel")}
          </Link>
          <SubmitButton intent="enable" className="button button--primary">
            {t("account.twoFactor.setup.turnOn")}
          </SubmitButton>
        </div>
      </Form>
    </article>
  );
}

function RecoveryCodesCard({ codes }: { codes: string[] }) {
  const { t } = useTranslation("account");
  return (
    <article className="card" aria-labelledby="recovery-heading">
      <h2 id="recovery-heading">{t("account.twoFactor.codes.heading")}</h2>
      <p>
        <Trans t={t} i18nKey="account.twoFactor.codes.text" components={{ strong: <strong /> }} />
      </p>
      <ul className="recovery-codes" aria-label={t("account.twoFactor.codes.heading")}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="form-actions">
        {/* A plain document POST: the browser saves the text file and stays on this page. */}
        <form method="post" action="/account/two-factor/recovery-codes">
          {codes.map((code) => (
            <input key={code} type="hidden" name="codes" value={code} />
          ))}
          <button type="submit" className="button">
            {t("account.twoFactor.codes.download")}
          </button>
        </form>
        <Link to="/" className="button button--primary">
          {t("account.twoFactor.codes.done")}
        </Link>
      </div>
    </article>
  );
}

function TurnOffCard({ recoveryCodesLeft }: { recoveryCodesLeft: number }) {
  const [searchParams] = useSearchParams();
  const recovery = searchParams.get("recovery") === "1";
  const { t } = useTranslation("account");
  return (
    <article className="card" aria-labelledby="turn-off-heading">
      <h2 id="turn-off-heading">{t("account.twoFactor.off.heading")}</h2>
      <p className="muted">{t("account.twoFactor.off.codesLeft", { count: recoveryCodesLeft })}</p>
      {recovery ? <TurnOffWithRecoveryCode /> : <TurnOffWithCode />}
    </article>
  );
}

function TurnOffWithCode() {
  const [form, fields] = useForm<TwoFactorCodeFields>(
    useFormOptions<TwoFactorCodeFields>(DISABLE_CODE_FORM, () => import("~/schemas/two-factor").then((module) => module.TwoFactorCodeSchema)),
  );
  const { t } = useTranslation("account");
  return (
    <>
      <p>{t("account.twoFactor.off.withCode")}</p>
      <Form method="post" action={PAGE} {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="disable" />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.code.id}>{t("account.twoFactor.authenticationCode")}</label>} errorId={fields.code.errorId} errors={fields.code.errors}>
          <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={7} />
        </Field>
        <div className="form-actions">
          <SubmitButton intent="disable" className="button button--danger">
            {t("account.twoFactor.off.button")}
          </SubmitButton>
        </div>
      </Form>
      <p>
        <Link to={`${PAGE}?recovery=1`} replace>
          {t("account.twoFactor.off.useRecoveryCode")}
        </Link>
      </p>
    </>
  );
}

function TurnOffWithRecoveryCode() {
  const [form, fields] = useForm<RecoveryCodeFields>(
    useFormOptions<RecoveryCodeFields>(DISABLE_RECOVERY_FORM, () => import("~/schemas/two-factor").then((module) => module.RecoveryCodeSchema)),
  );
  const { t } = useTranslation("account");
  return (
    <>
      <p>{t("account.twoFactor.off.withRecoveryCode")}</p>
      <Form method="post" action={`${PAGE}?recovery=1`} {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="disable-recovery" />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field
          label={<label htmlFor={fields.recovery_code.id}>{t("account.twoFactor.off.recoveryCode")}</label>}
          errorId={fields.recovery_code.errorId}
          errors={fields.recovery_code.errors}
        >
          <input {...getInputProps(fields.recovery_code, { type: "text" })} autoComplete="off" autoCapitalize="none" spellCheck={false} maxLength={40} />
        </Field>
        <div className="form-actions">
          <SubmitButton intent="disable-recovery" className="button button--danger">
            {t("account.twoFactor.off.button")}
          </SubmitButton>
        </div>
      </Form>
      <p>
        <Link to={PAGE} replace>
          {t("account.twoFactor.off.useAuthenticationCode")}
        </Link>
      </p>
    </>
  );
}
