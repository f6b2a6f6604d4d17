import { taxIncluded } from "~/features/tax/tax";
import type { ApiSchemas } from "~/utils/api.server";
import { cardName } from "~/utils/cards";
import { translatorFor } from "~/i18n/i18n.server";
import type { Language } from "~/i18n/languages";
import { formattersFor } from "~/i18n/use-formatters";

// 'Next charge' of the billing page and the home's status card (docs/decisions/029): what the next
// automatic charge takes, when and from which card; or, once auto-renewal is off, the day the plan ends.
// Worded in the page's language.

export type NextChargeView =
  | { kind: "charge"; amount: string; date: string; card: string | null; tax: string | null }
  | { kind: "ends"; date: string }
  | null;

/** From the API's answer (/api/account/home or /api/subscription/active), in the page's language. */
export function nextChargeView(
  answer: {
    subscription: ApiSchemas["Subscription"] | null;
    next_charge?: ApiSchemas["NextCharge"] | null;
    ends_on?: string | null;
  },
  language: Language,
): NextChargeView {
  const { subscription } = answer;
  if (!subscription) return null;
  const { longDate, money } = formattersFor(language);
  const t = translatorFor(language);
  if (answer.next_charge) {
    const charge = answer.next_charge;
    // PayPal collects its renewals itself: no card of ours pays them.
    const payer = charge.card ? cardName(charge.card.brand, charge.card.last4, t) : subscription.subscription_by === "paypal" ? "PayPal" : null;
    // Its tax ('including VAT 19 % (Germany): $13.66', 'VAT reverse charged'; issue 35), none without.
    return { kind: "charge", amount: charge.amount, date: longDate(charge.date), card: payer, tax: taxIncluded(charge.tax, { t, money, language }) };
  }
  // Only a card or PayPal subscription has auto-renewal to be off; one-time, crypto and plans paid once with PayPal show their expiry elsewhere.
  if (answer.ends_on && subscription.auto_renewable) {
    return { kind: "ends", date: longDate(answer.ends_on) };
  }
  return null;
}
