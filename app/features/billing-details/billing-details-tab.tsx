import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Field } from "~/components/field";
import { FormAlert } from "~/components/form-alert";
import { SubmitButton } from "~/components/submit-button";
import type { BillingDetailsFields } from "~/schemas/billing-details";
import { BILLING_ADDRESS_MAX, BILLING_NAME_MAX, VAT_NUMBER_MAX } from "~/schemas/billing-details";
import { useFirstRefusedField, useFormOptions } from "~/utils/client-validation";
import type { BillingDetailsState } from "./billing-details.server";
import { BILLING_DETAILS_FORM, BILLING_DETAILS_TEXT, billingDetailsHref } from "./messages";

// The 'Billing details' tab (issue 35): a plain form without JavaScript ('VAT number' always shown,
// with its hint that it is for EU businesses); with JavaScript the VAT number shows only for an EU
// country. The action answers the form with every field as typed and its errors next to the fields.

export function BillingDetailsTab({ state }: { state: BillingDetailsState }) {
  const { t } = useTranslation("billing");
  const saved = state.saved;
  const [form, fields] = useForm<BillingDetailsFields>({
    ...useFormOptions<BillingDetailsFields>(BILLING_DETAILS_FORM, () =>
      import("~/schemas/billing-details").then((module) => module.BillingDetailsSchema),
    ),
    defaultValue: { country: saved?.country ?? "", name: saved?.name ?? "", address: saved?.address ?? "", vat_number: saved?.vat_number ?? "" },
  });
  const refused = useFirstRefusedField(BILLING_DETAILS_FORM);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const [country, setCountry] = useState<string>(String(fields.country.initialValue ?? saved?.country ?? ""));
  const eu = new Set(state.countries.filter((c) => c.eu).map((c) => c.code));
  const showVat = !hydrated || eu.has(country.toUpperCase());

  if (state.failed) return <p className="notice">{t(BILLING_DETAILS_TEXT.fetchFailed)}</p>;

  return (
    <Form method="post" action={billingDetailsHref(state.returnTo)} {...getFormProps(form)} noValidate className="billing-details-form">
      <p>{t(BILLING_DETAILS_TEXT.intro)}</p>
      {state.returnTo ? (
        <p>
          {t(BILLING_DETAILS_TEXT.backToCheckout)} <Link to={state.returnTo}>{t("billing.details.backToCheckoutLink")}</Link>
        </p>
      ) : null}
      <input type="hidden" name="intent" value="save-billing-details" />
      {state.returnTo ? <input type="hidden" name="return_to" value={state.returnTo} /> : null}
      <FormAlert id={form.errorId} errors={form.errors} />
      <Field label={<label htmlFor={fields.country.id}>{t("billing.details.country")}</label>} errorId={fields.country.errorId} errors={fields.country.errors}>
        <select
          {...getSelectProps(fields.country)}
          autoComplete="country"
          autoFocus={refused === "country"}
          onChange={(event) => setCountry(event.currentTarget.value)}
        >
          <option value="">{t(BILLING_DETAILS_TEXT.chooseCountry)}</option>
          {state.countries.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label={<label htmlFor={fields.name.id}>{t("billing.details.name")}</label>} errorId={fields.name.errorId} errors={fields.name.errors}>
        <input {...getInputProps(fields.name, { type: "text" })} autoComplete="name" maxLength={BILLING_NAME_MAX} autoFocus={refused === "name"} />
      </Field>
      <Field
        label={
          <label htmlFor={fields.address.id}>
            {t("billing.details.address")} <span className="muted">{t("billing.details.optional")}</span>
          </label>
        }
        errorId={fields.address.errorId}
        errors={fields.address.errors}
      >
        <textarea {...getTextareaProps(fields.address)} rows={3} autoComplete="street-address" maxLength={BILLING_ADDRESS_MAX} autoFocus={refused === "address"} />
      </Field>
      {showVat ? (
        <Field
          label={
            <label htmlFor={fields.vat_number.id}>
              {t("billing.details.vatNumber")} <span className="muted">{t("billing.details.optional")}</span>
            </label>
          }
          errorId={fields.vat_number.errorId}
          errors={fields.vat_number.errors}
        >
          <input
            {...getInputProps(fields.vat_number, { type: "text" })}
            aria-describedby={`${fields.vat_number.errorId} ${fields.vat_number.id}-hint`}
            autoComplete="off"
            spellCheck={false}
            maxLength={VAT_NUMBER_MAX}
            autoFocus={refused === "vat_number"}
          />
          <small className="field-hint" id={`${fields.vat_number.id}-hint`}>
            {t(BILLING_DETAILS_TEXT.vatHint)}
            {saved?.vat_number && saved.vat_number_status === "valid" ? ` ${t(BILLING_DETAILS_TEXT.checked)}` : null}
            {saved?.vat_number && saved.vat_number_status === "unchecked" ? ` ${t(BILLING_DETAILS_TEXT.unchecked)}` : null}
          </small>
        </Field>
      ) : null}
      <div className="form-actions">
        <SubmitButton intent="save-billing-details" className="button button--primary">
          {t("billing.details.save")}
        </SubmitButton>
      </div>
    </Form>
  );
}
