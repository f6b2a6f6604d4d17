import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
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

export function SignUp({ state }: { state: SignupStep }) {
  return (
    <>
      <ol className="steps" aria-label="Sign-up steps">
        {["Email", "Confirm Code", "Password"].map((label, index) => {
          const current = ["email", "code", "password"].indexOf(state.step);
          return (
            <li key={label} aria-current={index === current ? "step" : undefined} className={index <= current ? "done" : undefined}>
              {label}
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
  const [form, fields] = useForm<SignupEmailFields>(
    useFormOptions<SignupEmailFields>("signup-email", () => loadIdentitySchemas().then((m) => m.SignupEmailSchema)),
  );
  return (
    <Form method="post" {...getFormProps(form)} noValidate>
      <input type="hidden" name="intent" value="signup-email" />
      <FormAlert id={form.errorId} errors={form.errors} />
      <Field label={<label htmlFor={fields.email.id}>Email</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
        <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus />
      </Field>
      <div className="check">
        <input {...getInputProps(fields.agree_terms, { type: "checkbox", value: "1" })} />
        <label htmlFor={fields.agree_terms.id}>
          I agree to the <Link to="/terms">Terms of Service</Link> and <Link to="/privacy">Privacy Policy</Link>
        </label>
      </div>
      <p className="field-error" id={fields.agree_terms.errorId}>
        {fields.agree_terms.errors?.[0] ?? ""}
      </p>
      <div className="check">
        <input {...getInputProps(fields.agree_margeting, { type: "checkbox", value: "1" })} />
        <label htmlFor={fields.agree_margeting.id}>Send me news and offers by email</label>
      </div>
      <SubmitButton intent="signup-email">Continue</SubmitButton>
    </Form>
  );
}

function CodeStep({ email, secondsLeft, sentAt }: { email: string; secondsLeft: number; sentAt: number }) {
  const [form, fields] = useForm<SignupCodeFields>(
    useFormOptions<SignupCodeFields>("signup-code", () => loadIdentitySchemas().then((m) => m.SignupCodeSchema)),
  );
  return (
    <>
      <h2 className="step-title">Confirm Code</h2>
      <p className="muted">
        We sent a 6-digit code to <strong>{email}</strong>.
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="signup-code" />
        <FormAlert id={form.errorId} errors={form.errors} />
        <CodeInput id={fields.verification_code.id} name={fields.verification_code.name} errorId={fields.verification_code.errorId} errors={fields.verification_code.errors} />
        <SubmitButton intent="signup-code">Continue</SubmitButton>
      </Form>
      <div className="code-actions">
        <ResendForm secondsLeft={secondsLeft} sentAt={sentAt} />
        <RestartForm intent="signup-restart" />
      </div>
    </>
  );
}

function PasswordStep({ email }: { email: string }) {
  const [form, fields] = useForm<SignupPasswordFields>(
    useFormOptions<SignupPasswordFields>("signup-password", () =>
      loadIdentitySchemas().then((m) => m.SignupPasswordSchema),
    ),
  );
  return (
    <>
      <p className="muted">
        Choose a password for <strong>{email}</strong>.
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="signup-password" />
        <input type="text" name="username" value={email} autoComplete="username" readOnly hidden />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.password.id}>Password</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
          <input
            {...getInputProps(fields.password, { type: "password", ariaDescribedBy: `${form.id}-rules` })}
            autoComplete="new-password"
            autoFocus
          />
        </Field>
        <PasswordRules id={`${form.id}-rules`} />
        <Field
          label={<label htmlFor={fields.confirmPassword.id}>Confirm Password</label>}
          errorId={fields.confirmPassword.errorId}
          errors={fields.confirmPassword.errors}
        >
          <input {...getInputProps(fields.confirmPassword, { type: "password" })} autoComplete="new-password" />
        </Field>
        <SubmitButton intent="signup-password">Finish</SubmitButton>
      </Form>
      <div className="code-actions">
        <RestartForm intent="signup-restart" />
      </div>
    </>
  );
}
