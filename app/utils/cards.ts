// A saved card's brand as the portal names it (commerce §9: visa, master and amex have icons; any other is a card).

export type BrandKey = "visa" | "master" | "amex" | "card";

/** `t` of the page's language (react-i18next's in a component, translatorOf(request) on the server). */
type Translate = (key: string, values?: Record<string, unknown>) => string;

export function brandKey(brand: string): BrandKey {
  const b = brand.toLowerCase();
  if (b === "visa") return "visa";
  if (b === "master" || b === "mastercard") return "master";
  if (b === "amex" || b === "american express" || b === "american_express") return "amex";
  return "card";
}

/** 'Visa', 'Mastercard', 'American Express' (names in every language), else 'Card' in the page's language. */
export function brandName(brand: string, t: Translate): string {
  const key = brandKey(brand);
  return key === "card" ? t("payments.card.brand.card") : { visa: "Visa", master: "Mastercard", amex: "American Express" }[key];
}

/** 'Visa ending in 4242'. */
export function cardName(brand: string, last4: string, t: Translate): string {
  return t("payments.card.endingIn", { brand: brandName(brand, t), last4 });
}
