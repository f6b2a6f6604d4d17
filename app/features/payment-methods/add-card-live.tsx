import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { type Stripe, loadStripe } from "@stripe/stripe-js";
import { useNavigation, useSubmit } from "@remix-run/react";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Spinner } from "~/components/spinner";
import { CARD_MESSAGES } from "~/features/card-entry/card-messages";
import { usePageLanguage } from "~/i18n/page-language";
import { TAB_PATH } from "./messages";

// Live 'Add card': Stripe's Payment Element in setup mode (Stripe.js, loaded on this tab only). The
// card becomes a PaymentMethod in the browser; the API attaches it with a confirmed SetupIntent.

let stripePromise: Promise<Stripe | null> | null = null;

export function LiveAddCardForm({ publishableKey }: { publishableKey: string }) {
  stripePromise ??= loadStripe(publishableKey);
  // Stripe's fields and their messages in the page's language.
  const { language } = usePageLanguage();
  return (
    <Elements
      stripe={stripePromise}
      options={{ mode: "setup", currency: "usd", paymentMethodCreation: "manual", locale: language }}
    >
      <Form />
    </Elements>
  );
}

type Errors = Partial<Record<"name" | "postal" | "card", string>>;

function Form() {
  const { t } = useTranslation("billing");
  const stripe = useStripe();
  const elements = useElements();
  const submit = useSubmit();
  const navigation = useNavigation();
  const [ready, setReady] = useState(false);
  const [working, setWorking] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [name, setName] = useState("");
  const [postal, setPostal] = useState("");
  const busy = working || (navigation.state !== "idle" && navigation.formData?.get("intent") === "add-card");

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (!stripe || !elements) return setErrors({ card: CARD_MESSAGES.notLoaded });
    const next: Errors = {};
    if (!name.trim()) next.name = CARD_MESSAGES.name;
    if (!postal.trim()) next.postal = CARD_MESSAGES.postal;
    setErrors(next);
    if (Object.keys(next).length) return;
    setWorking(true);
    try {
      const submitted = await elements.submit();
      if (submitted.error) return setErrors({ card: submitted.error.message ?? CARD_MESSAGES.card });
      const created = await stripe.createPaymentMethod({
        elements,
        params: { billing_details: { name: name.trim(), address: { postal_code: postal.trim() } } },
      });
      if (created.error || !created.paymentMethod) return setErrors({ card: created.error?.message ?? CARD_MESSAGES.card });
      const isDefault = (event.currentTarget.elements.namedItem("add-card-default") as HTMLInputElement | null)?.checked;
      submit(
        { intent: "add-card", payment_method_id: created.paymentMethod.id, billing_name: name.trim(), billing_postal: postal.trim(), ...(isDefault ? { is_default: "1" } : {}) },
        { method: "post", action: TAB_PATH },
      );
    } finally {
      setWorking(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="card-form payment-methods__add" aria-label={t("billing.paymentMethods.addCard")}>
      <PaymentElement onReady={() => setReady(true)} onChange={() => setErrors((e) => ({ ...e, card: undefined }))} />
      <p className="field-error" role={errors.card ? "alert" : undefined}>
        {/* The card entry's messages are catalogue keys; Stripe's come in the page's language. */}
        {errors.card ? t(errors.card) : ""}
      </p>
      <div className="field">
        <label htmlFor="add-card-name">{t("billing.paymentMethods.cardholderName")}</label>
        <input id="add-card-name" autoComplete="cc-name" value={name} onChange={(e) => setName(e.target.value)} />
        <p className="field-error">{errors.name ? t(errors.name) : ""}</p>
      </div>
      <div className="field">
        <label htmlFor="add-card-postal">{t("billing.paymentMethods.postalCode")}</label>
        <input id="add-card-postal" autoComplete="postal-code" value={postal} onChange={(e) => setPostal(e.target.value)} />
        <p className="field-error">{errors.postal ? t(errors.postal) : ""}</p>
      </div>
      <label className="checkbox">
        <input type="checkbox" id="add-card-default" /> {t("billing.paymentMethods.makeDefault")}
      </label>
      {/* commerce §5: not before the provider is ready. */}
      <button type="submit" className="button button--primary" disabled={busy || !ready} aria-busy={busy || undefined}>
        {busy ? <Spinner /> : null}
        {t("billing.paymentMethods.addCard")}
      </button>
    </form>
  );
}
