import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Field } from "~/components/field";
import { SubmitButton } from "~/components/submit-button";
import { useFirstRefusedField, useServerAnswer } from "~/utils/client-validation";

const FORM_ID = "coupon";

/**
 * 'Got a coupon?': one field, checked by the server (CouponSchema in the action, then the API) whose
 * message comes back next to it, with and without JavaScript. Only the server can tell whether a code
 * exists, so a browser-side check would save a round trip only for an empty field; without conform's
 * form state the signed-in checkout renders some 0.1 ms faster (issue 31, `npm run bench`).
 */
export function CouponForm() {
  const { t } = useTranslation("checkout");
  const answer = useServerAnswer(FORM_ID);
  const errors = answer.errors.code ?? undefined;
  const posted = answer.values.code;
  const refused = useFirstRefusedField(FORM_ID);
  const invalid = Boolean(errors?.length);
  return (
    <Form method="post" id={FORM_ID} noValidate className="coupon-form">
      <input type="hidden" name="intent" value="coupon" />
      <Field label={<label htmlFor="coupon-code">{t("checkout.coupon.label")}</label>} errorId="coupon-code-error" errors={errors}>
        <input
          id="coupon-code"
          name="code"
          type="text"
          autoComplete="off"
          defaultValue={typeof posted === "string" ? posted : undefined}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? "coupon-code-error" : undefined}
          autoFocus={refused === "code"}
        />
      </Field>
      <SubmitButton intent="coupon" className="button">
        {t("checkout.coupon.apply")}
      </SubmitButton>
    </Form>
  );
}
