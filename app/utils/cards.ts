// A saved card's brand as the portal names it (commerce §9: visa, master and amex have icons; any other is a card).

export type BrandKey = "visa" | "master" | "amex" | "card";

export function brandKey(brand: string): BrandKey {
  const b = brand.toLowerCase();
  if (b === "visa") return "visa";
  if (b === "master" || b === "mastercard") return "master";
  if (b === "amex" || b === "american express" || b === "american_express") return "amex";
  return "card";
}

export function brandName(brand: string): string {
  return { visa: "Visa", master: "Mastercard", amex: "American Express", card: "Card" }[brandKey(brand)];
}

/** 'Visa ending in 4242'. */
export function cardName(brand: string, last4: string): string {
  return `${brandName(brand)} ending in ${last4}`;
}
