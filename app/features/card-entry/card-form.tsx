import { useActionData, useNavigation } from "@remix-run/react";
import { type ComponentType, type FormEvent, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Spinner } from "~/components/spinner";
import { type CardFormProps, useLastPaymentMethod, usePayWithPaymentMethod, usePaying } from "./card-payment";
import { CARD_MESSAGES, type CardErrors } from "./card-messages";
import { SandboxCardFields, readSandboxCard, tokenizeSandboxCard } from "./sandbox-card";

// The card entry of the checkout, loaded only once JavaScript runs (the page works without it
// through the hosted payment page). The card itself goes to the gateway from the browser — the
// sandbox's tokenizer here, Stripe.js live — and only the resulting payment method id is posted to
// the portal, with the page's idempotency key.

export function CardForm(props: CardFormProps) {
  const [Live, setLive] = useState<ComponentType<CardFormProps> | null>(null);
  useEffect(() => {
    if (props.gateway.mode !== "live") return;
    let live = true;
    void import("./stripe-card-form").then((module) => {
      if (live) setLive(() => module.StripeCardForm);
    });
    return () => {
      live = false;
    };
  }, [props.gateway.mode]);
  if (props.gateway.mode === "live") {
    return Live ? <Live {...props} /> : <Spinner />;
  }
  return <SandboxCardForm {...props} />;
}

/** The sandbox's stand-in for Stripe Elements (sandbox-card.tsx), paying the checkout's plan. */
function SandboxCardForm({ gateway, idempotencyKey, payLabel }: CardFormProps) {
  const { t } = useTranslation("payments");
  const [errors, setErrors] = useState<CardErrors>({});
  const { busy, setTokenizing } = usePaying();
  const pay = usePayWithPaymentMethod(idempotencyKey);
  const lastCard = useLastPaymentMethod();
  const sent = useRef(false);
  const actionData = useActionData<{ form?: string; serverError?: string | null }>();
  const navigation = useNavigation();
  // A refused payment comes back as action data: the form may be sent again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: new action data is the event to react to, not a value read
  useEffect(() => {
    if (navigation.state === "idle") sent.current = false;
  }, [navigation.state, actionData]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || sent.current) return;
    const { card, errors: invalid } = readSandboxCard(event.currentTarget, "card");
    setErrors(invalid);
    if (!card) return;
    sent.current = true;
    // The same details again (after a refusal) are the same attempt; changed ones a new attempt.
    const details = JSON.stringify(card);
    const same = lastCard.reuse(details);
    if (same) {
      pay(same);
      return;
    }
    setTokenizing(true);
    const tokenized = await tokenizeSandboxCard(gateway.publishable_key, card);
    setTokenizing(false);
    if ("error" in tokenized) {
      sent.current = false;
      setErrors(tokenized.error === CARD_MESSAGES.network ? { form: tokenized.error } : { card: tokenized.error });
      return;
    }
    lastCard.remember(details, tokenized.id);
    pay(tokenized.id);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="card-form" aria-label={t("payments.card.formLabel")}>
      <SandboxCardFields prefix="card" errors={errors} />
      <button type="submit" className="button button--primary button--block" disabled={busy} aria-busy={busy || undefined}>
        {busy ? <Spinner /> : null}
        {payLabel}
      </button>
    </form>
  );
}
