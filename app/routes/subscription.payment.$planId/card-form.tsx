import { useActionData, useNavigation, useSubmit } from "@remix-run/react";
import { type ComponentType, type FormEvent, useEffect, useRef, useState } from "react";
import { Spinner } from "~/components/spinner";

// The card entry of the checkout, loaded only once JavaScript runs (the page works without it
// through the hosted payment page). The card itself goes to the gateway from the browser — the
// sandbox's tokenizer here, Stripe.js live — and only the resulting payment method id is posted to
// the portal, with the page's idempotency key.

export type CardFormProps = {
  gateway: { mode: "live" | "sandbox"; publishable_key: string };
  idempotencyKey: string;
  totalCents: number;
  billingType: "recurring" | "single";
  /** 'Pay $107.76' */
  payLabel: string;
};

export const CARD_MESSAGES = {
  name: "Please enter the cardholder name",
  postal: "Please enter the postal code",
  card: "Please complete your card details",
  notLoaded: "Stripe is not loaded. Please refresh and try again.",
} as const;

type Errors = Partial<Record<"name" | "postal" | "card" | "form", string>>;

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

/** Posts the payment method to the action (intent pay-card), as a navigation so the page follows. */
export function usePayWithPaymentMethod(idempotencyKey: string) {
  const submit = useSubmit();
  return (paymentMethodId: string) =>
    submit({ intent: "pay-card", paymentMethodId, idempotency_key: idempotencyKey }, { method: "post" });
}

/** Busy from the click until the payment's answer has loaded: a second click does nothing. */
export function usePaying() {
  const navigation = useNavigation();
  const submitting = navigation.state !== "idle" && navigation.formData?.get("intent") === "pay-card";
  const [tokenizing, setTokenizing] = useState(false);
  return { busy: submitting || tokenizing, setTokenizing };
}

/** "12/30", "12 / 30", "1230", "12/2030" → month and four-digit year. */
export function parseExpiry(value: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!match) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}

/**
 * The sandbox's stand-in for Stripe Elements: 'Card number', 'Expiry (MM / YY)', 'CVC', 'Cardholder
 * name' and 'Postal code' fields without `name` attributes (they are never posted to the portal).
 */
function SandboxCardForm({ gateway, idempotencyKey, payLabel }: CardFormProps) {
  const [errors, setErrors] = useState<Errors>({});
  const { busy, setTokenizing } = usePaying();
  const pay = usePayWithPaymentMethod(idempotencyKey);
  const sent = useRef(false);
  const actionData = useActionData<{ form?: string; serverError?: string | null }>();
  const navigation = useNavigation();
  // A refused payment comes back as action data: the form may be sent again.
  useEffect(() => {
    if (navigation.state === "idle") sent.current = false;
  }, [navigation.state, actionData]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || sent.current) return;
    const form = event.currentTarget;
    const value = (id: string) => (form.elements.namedItem(id) as HTMLInputElement | null)?.value.trim() ?? "";
    const number = value("card-number").replace(/\s+/g, "");
    const expiry = parseExpiry(value("card-expiry"));
    const cvc = value("card-cvc");
    const next: Errors = {};
    if (!number || !expiry || !cvc) next.card = CARD_MESSAGES.card;
    if (!value("card-name")) next.name = CARD_MESSAGES.name;
    if (!value("card-postal")) next.postal = CARD_MESSAGES.postal;
    setErrors(next);
    if (Object.keys(next).length) return;

    sent.current = true;
    setTokenizing(true);
    try {
      const body = new URLSearchParams({
        type: "card",
        "card[number]": number,
        "card[exp_month]": String(expiry!.month),
        "card[exp_year]": String(expiry!.year),
        "card[cvc]": cvc,
        "billing_details[name]": value("card-name"),
        "billing_details[address][postal_code]": value("card-postal"),
      });
      const response = await fetch("/dev/stripe/v1/payment_methods", {
        method: "POST",
        headers: { Authorization: `Bearer ${gateway.publishable_key}`, "Content-Type": "application/x-www-form-urlencoded" },
        body,
      });
      const answer = (await response.json().catch(() => null)) as { id?: string; error?: { message?: string } } | null;
      if (!response.ok || !answer?.id) {
        sent.current = false;
        setErrors({ card: answer?.error?.message ?? CARD_MESSAGES.card });
        return;
      }
      pay(answer.id);
    } catch {
      sent.current = false;
      setErrors({ form: "Network error" });
    } finally {
      setTokenizing(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="card-form" aria-label="Card details">
      <p className="muted">Sandbox: use 4242 4242 4242 4242, any future expiry and any CVC.</p>
      <div className="field">
        <label htmlFor="card-number">Card number</label>
        <input id="card-number" inputMode="numeric" autoComplete="cc-number" aria-describedby="card-error" aria-invalid={errors.card ? true : undefined} />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor="card-expiry">Expiry (MM / YY)</label>
          <input id="card-expiry" inputMode="numeric" autoComplete="cc-exp" placeholder="MM / YY" aria-describedby="card-error" />
        </div>
        <div className="field">
          <label htmlFor="card-cvc">CVC</label>
          <input id="card-cvc" inputMode="numeric" autoComplete="cc-csc" aria-describedby="card-error" />
        </div>
      </div>
      <p className="field-error" id="card-error" role={errors.card ? "alert" : undefined}>
        {errors.card ?? ""}
      </p>
      <div className="field">
        <label htmlFor="card-name">Cardholder name</label>
        <input id="card-name" autoComplete="cc-name" aria-describedby="card-name-error" aria-invalid={errors.name ? true : undefined} />
        <p className="field-error" id="card-name-error">
          {errors.name ?? ""}
        </p>
      </div>
      <div className="field">
        <label htmlFor="card-postal">Postal code</label>
        <input id="card-postal" autoComplete="postal-code" aria-describedby="card-postal-error" aria-invalid={errors.postal ? true : undefined} />
        <p className="field-error" id="card-postal-error">
          {errors.postal ?? ""}
        </p>
      </div>
      {errors.form ? (
        <p className="form-error" role="alert">
          {errors.form}
        </p>
      ) : null}
      <button type="submit" className="button button--primary button--block" disabled={busy} aria-busy={busy || undefined}>
        {busy ? <Spinner /> : null}
        {payLabel}
      </button>
    </form>
  );
}
