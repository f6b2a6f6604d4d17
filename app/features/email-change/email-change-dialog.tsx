import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { OtpStepForm } from "~/components/code-flow";
import { CodeInput } from "~/components/code-input";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { FlowDialog } from "~/components/flow-dialog";
import { ResendForm } from "~/components/resend-form";
import { SubmitButton } from "~/components/submit-button";
import type { EmailChangeStartFields } from "~/schemas/email-change";
import { useFormOptions } from "~/utils/client-validation";
import type { EmailChangeDialogState } from "./email-change.server";
import { EMAIL_START_FORM } from "./forms";

// The change-email dialog (issue 22): 'New email' with 'Current password' (or, for an account without
// a password, the code sent to its current address) and 'Send code'; then 'Verification code' and 'Verify'.

export function EmailChangeDialog({ state }: { state: EmailChangeDialogState }) {
  const { t } = useTranslation("account");
  return (
    <FlowDialog id="change-email" title={t("account.emailChange.title")} closeIntent="email-close" returnFocusTo="#change-email-open button">
      {state.step === "code" ? (
        <OtpStepForm state={state.code} intent="email-verify" resendIntent="email-resend" button={t("account.emailChange.verify")} />
      ) : (
        <StartForm state={state} />
      )}
    </FlowDialog>
  );
}

function StartForm({ state }: { state: Extract<EmailChangeDialogState, { step: "start" }> }) {
  const [form, fields] = useForm<EmailChangeStartFields>(
    useFormOptions<EmailChangeStartFields>(EMAIL_START_FORM, () => import("~/schemas/email-change").then((m) => m.EmailChangeStartSchema)),
  );
  const { t } = useTranslation("account");
  return (
    <>
      <p className="muted">
        {state.method === "password" ? (
          t("account.emailChange.passwordIntro")
        ) : (
          <Trans
            t={t}
            i18nKey="account.emailChange.codeIntro"
            values={{ email: state.currentEmail }}
            components={{ strong: <strong /> }}
          />
        )}
      </p>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="email-start" />
        <input type="hidden" name="method" value={state.method} />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.email.id}>{t("account.emailChange.newEmail")}</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
          <input {...getInputProps(fields.email, { type: "email" })} autoComplete="email" autoFocus />
        </Field>
        {state.method === "password" ? (
          <Field
            label={<label htmlFor={fields.password.id}>{t("account.emailChange.currentPassword")}</label>}
            errorId={fields.password.errorId}
            errors={fields.password.errors}
          >
            <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
          </Field>
        ) : (
          <CodeInput id={fields.code.id} name={fields.code.name} errorId={fields.code.errorId} errors={fields.code.errors} />
        )}
        <SubmitButton intent="email-start">{t("account.emailChange.sendCode")}</SubmitButton>
      </Form>
      {state.auth ? (
        <div className="code-actions">
          <ResendForm secondsLeft={state.auth.resendIn} sentAt={state.auth.sentAt} intent="email-auth-resend" />
        </div>
      ) : null}
    </>
  );
}
