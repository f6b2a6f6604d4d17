import { Form, useActionData, useNavigation, useSubmit } from "@remix-run/react";
import { type ComponentType, type FormEvent, useEffect, useState } from "react";
import { Spinner } from "~/components/spinner";
import { CARD_MESSAGES, parseExpiry } from "~/routes/subscription.payment.$planId/card-form";
import { TAB_PATH } from "./messages";

// 'Add card'. Without JavaScript: a button that opens the gateway's hosted setup page. With it (sandbox):
// the inline card fields like the checkout's card form; the card goes to the sandbox's tokenizer from
// the browser and only the payment method id is posted (intent add-card). Live, Stripe's Payment
// Element in setup mode (add-card-live.tsx, loaded only then) does the same.

type Errors = Partial<Record<"name" | "postal" | "card" | "form", string>>;

export function AddCardForm({ gateway }: { gateway: { mode: "live" | "sandbox"; publishable_key: string } }) {
  const [hydrated, setHydrated] = useState(false);
  const [Live, setLive] = useState<ComponentType<{ publishableKey: string }> | null>(null);
  useEffect(() => setHydrated(true), []);
  useEffect(() => {
    if (gateway.mode !== "live") return;
    let current = true;
    void import("./add-card-live").then((module) => {
      if (current) setLive(() => module.LiveAddCardForm);
    });
    return () => {
      current = false;
    };
  }, [gateway.mode]);
  if (gateway.mode === "live") return Live ? <Live publishableKey={gateway.publishable_key} /> : <HostedSetupForm />;
  if (!hydrated) return <HostedSetupForm />;
  return <SandboxAddCardForm publishableKey={gateway.publishable_key} />;
}

function HostedSetupForm() {
  return (
    <Form method="post" action={TAB_PATH} reloadDocument className="payment-methods__hosted">
      <input type="hidden" name="intent" value="hosted-setup" />
      <p className="muted">You will enter the card on our payment provider's secure page.</p>
      <button type="submit" className="button button--primary">
        Add card
      </button>
    </Form>
  );
}

function SandboxAddCardForm({ publishableKey }: { publishableKey: string }) {
  const submit = useSubmit();
  const navigation = useNavigation();
  const actionData = useActionData<{ paymentMethodsForm?: string; errors?: Errors }>();
  const [errors, setErrors] = useState<Errors>({});
  const [tokenizing, setTokenizing] = useState(false);
  const [name, setName] = useState("");
  const [postal, setPostal] = useState("");
  const busy = tokenizing || (navigation.state !== "idle" && navigation.formData?.get("intent") === "add-card");
  const shown: Errors = { ...(actionData?.paymentMethodsForm === "add-card" ? actionData.errors : {}), ...errors };

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const form = event.currentTarget;
    const value = (id: string) => (form.elements.namedItem(id) as HTMLInputElement | null)?.value.trim() ?? "";
    const number = value("add-card-number").replace(/\s+/g, "");
    const expiry = parseExpiry(value("add-card-expiry"));
    const cvc = value("add-card-cvc");
    const next: Errors = {};
    if (!number || !expiry || !cvc) next.card = CARD_MESSAGES.card;
    if (!name.trim()) next.name = CARD_MESSAGES.name;
    if (!postal.trim()) next.postal = CARD_MESSAGES.postal;
    setErrors(next);
    if (Object.keys(next).length) return;
    setTokenizing(true);
    try {
      const response = await fetch("/dev/stripe/v1/payment_methods", {
        method: "POST",
        headers: { Authorization: `Bearer ${publishableKey}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          type: "card",
          "card[number]": number,
          "card[exp_month]": String(expiry!.month),
          "card[exp_year]": String(expiry!.year),
          "card[cvc]": cvc,
          "billing_details[name]": name.trim(),
          "billing_details[address][postal_code]": postal.trim(),
        }),
      });
      const answer = (await response.json().catch(() => null)) as { id?: string; error?: { message?: string } } | null;
      if (!response.ok || !answer?.id) {
        setErrors({ card: answer?.error?.message ?? CARD_MESSAGES.card });
        return;
      }
      const isDefault = (form.elements.namedItem("add-card-default") as HTMLInputElement | null)?.checked;
      submit(
        {
          intent: "add-card",
          payment_method_id: answer.id,
          billing_name: name.trim(),
          billing_postal: postal.trim(),
          ...(isDefault ? { is_default: "1" } : {}),
        },
        { method: "post", action: TAB_PATH },
      );
    } catch {
      setErrors({ form: "Network error" });
    } finally {
      setTokenizing(false);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="card-form payment-methods__add" aria-label="Add card">
      <p className="muted">Sandbox: use 4242 4242 4242 4242, any future expiry and any CVC.</p>
      <div className="field">
        <label htmlFor="add-card-number">Card number</label>
        <input id="add-card-number" inputMode="numeric" autoComplete="cc-number" aria-describedby="add-card-error" aria-invalid={shown.card ? true : undefined} />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor="add-card-expiry">Expiry (MM / YY)</label>
          <input id="add-card-expiry" inputMode="numeric" autoComplete="cc-exp" placeholder="MM / YY" aria-describedby="add-card-error" />
        </div>
        <div className="field">
          <label htmlFor="add-card-cvc">CVC</label>
          <input id="add-card-cvc" inputMode="numeric" autoComplete="cc-csc" aria-describedby="add-card-error" />
        </div>
      </div>
      <p className="field-error" id="add-card-error" role={shown.card ? "alert" : undefined}>
        {shown.card ?? ""}
      </p>
      <div className="field">
        <label htmlFor="add-card-name">Cardholder name</label>
        <input id="add-card-name" autoComplete="cc-name" value={name} onChange={(e) => setName(e.target.value)} aria-describedby="add-card-name-error" aria-invalid={shown.name ? true : undefined} />
        <p className="field-error" id="add-card-name-error">
          {shown.name ?? ""}
        </p>
      </div>
      <div className="field">
        <label htmlFor="add-card-postal">Postal code</label>
        <input id="add-card-postal" autoComplete="postal-code" value={postal} onChange={(e) => setPostal(e.target.value)} aria-describedby="add-card-postal-error" aria-invalid={shown.postal ? true : undefined} />
        <p className="field-error" id="add-card-postal-error">
          {shown.postal ?? ""}
        </p>
      </div>
      <label className="checkbox">
        <input type="checkbox" id="add-card-default" /> Make this my default card
      </label>
      {shown.form ? (
        <p className="form-error" role="alert">
          {shown.form}
        </p>
      ) : null}
      <button type="submit" className="button button--primary" disabled={busy} aria-busy={busy || undefined}>
        {busy ? <Spinner /> : null}
        Add card
      </button>
    </form>
  );
}
