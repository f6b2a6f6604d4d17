// A saved card's brand as the portal names it (commerce §9: visa, master and amex have icons; any other is a card).

export type BrandKey = "visa" | "master" | "amex" | "card";

/** `t` of the page's language (react-i18next's in a component, translatorOf(request) on the server). */
type Translate = (key: string, values?: Record<string, unknown>) => string;

/** Without a `t`, the catalogue's English (the callers not yet in the customer's language, issue 36). */
const ENGLISH: Record<string, string> = {
  "payments.card.brand.card": "Card",
  "payments.card.endingIn": "{{brand}} ending in {{last4}}",
};
const english: Translate = (key, values = {}) =>
  (ENGLISH[key] ?? key).replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name] ?? ""));

export function brandKey(brand: string): BrandKey {
  const b = brand.toLowerCase();
  if (b === "visa") return "visa";
  if (b === "master" || b === "mastercard") return "master";
  if (b === "amex" || b === "american express" || b === "american_express") return "amex";
  return "card";
}

/** 'Visa', 'Mastercard', 'American Express' (names in every language), else 'Card' in the page's language. */
export function brandName(brand: string, t: Translate = english): string {
  const key = brandKey(brand);
  return key === "card" ? t("payments.card.brand.card") : { visa: "Visa", master: "Mastercard", amex: "American Express" }[key];
}

/** 'Visa ending in 4242'. */
export function cardName(brand: string, last4: string, t: Translate = english): string {
  return t("payments.card.endingIn", { brand: brandName(brand, t), last4 });
}
