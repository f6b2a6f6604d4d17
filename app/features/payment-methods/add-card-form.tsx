import { CARD_MESSAGES } from "~/features/card-entry/card-messages";
import { Form, useActionData, useNavigation, useSubmit } from "@remix-run/react";
import { AuthenticationChallenge, type Challenge } from "~/features/card-entry/authentication-dialog";
import { type ComponentType, type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Spinner } from "~/components/spinner";
import type { CardErrors } from "~/features/card-entry/card-messages";
import { SandboxCardFields, readSandboxCard, tokenizeSandboxCard } from "~/features/card-entry/sandbox-card";
import { TAB_PATH } from "./messages";

// 'Add card'. Without JavaScript: a button that opens the gateway's hosted setup page. With it (sandbox):
// the inline card fields like the checkout's card form; the card goes to the sandbox's tokenizer from
// the browser and only the payment method id is posted (intent add-card). Live, Stripe's Payment
// Element in setup mode (add-card-live.tsx, loaded only then) does the same.

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
  const form =
    gateway.mode === "live" ? (
      Live ? <Live publishableKey={gateway.publishable_key} /> : <HostedSetupForm />
    ) : !hydrated ? (
      <HostedSetupForm />
    ) : (
      <SandboxAddCardForm publishableKey={gateway.publishable_key} />
    );
  return (
    <>
      {form}
      <AddCardChallenge gateway={gateway} />
    </>
  );
}

/** A card that needs 3-D Secure: the bank's challenge, then the action saves it (or says why not). */
function AddCardChallenge({ gateway }: { gateway: { mode: "live" | "sandbox"; publishable_key: string } }) {
  const actionData = useActionData<{ authentication?: Challenge & { setupIntent: string } }>();
  const idle = useNavigation().state === "idle";
  const submit = useSubmit();
  const challenge = actionData?.authentication;
  if (!idle || !challenge) return null;
  return (
    <AuthenticationChallenge
      key={challenge.setupIntent}
      challenge={challenge}
      gateway={gateway}
      onDone={() => submit({ intent: "complete-add-card", setup_intent: challenge.setupIntent }, { method: "post", action: TAB_PATH })}
    />
  );
}

function HostedSetupForm() {
  const { t } = useTranslation("billing");
  return (
    <Form method="post" action={TAB_PATH} reloadDocument className="payment-methods__hosted">
      <input type="hidden" name="intent" value="hosted-setup" />
      <p className="muted">{t("billing.paymentMethods.hostedSetup")}</p>
      <button type="submit" className="button button--primary">
        {t("billing.paymentMethods.addCard")}
      </button>
    </Form>
  );
}

function SandboxAddCardForm({ publishableKey }: { publishableKey: string }) {
  const { t } = useTranslation("billing");
  const submit = useSubmit();
  const navigation = useNavigation();
  const actionData = useActionData<{ paymentMethodsForm?: string; errors?: CardErrors }>();
  const [errors, setErrors] = useState<CardErrors>({});
  const [tokenizing, setTokenizing] = useState(false);
  const busy = tokenizing || (navigation.state !== "idle" && navigation.formData?.get("intent") === "add-card");
  // The card fields show what they are given: catalogue keys (ours, the card entry's) are translated here,
  // and a text that is no key (the API's, the tokenizer's) passes through `t` as it is.
  const shown = Object.fromEntries(
    Object.entries({ ...(actionData?.paymentMethodsForm === "add-card" ? actionData.errors : {}), ...errors }).map(([field, message]) => [field, message ? t(message) : message]),
  ) as CardErrors;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const form = event.currentTarget;
    const { card, errors: invalid } = readSandboxCard(form, "add-card");
    setErrors(invalid);
    if (!card) return;
    setTokenizing(true);
    const tokenized = await tokenizeSandboxCard(publishableKey, card);
    setTokenizing(false);
    if ("error" in tokenized) {
      setErrors(tokenized.error === CARD_MESSAGES.network ? { form: tokenized.error } : { card: tokenized.error });
      return;
    }
    const isDefault = (form.elements.namedItem("add-card-default") as HTMLInputElement | null)?.checked;
    submit(
      {
        intent: "add-card",
        payment_method_id: tokenized.id,
        billing_name: card.name,
        billing_postal: card.postal,
        ...(isDefault ? { is_default: "1" } : {}),
      },
      { method: "post", action: TAB_PATH },
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="card-form payment-methods__add" aria-label={t("billing.paymentMethods.addCard")}>
      <SandboxCardFields prefix="add-card" errors={shown} />
      <label className="checkbox">
        <input type="checkbox" id="add-card-default" /> {t("billing.paymentMethods.makeDefault")}
      </label>
      <button type="submit" className="button button--primary" disabled={busy} aria-busy={busy || undefined}>
        {busy ? <Spinner /> : null}
        {t("billing.paymentMethods.addCard")}
      </button>
    </form>
  );
}
