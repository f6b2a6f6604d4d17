import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { CodeInput } from "~/components/code-input";
import { RestartForm } from "~/components/restart-form";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { PasswordRules } from "~/components/password-rules";
import { ResendForm } from "~/components/resend-form";
import { SubmitButton } from "~/components/submit-button";
import type { SignupCodeFields, SignupEmailFields, SignupPasswordFields } from "~/schemas/identity";
import { useFormOptions } from "~/utils/client-validation";
import type { SignupStep } from "./signup.server";

const loadIdentitySchemas = () => import("~/schemas/identity");

const STEP_LABELS = ["auth.signUp.step.email", "auth.signUp.step.code", "auth.signUp.step.password"] as const;

export function SignUp({ state }: { state: SignupStep }) {
  const { t } = useTranslation("auth");
  return (
    <>
      <ol className="steps" aria-label={t("auth.signUp.steps")}>
        {STEP_LABELS.map((label, index) => {
          const current = ["email", "code", "password"].indexOf(state.step);
          return (
            <li key={label} aria-current={index === current ? "step" : undefined} className={index <= current ? "done" : undefined}>
              {t(label)}
            </li>
          );
        })}
      </ol>
      {state.step === "email" ? <EmailStep /> : null}
      {state.step === "code" ? <CodeStep email={state.email} secondsLeft={state.secondsLeft} sentAt={state.sentAt} /> : null}
      {state.step === "password" ? <PasswordStep email={state.email} /> : null}
    </>
  );
}

function EmailStep() {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<SignupEmailFields>(
    useFormOptions<SignupEmailFields>("signup-email", () => loadIdentitySchemas().then((m) => m.SignupEmailSchema)),
  );
  return (
    <Form method="post" {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value="signup-email" />
      <FormAlert id={form.errorId} errors={form.errors} />
      <Field label={<label htmlFor={fields.email.id}>{t("auth.field.email")}</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
        <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus />
      </Field>
      <div className="check">
        <input {...getInputProps(fields.agree_terms, { type: "checkbox", value: "1" })} />
        <label htmlFor={fields.agree_terms.id}>
          <Trans
            t={t}
            i18nKey="auth.signUp.agreeTerms"
            components={{ terms: <Link to="/terms" />, privacy: <Link to="/privacy" /> }}
          />
        </label>
      </div>
      <p className="field-error" id={fields.agree_terms.errorId}>
        {fields.agree_terms.errors?.[0] ? t(fields.agree_terms.errors[0]) : ""}
      </p>
      <div className="check">
        <input {...getInputProps(fields.agree_margeting, { type: "checkbox", value: "1" })} />
        <label htmlFor={fields.agree_margeting.id}>{t("auth.signUp.marketing")}</label>
      </div>
      <SubmitButton intent="signup-email">{t("auth.button.continue")}</SubmitButton>
    </Form>
  );
}

function CodeStep({ email, secondsLeft, sentAt }: { email: string; secondsLeft: number; sentAt: number }) {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<SignupCodeFields>(
    useFormOptions<SignupCodeFields>("signup-code", () => loadIdentitySchemas().then((m) => m.SignupCodeSchema)),
  );
  return (
    <>
      <h2 className="step-title">{t("auth.signUp.step.code")}</h2>
      <p className="muted">
        <Trans t={t} i18nKey="auth.signUp.codeSent" values={{ email }} components={{ strong: <strong /> }} />
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="signup-code" />
        <FormAlert id={form.errorId} errors={form.errors} />
        <CodeInput id={fields.verification_code.id} name={fields.verification_code.name} errorId={fields.verification_code.errorId} errors={fields.verification_code.errors} />
        <SubmitButton intent="signup-code">{t("auth.button.continue")}</SubmitButton>
      </Form>
      <div className="code-actions">
        <ResendForm secondsLeft={secondsLeft} sentAt={sentAt} />
        <RestartForm intent="signup-restart" />
      </div>
    </>
  );
}

function PasswordStep({ email }: { email: string }) {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<SignupPasswordFields>(
    useFormOptions<SignupPasswordFields>("signup-password", () =>
      loadIdentitySchemas().then((m) => m.SignupPasswordSchema),
    ),
  );
  return (
    <>
      <p className="muted">
        <Trans t={t} i18nKey="auth.signUp.choosePassword" values={{ email }} components={{ strong: <strong /> }} />
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="signup-password" />
        <input type="text" name="username" value={email} autoComplete="username" readOnly hidden />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.password.id}>{t("auth.field.password")}</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
          <input
            {...getInputProps(fields.password, { type: "password", ariaDescribedBy: `${form.id}-rules` })}
            autoComplete="new-password"
            autoFocus
          />
        </Field>
        <PasswordRules id={`${form.id}-rules`} />
        <Field
          label={<label htmlFor={fields.confirmPassword.id}>{t("auth.field.confirmPassword")}</label>}
          errorId={fields.confirmPassword.errorId}
          errors={fields.confirmPassword.errors}
        >
          <input {...getInputProps(fields.confirmPassword, { type: "password" })} autoComplete="new-password" />
        </Field>
        <SubmitButton intent="signup-password">{t("auth.signUp.finish")}</SubmitButton>
      </Form>
      <div className="code-actions">
        <RestartForm intent="signup-restart" />
      </div>
    </>
  );
}
