import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import { type Stripe, loadStripe } from "@stripe/stripe-js";
import { type FormEvent, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { usePageLanguage } from "~/i18n/page-language";
import { Spinner } from "~/components/spinner";
import { CARD_MESSAGES } from "./card-messages";
import { type CardFormProps, usePayWithPaymentMethod, usePaying } from "./card-payment";

// Live card entry: Stripe's Payment Element (Stripe.js is loaded from Stripe, on this page only).
// The card becomes a PaymentMethod in the browser; the API creates the subscription (or the
// one-time payment) and confirms it; a card that needs 3-D Secure comes back with a client secret
// that the checkout's AuthenticationChallenge (authentication-dialog.tsx) runs with Stripe.js.

let stripePromise: Promise<Stripe | null> | null = null;

export function StripeCardForm(props: CardFormProps) {
  stripePromise ??= loadStripe(props.gateway.publishable_key);
  const { language } = usePageLanguage();
  const options = useMemo(
    () => ({
      // Stripe's Payment Element in the page's language (its own labels and messages).
      locale: language,
      mode: props.billingType === "recurring" ? ("subscription" as const) : ("payment" as const),
      amount: props.totalCents,
      currency: "usd",
      paymentMethodCreation: "manual" as const,
      paymentMethodTypes: ["card"],
    }),
    [props.billingType, props.totalCents, language],
  );
  return (
    <Elements stripe={stripePromise} options={options}>
      <PaymentForm {...props} />
    </Elements>
  );
}

function PaymentForm({ idempotencyKey, payLabel }: CardFormProps) {
  const { t } = useTranslation("payments");
  const stripe = useStripe();
  const elements = useElements();
  const [errors, setErrors] = useState<{ name?: string; postal?: string; card?: string }>({});
  const [ready, setReady] = useState(false);
  const { busy, setTokenizing } = usePaying();
  const pay = usePayWithPaymentMethod(idempotencyKey);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    if (!stripe || !elements) {
      setErrors({ card: CARD_MESSAGES.notLoaded });
      return;
    }
    const form = event.currentTarget;
    const value = (id: string) => (form.elements.namedItem(id) as HTMLInputElement | null)?.value.trim() ?? "";
    const next: typeof errors = {};
    if (!value("card-name")) next.name = CARD_MESSAGES.name;
    if (!value("card-postal")) next.postal = CARD_MESSAGES.postal;
    setErrors(next);
    if (Object.keys(next).length) return;
    setTokenizing(true);
    try {
      const submitted = await elements.submit();
      if (submitted.error) {
        setErrors({ card: submitted.error.message ?? CARD_MESSAGES.card });
        return;
      }
      const created = await stripe.createPaymentMethod({
        elements,
        params: { billing_details: { name: value("card-name"), address: { postal_code: value("card-postal") } } },
      });
      if (created.error || !created.paymentMethod) {
        setErrors({ card: created.error?.message ?? CARD_MESSAGES.card });
        return;
      }
      pay(created.paymentMethod.id);
    } finally {
      setTokenizing(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="card-form" aria-label={t("payments.card.formLabel")}>
      <PaymentElement onReady={() => setReady(true)} onChange={() => setErrors((e) => ({ ...e, card: undefined }))} />
      <p className="field-error" role={errors.card ? "alert" : undefined}>
        {errors.card ? t(errors.card) : ""}
      </p>
      <div className="field">
        <label htmlFor="card-name">{t("payments.card.holderName")}</label>
        <input id="card-name" autoComplete="cc-name" />
        <p className="field-error">{errors.name ? t(errors.name) : ""}</p>
      </div>
      <div className="field">
        <label htmlFor="card-postal">{t("payments.card.postalCode")}</label>
        <input id="card-postal" autoComplete="postal-code" />
        <p className="field-error">{errors.postal ? t(errors.postal) : ""}</p>
      </div>
      <button type="submit" className="button button--primary button--block" disabled={busy || !ready} aria-busy={busy || undefined}>
        {busy ? <Spinner /> : null}
        {payLabel}
      </button>
    </form>
  );
}
