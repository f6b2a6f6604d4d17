import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SocialSignIn } from "~/components/social-sign-in";
import { SubmitButton } from "~/components/submit-button";
import { PasskeySignIn } from "~/features/passkeys/passkey-sign-in";
import type { LoginFields } from "~/schemas/login";
import { useFormOptions } from "~/utils/client-validation";

export function SignInForm({ oldurl }: { oldurl: string }) {
  const { t } = useTranslation("auth");
  const [form, fields] = useForm<LoginFields>(
    useFormOptions<LoginFields>("sign-in", () =>
      import("~/schemas/login").then((module) => module.LoginSchema),
    ),
  );

  return (
    <>
      <Form method="post" {...getFormProps(form)} noValidate>
        <input type="hidden" name="intent" value="signin" />
        <input type="hidden" name="oldurl" value={oldurl} />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.email.id}>{t("auth.field.email")}</label>} errorId={fields.email.errorId} errors={fields.email.errors}>
          <input {...getInputProps(fields.email, { type: "email" })} autoComplete="username webauthn" autoFocus />
        </Field>
        <Field
          label={<label htmlFor={fields.password.id}>{t("auth.field.password")}</label>}
          errorId={fields.password.errorId}
          errors={fields.password.errors}
        >
          <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
        </Field>
        <div className="auth-links">
          <Link to="/forget-password">{t("auth.signIn.forgotPassword")}</Link>
          <Link to="/get-code">{t("auth.signIn.getCode")}</Link>
        </div>
        <SubmitButton intent="signin">{t("auth.button.continue")}</SubmitButton>
      </Form>
      <PasskeySignIn oldurl={oldurl} />
      <SocialSignIn oldurl={oldurl} divider={t("auth.social.or")} />
    </>
  );
}
