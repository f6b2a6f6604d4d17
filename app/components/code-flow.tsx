import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import type { EmailStepFields, NewPasswordFields, OtpFields } from "~/schemas/identity";
import { useFormOptions } from "~/utils/client-validation";
import { CodeInput } from "./code-input";
import { formatMinutesSeconds, useCountdown } from "./countdown";
import { Field } from "./field";
import { FormAlert } from "./form-alert";
import { PasswordRules } from "./password-rules";
import { ResendForm } from "./resend-form";
import { SubmitButton } from "./submit-button";

// The steps shared by sign-in by code, password reset and the change-password dialog. A `button` is a
// catalogue key (or a text already translated, which t passes through as it is).

const loadIdentitySchemas = () => import("~/schemas/identity");

export type CodeStepState = { email: string; sentAt: number; resendIn: number; expiresIn: number };

export function EmailStepForm({ intent = "send", button = "auth.button.continue" }: { intent?: string; button?: string }) {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<EmailStepFields>(
    useFormOptions<EmailStepFields>(intent, () => loadIdentitySchemas().then((m) => m.EmailStepSchema)),
  );
  return (
    <Form method="post" {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value={intent} />
      <FormAlert id={form.errorId} errors={form.errors} />
      <Field label={<label htmlFor={fields.email.id}>{t("auth.field.email")}</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
        <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus />
      </Field>
      <SubmitButton intent={intent}>{t(button)}</SubmitButton>
    </Form>
  );
}

export function OtpStepForm({
  state,
  intent = "verify",
  button = "auth.button.continue",
  resendIntent = "resend",
  children,
}: {
  state: CodeStepState;
  intent?: string;
  button?: string;
  resendIntent?: string;
  children?: ReactNode;
}) {
  const [form, fields] = useForm<OtpFields>(
    useFormOptions<OtpFields>(intent, () => loadIdentitySchemas().then((m) => m.OtpSchema)),
  );
  const { t } = useTranslation("auth");
  const expiresIn = useCountdown(state.expiresIn, state.sentAt);
  return (
    <>
      <p className="muted">
        <Trans t={t} i18nKey="auth.code.enter" values={{ email: state.email }} components={{ strong: <strong /> }} />
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value={intent} />
        <FormAlert id={form.errorId} errors={form.errors} />
        <CodeInput id={fields.code.id} name={fields.code.name} errorId={fields.code.errorId} errors={fields.code.errors} />
        <p className="expiry" aria-live="off">
          {expiresIn > 0 ? (
            <Trans
              t={t}
              i18nKey="auth.code.expiresIn"
              values={{ time: formatMinutesSeconds(expiresIn) }}
              components={{ countdown: <span className="countdown" /> }}
            />
          ) : (
            t("auth.code.expired")
          )}
        </p>
        <SubmitButton intent={intent}>{t(button)}</SubmitButton>
      </Form>
      <div className="code-actions">
        <ResendForm secondsLeft={state.resendIn} sentAt={state.sentAt} intent={resendIntent} />
        {children}
      </div>
    </>
  );
}

export function NewPasswordForm({
  intent = "reset",
  button = "auth.button.continue",
  email,
  autoFocus = true,
}: {
  intent?: string;
  button?: string;
  email?: string;
  autoFocus?: boolean;
}) {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<NewPasswordFields>(
    useFormOptions<NewPasswordFields>(intent, () => loadIdentitySchemas().then((m) => m.NewPasswordSchema)),
  );
  return (
    <Form method="post" {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value={intent} />
      {email ? <input type="text" name="username" value={email} autoComplete="username" readOnly hidden /> : null}
      <FormAlert id={form.errorId} errors={form.errors} />
      <Field label={<label htmlFor={fields.password.id}>{t("auth.field.password")}</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
        <input
          {...getInputProps(fields.password, { type: "password", ariaDescribedBy: `${form.id}-rules` })}
          autoComplete="new-password"
          autoFocus={autoFocus}
        />
      </Field>
      <PasswordRules id={`${form.id}-rules`} />
      <Field
        label={<label htmlFor={fields.password_confirmation.id}>{t("auth.field.confirmPassword")}</label>}
        errorId={fields.password_confirmation.errorId}
        errors={fields.password_confirmation.errors}
      >
        <input {...getInputProps(fields.password_confirmation, { type: "password" })} autoComplete="new-password" />
      </Field>
      <SubmitButton intent={intent}>{t(button)}</SubmitButton>
    </Form>
  );
}
