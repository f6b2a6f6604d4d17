import { taxLabel } from "~/features/tax/tax";
import type { ApiSchemas } from "~/utils/api.server";
import { brandKey, brandName } from "~/utils/cards";
import type { Tax } from "~/features/tax/tax";
import { translatorFor } from "~/i18n/i18n.server";
import { DEFAULT_LANGUAGE, type Language } from "~/i18n/languages";
import { formattersFor } from "~/i18n/use-formatters";

// 'Next charge' of the billing page and the home's status card (docs/decisions/029): what the next
// automatic charge takes, when and from which card; or, once auto-renewal is off, the day the plan ends.
// Worded in the page's language (`language`; English when a caller does not say).

export type NextChargeView =
  | { kind: "charge"; amount: string; date: string; card: string | null; tax: string | null }
  | { kind: "ends"; date: string }
  | null;

/** 'Visa ending in 4242' in a language (a brand without a name of its own is a 'Card'). */
export function cardNameIn(brand: string, last4: string, language: Language): string {
  const t = translatorFor(language);
  const name = brandKey(brand) === "card" ? t("billing.card.genericBrand") : brandName(brand);
  return t("billing.card.endingIn", { brand: name, last4 });
}

/**
 * What an amount that includes tax says of it, in a language: 'including VAT 19 % (Germany): $13.66', or
 * the API's label alone ('VAT reverse charged'; the API words its labels in the page's language); null
 * without tax (the amount alone, as before).
 */
export function taxIncludedIn(tax: Tax | null | undefined, language: Language): string | null {
  if (!tax) return null;
  const t = translatorFor(language);
  const label = taxLabel(tax, t, language);
  if (tax.reverse_charge) return label;
  return t("billing.tax.including", { label, amount: formattersFor(language).money(tax.amount_cents) });
}

/** From the API's answer (/api/account/home or /api/subscription/active), in the page's language. */
export function nextChargeView(
  answer: {
    subscription: ApiSchemas["Subscription"] | null;
    next_charge?: ApiSchemas["NextCharge"] | null;
    ends_on?: string | null;
  },
  language: Language = DEFAULT_LANGUAGE,
): NextChargeView {
  const { subscription } = answer;
  if (!subscription) return null;
  const { longDate } = formattersFor(language);
  if (answer.next_charge) {
    const charge = answer.next_charge;
    // PayPal collects its renewals itself: no card of ours pays them.
    const payer = charge.card ? cardNameIn(charge.card.brand, charge.card.last4, language) : subscription.subscription_by === "paypal" ? "PayPal" : null;
    // Its tax ('including VAT 19 % (Germany): $13.66', 'VAT reverse charged'; issue 35), none without.
    return { kind: "charge", amount: charge.amount, date: longDate(charge.date), card: payer, tax: taxIncludedIn(charge.tax, language) };
  }
  // Only a card or PayPal subscription has auto-renewal to be off; one-time, crypto and plans paid once with PayPal show their expiry elsewhere.
  if (answer.ends_on && subscription.auto_renewable) {
    return { kind: "ends", date: longDate(answer.ends_on) };
  }
  return null;
}
