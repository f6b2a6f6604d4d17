// The card sandbox's stand-in for Stripe Elements (DESIGN §2), shared by the checkout's card form and
// billing's 'Add card': the fields 'Card number', 'Expiry (MM / YY)', 'CVC', 'Cardholder name' and
// 'Postal code' (no `name` attributes: they are never posted to the portal), their §5 checks, and the
// sandbox's tokenizer, which turns the card into a payment method in the browser.

import { useTranslation } from "react-i18next";
import { CARD_MESSAGES, type CardErrors, parseExpiry } from "./card-messages";

export type SandboxCard = { number: string; month: number; year: number; cvc: string; name: string; postal: string };

/** Reads and checks the fields of `SandboxCardFields` (ids start with `prefix`). */
export function readSandboxCard(form: HTMLFormElement, prefix: string): { card: SandboxCard | null; errors: CardErrors } {
  const value = (id: string) => (form.elements.namedItem(`${prefix}-${id}`) as HTMLInputElement | null)?.value.trim() ?? "";
  const number = value("number").replace(/\s+/g, "");
  const expiry = parseExpiry(value("expiry"));
  const cvc = value("cvc");
  const errors: CardErrors = {};
  if (!number || !expiry || !cvc) errors.card = CARD_MESSAGES.card;
  if (!value("name")) errors.name = CARD_MESSAGES.name;
  if (!value("postal")) errors.postal = CARD_MESSAGES.postal;
  if (Object.keys(errors).length || !expiry) return { card: null, errors };
  return { card: { number, month: expiry.month, year: expiry.year, cvc, name: value("name"), postal: value("postal") }, errors };
}

/** The sandbox's tokenizer: the payment method's id, or the gateway's message (a catalogue key when the portal words it). */
export async function tokenizeSandboxCard(publishableKey: string, card: SandboxCard): Promise<{ id: string } | { error: string }> {
  try {
    const response = await fetch("/dev/stripe/v1/payment_methods", {
      method: "POST",
      headers: { Authorization: `Bearer ${publishableKey}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        type: "card",
        "card[number]": card.number,
        "card[exp_month]": String(card.month),
        "card[exp_year]": String(card.year),
        "card[cvc]": card.cvc,
        "billing_details[name]": card.name,
        "billing_details[address][postal_code]": card.postal,
      }),
    });
    const answer = (await response.json().catch(() => null)) as { id?: string; error?: { message?: string } } | null;
    return response.ok && answer?.id ? { id: answer.id } : { error: answer?.error?.message ?? CARD_MESSAGES.card };
  } catch {
    return { error: CARD_MESSAGES.network };
  }
}

/** The sandbox card fields, with their errors next to them. */
export function SandboxCardFields({ prefix, errors }: { prefix: string; errors: CardErrors }) {
  const { t } = useTranslation("payments");
  const id = (field: string) => `${prefix}-${field}`;
  // The errors are catalogue keys, or the gateway's own message (which passes through `t` as it is).
  const shown = (message: string | undefined) => (message ? t(message) : "");
  return (
    <>
      <p className="muted">{t("payments.card.sandboxHint")}</p>
      <div className="field">
        <label htmlFor={id("number")}>{t("payments.card.number")}</label>
        <input id={id("number")} inputMode="numeric" autoComplete="cc-number" aria-describedby={id("error")} aria-invalid={errors.card ? true : undefined} />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor={id("expiry")}>{t("payments.card.expiry")}</label>
          <input id={id("expiry")} inputMode="numeric" autoComplete="cc-exp" placeholder={t("payments.card.expiryPlaceholder")} aria-describedby={id("error")} />
        </div>
        <div className="field">
          <label htmlFor={id("cvc")}>{t("payments.card.cvc")}</label>
          <input id={id("cvc")} inputMode="numeric" autoComplete="cc-csc" aria-describedby={id("error")} />
        </div>
      </div>
      <p className="field-error" id={id("error")} role={errors.card ? "alert" : undefined}>
        {shown(errors.card)}
      </p>
      <div className="field">
        <label htmlFor={id("name")}>{t("payments.card.holderName")}</label>
        <input id={id("name")} autoComplete="cc-name" aria-describedby={id("name-error")} aria-invalid={errors.name ? true : undefined} />
        <p className="field-error" id={id("name-error")}>
          {shown(errors.name)}
        </p>
      </div>
      <div className="field">
        <label htmlFor={id("postal")}>{t("payments.card.postalCode")}</label>
        <input id={id("postal")} autoComplete="postal-code" aria-describedby={id("postal-error")} aria-invalid={errors.postal ? true : undefined} />
        <p className="field-error" id={id("postal-error")}>
          {shown(errors.postal)}
        </p>
      </div>
      {errors.form ? (
        <p className="form-error" role="alert">
          {t(errors.form)}
        </p>
      ) : null}
    </>
  );
}
