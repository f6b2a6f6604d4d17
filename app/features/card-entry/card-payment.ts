import { useNavigation, useSubmit } from "@remix-run/react";
import { useRef, useState } from "react";

// What the checkout's two card forms share (the sandbox's in card-form.tsx, Stripe's in
// stripe-card-form.tsx): their props and how they post the payment method. Its own module so the
// lazily loaded Stripe form does not import the sandbox form that loads it.

export type CardFormProps = {
  gateway: { mode: "live" | "sandbox"; publishable_key: string };
  idempotencyKey: string;
  totalCents: number;
  billingType: "recurring" | "single";
  /** 'Pay $107.76' */
  payLabel: string;
};

/** Posts the payment method to the action (intent pay-card), as a navigation so the page follows. */
export function usePayWithPaymentMethod(idempotencyKey: string) {
  const submit = useSubmit();
  return (paymentMethodId: string) =>
    // js: the action answers a 3-D Secure challenge for this page to show, instead of redirecting to it.
    submit({ intent: "pay-card", paymentMethodId, idempotency_key: idempotencyKey, js: "1" }, { method: "post" });
}

/**
 * The payment method made from the card details last sent, kept while the details stay the same: the
 * same details pressed again post the same payment method, which the checkout's action turns into the
 * same idempotency key (the API answers as before and charges at most once), while changed details
 * make a new payment method, a new attempt. Never posted or stored anywhere else.
 */
export function useLastPaymentMethod() {
  const last = useRef<{ details: string; id: string } | null>(null);
  return {
    /** The payment method of these details, if they are the ones last sent. */
    reuse: (details: string) => (last.current?.details === details ? last.current.id : null),
    remember: (details: string, id: string) => {
      last.current = { details, id };
    },
  };
}

/** Busy from the click until the payment's answer has loaded: a second click does nothing. */
export function usePaying() {
  const navigation = useNavigation();
  const submitting = navigation.state !== "idle" && navigation.formData?.get("intent") === "pay-card";
  const [tokenizing, setTokenizing] = useState(false);
  return { busy: submitting || tokenizing, setTokenizing };
}
