// The card entry's messages (commerce §5) and the expiry parser, shared by the sandbox's card fields and
// Stripe's Payment Element forms (checkout and 'Add card'): the live forms need them without the sandbox's code.

// Catalogue keys (app/locales/<language>/payments.json): whoever shows one translates it with `t`.
export const CARD_MESSAGES = {
  name: "payments.card.error.name",
  postal: "payments.card.error.postal",
  card: "payments.card.error.card",
  notLoaded: "payments.card.error.notLoaded",
  /** The sandbox tokenizer could not be reached. */
  network: "payments.error.network",
} as const;

export type CardErrors = Partial<Record<"name" | "postal" | "card" | "form", string>>;

/** "12/30", "12 / 30", "1230", "12/2030" → month and four-digit year. */
export function parseExpiry(value: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!match) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}
