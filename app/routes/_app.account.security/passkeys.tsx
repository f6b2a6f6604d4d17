import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { Form, useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { Field } from "~/components/field";
import { FormAlert, useFlashFormError } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import { type PasskeyListItem, PasskeyList } from "~/features/passkeys/passkey-list";
import { browserHasWebAuthn, ceremonyError, loadWebAuthn, postJson } from "~/features/passkeys/passkey-client";
import { PASSKEY_CLIENT_MESSAGES } from "~/features/passkeys/passkey-client-messages";
import { PASSKEYS_FORM, PASSKEY_CONFIRM_FORM, PASSKEY_NAME_MAX } from "~/features/passkeys/passkey-messages";
import type { PasskeyConfirmFields } from "~/schemas/passkeys";
import { useFormOptions } from "~/utils/client-validation";
import type { PasskeyAddState } from "./passkeys.server";

// The security page's 'Passkeys' section (docs/decisions/037): the account's passkeys with 'Remove'
// (a plain form post, works without JavaScript) and 'Add a passkey' (issue 30): first a plain form the
// server checks ('Passkey name', 'Current password' or an emailed 'Verification code', and
// 'Authentication code' when two-factor is on), then 'Create passkey', the browser's prompt, which
// needs JavaScript.

const PAGE = "/account/security";

export function PasskeysSection({ passkeys, add }: { passkeys: PasskeyListItem[]; add: PasskeyAddState }) {
  const flash = useFlashFormError(PASSKEYS_FORM);
  // Kept here, above the step: 'Passkey added.' outlives the step it came from.
  const [status, setStatus] = useState("");
  const { t } = useTranslation("account");
  return (
    <section aria-labelledby="passkeys-heading" id="passkeys" className="billing-card security-section">
      <h2 id="passkeys-heading">{t("account.passkeys.heading")}</h2>
      <p className="muted">{t("account.passkeys.text")}</p>
      <FormAlert errors={flash ? [flash.message] : null} />
      <p className="muted" role="status">
        {/* A catalogue key, or the API's message in the page's language. */}
        {status ? t(status) : ""}
      </p>
      {passkeys.length === 0 ? <p className="muted">{t("account.passkeys.none")}</p> : <PasskeyList passkeys={passkeys} action="/account/passkeys/remove" />}
      <h3 id="add-passkey-heading">{t("account.passkeys.add.heading")}</h3>
      {add.step === "create" ? <CreatePasskey name={add.name} onAdded={setStatus} /> : <ConfirmForm state={add} />}
    </section>
  );
}

/** Who is there: the name, then the password (or emailed code) and the authentication code; the server checks them. */
function ConfirmForm({ state }: { state: Extract<PasskeyAddState, { step: "confirm" }> }) {
  const [form, fields] = useForm<PasskeyConfirmFields>(
    useFormOptions<PasskeyConfirmFields>(PASSKEY_CONFIRM_FORM, () => import("~/schemas/passkeys").then((m) => m.PasskeyConfirmSchema)),
  );
  const { t } = useTranslation("account");
  const intro =
    state.method === "password"
      ? state.twoFactor
        ? "account.passkeys.add.introPasswordTwoFactor"
        : "account.passkeys.add.introPassword"
      : state.twoFactor
        ? "account.passkeys.add.introCodeTwoFactor"
        : "account.passkeys.add.introCode";
  return (
    <>
      <p className="muted">{t(intro, { email: state.email })}</p>
      {state.method === "code" ? (
        // Its own form: sending the code must not submit (or lose) what is typed below.
        <Form method="post" action={PAGE}>
          <input type="hidden" name="intent" value="passkey-send-code" />
          <SubmitButton intent="passkey-send-code" className="button">
            {t("account.passkeys.add.sendCode")}
          </SubmitButton>
        </Form>
      ) : null}
      <Form method="post" action={PAGE} {...getFormProps(form)} aria-labelledby="add-passkey-heading" noValidate>
        <input type="hidden" name="intent" value="passkey-confirm" />
        <input type="hidden" name="method" value={state.method} />
        <input type="hidden" name="two_factor" value={state.twoFactor ? "1" : ""} />
        <FormAlert id={form.errorId} errors={form.errors} />
        <Field label={<label htmlFor={fields.name.id}>{t("account.passkeys.add.nameLabel")}</label>} errorId={fields.name.errorId} errors={fields.name.errors}>
          <input {...getInputProps(fields.name, { type: "text" })} maxLength={PASSKEY_NAME_MAX} autoComplete="off" placeholder={t("account.passkeys.add.namePlaceholder")} />
        </Field>
        {state.method === "password" ? (
          <Field label={<label htmlFor={fields.password.id}>{t("account.passkeys.add.passwordLabel")}</label>} errorId={fields.password.errorId} errors={fields.password.errors}>
            <input {...getInputProps(fields.password, { type: "password" })} autoComplete="current-password" />
          </Field>
        ) : (
          <Field
            label={<label htmlFor={fields.verification_code.id}>{t("account.passkeys.add.verificationCodeLabel")}</label>}
            errorId={fields.verification_code.errorId}
            errors={fields.verification_code.errors}
          >
            <input {...getInputProps(fields.verification_code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={6} />
          </Field>
        )}
        {state.twoFactor ? (
          <Field label={<label htmlFor={fields.code.id}>{t("account.passkeys.add.authenticationCodeLabel")}</label>} errorId={fields.code.errorId} errors={fields.code.errors}>
            <input {...getInputProps(fields.code, { type: "text" })} inputMode="numeric" autoComplete="one-time-code" maxLength={7} />
          </Field>
        ) : null}
        <SubmitButton intent="passkey-confirm" className="button button--primary">
          {t("account.passkeys.add.continue")}
        </SubmitButton>
      </Form>
    </>
  );
}

/** Confirmed: 'Create passkey' asks the browser (JavaScript); 'Cancel' goes back to the form. */
function CreatePasskey({ name, onAdded }: { name: string; onAdded: (message: string) => void }) {
  const [hydrated, setHydrated] = useState(false);
  const [supported, setSupported] = useState(true);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const revalidator = useRevalidator();
  const { t } = useTranslation("account");

  useEffect(() => {
    setHydrated(true);
    setSupported(browserHasWebAuthn());
  }, []);

  async function create() {
    setError("");
    onAdded("");
    setBusy(true);
    try {
      const options = await postJson("/account/passkeys/options");
      // The confirmation ended: the page goes back to the form, whose alert says why.
      if (options.data.restart) return revalidator.revalidate();
      if (!options.ok) return setError(String(options.data.error ?? PASSKEY_CLIENT_MESSAGES.failed));
      const { startRegistration } = await loadWebAuthn();
      let response: unknown;
      try {
        // biome-ignore lint/suspicious/noExplicitAny: the API's options are SimpleWebAuthn's optionsJSON.
        response = await startRegistration({ optionsJSON: options.data.options as any });
      } catch (failure) {
        return setError(ceremonyError(failure) ?? PASSKEY_CLIENT_MESSAGES.cancelled);
      }
      const answer = await postJson("/account/passkeys/add", { challengeId: options.data.challengeId, response });
      if (answer.data.restart) return revalidator.revalidate();
      if (!answer.ok) return setError(String(answer.data.error ?? PASSKEY_CLIENT_MESSAGES.failed));
      onAdded(String(answer.data.message ?? "account.passkeys.added"));
      revalidator.revalidate();
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <p>
        {/* The name is the customer's text: Trans puts values in after reading the string's tags, so it shows as written. */}
        <Trans
          t={t}
          i18nKey="account.passkeys.create.text"
          values={{ name }}
          components={{ strong: <strong /> }}
        />
      </p>
      <FormAlert id="create-passkey-error" errors={error ? [error] : null} />
      {!hydrated ? (
        <p className="muted">{t("account.passkeys.create.needsJavaScript")}</p>
      ) : supported ? (
        <button type="button" className="button button--primary" onClick={create} disabled={busy} aria-busy={busy || undefined}>
          {t("account.passkeys.create.button")}
        </button>
      ) : (
        <p className="muted">{t(PASSKEY_CLIENT_MESSAGES.unsupported)}</p>
      )}
      <Form method="post" action={PAGE}>
        <input type="hidden" name="intent" value="passkey-cancel" />
        <button type="submit" className="button">
          {t("account.passkeys.create.cancel")}
        </button>
      </Form>
    </>
  );
}
