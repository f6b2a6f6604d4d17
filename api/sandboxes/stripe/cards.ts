import { createHash } from "node:crypto";
import { type SandboxError, cardError } from "./errors";
import type { SbCard } from "./objects";

/*
 * The test cards (DESIGN §2) and what happens when they are used. A card number is checked once,
 * when the PaymentMethod is made, and never stored: a PaymentMethod keeps brand and last4, which
 * name the test card and so its behaviour when charged.
 */

/**
 * What charging the card does. `authenticate_once`: 3-D Secure on-session, and off-session until it has
 * been set up (authenticated once for later use); `authenticate_always`: 3-D Secure every time, so an
 * off-session charge fails with authentication_required.
 */
export type CardBehaviour = "succeeds" | "declined" | "insufficient_funds" | "authenticate_once" | "authenticate_always";

export interface TestCard {
  number: string;
  brand: "visa" | "mastercard" | "amex";
  last4: string;
  behaviour: CardBehaviour;
  /** What it does, for the hosted pages' note. */
  description: string;
  /** The issuing country (card.country); US unless said. */
  country?: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  { number: "4242424242424242", brand: "visa", last4: "4242", behaviour: "succeeds", description: "succeeds" },
  // Stripe's Visa (debit) test card: a second card that succeeds, with its own fingerprint (the
  // money-back guarantee is once per card, so a second refund needs another card).
  { number: "4000056655665556", brand: "visa", last4: "5556", behaviour: "succeeds", description: "succeeds (another card)" },
  { number: "5555555555554444", brand: "mastercard", last4: "4444", behaviour: "succeeds", description: "succeeds (Mastercard)" },
  { number: "378282246310005", brand: "amex", last4: "0005", behaviour: "succeeds", description: "succeeds (American Express, 4-digit CVC)" },
  // Stripe's German Visa: the card's country is evidence of where the customer is (tax, decision 061).
  { number: "4000002760000016", brand: "visa", last4: "0016", behaviour: "succeeds", description: "succeeds (a card issued in Germany)", country: "DE" },
  {
    number: "4000002500003155",
    brand: "visa",
    last4: "3155",
    behaviour: "authenticate_once",
    description: "asks for 3-D Secure, then not again off-session once set up",
  },
  {
    number: "4000002760003184",
    brand: "visa",
    last4: "3184",
    behaviour: "authenticate_always",
    description: "asks for 3-D Secure every time (off-session charges fail)",
  },
  { number: "4000000000000002", brand: "visa", last4: "0002", behaviour: "declined", description: "is declined" },
  // Stripe's "attaches, then fails when charged": the sandbox's declined cards all attach already.
  { number: "4000000000000341", brand: "visa", last4: "0341", behaviour: "declined", description: "is saved, then declined when charged" },
  {
    number: "4000000000009995",
    brand: "visa",
    last4: "9995",
    behaviour: "insufficient_funds",
    description: "fails for insufficient funds",
  },
];

export const SANDBOX_CARD_MESSAGE = "This is a sandbox: only test cards are accepted, such as 4242 4242 4242 4242.";

export const CARD_MESSAGES = {
  declined: "Your card was declined.",
  insufficientFunds: "Your card has insufficient funds.",
  expired: "Your card has expired.",
  incorrectCvc: "Your card's security code is incorrect.",
  authenticationRequired: "Your card was declined. This transaction requires authentication.",
  authenticationFailed: "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
  invoiceRequiresAction:
    "This payment requires additional user action before it can be completed successfully. Payment can be completed using the PaymentIntent associated with the invoice. For more details see: https://docs.stripe.com/billing/subscriptions/overview#requires-action",
  incompleteNumber: "Your card number is incomplete.",
  incompleteExpiry: "Your card's expiration date is incomplete.",
  invalidMonth: "Your card's expiration month is invalid.",
  invalidYear: "Your card's expiration year is invalid.",
} as const;

/** "4242 4242 4242 4242" grouped for display. */
export function groupedNumber(card: TestCard): string {
  // American Express is grouped 4-6-5, as printed on the card.
  if (card.number.length === 15) return `${card.number.slice(0, 4)} ${card.number.slice(4, 10)} ${card.number.slice(10)}`;
  return card.number.replace(/(\d{4})(?=\d)/g, "$1 ");
}

export interface CardInput {
  number?: string | null;
  exp_month?: number | null;
  exp_year?: number | null;
  cvc?: string | null;
}

export interface CheckedCard {
  test: TestCard;
  exp_month: number;
  exp_year: number;
  cvcGiven: boolean;
}

/** Two-digit years are this century's. */
export function fullYear(year: number): number {
  return year < 100 ? 2000 + year : year;
}

export function isExpired(expMonth: number, expYear: number, now: Date): boolean {
  const nowYear = now.getUTCFullYear();
  const nowMonth = now.getUTCMonth() + 1;
  return expYear < nowYear || (expYear === nowYear && expMonth < nowMonth);
}

/** Checks a card as Stripe does when a PaymentMethod is made; throws the card_error Stripe would answer. */
export function checkCard(input: CardInput, now: Date): CheckedCard {
  const number = (input.number ?? "").replace(/[\s-]/g, "");
  if (!number) throw cardError("incomplete_number", CARD_MESSAGES.incompleteNumber, { param: "number" });
  const test = TEST_CARDS.find((card) => card.number === number);
  if (!test) throw cardError("incorrect_number", SANDBOX_CARD_MESSAGE, { param: "number" });
  if (input.exp_month == null || input.exp_year == null) {
    throw cardError("incomplete_expiry", CARD_MESSAGES.incompleteExpiry, { param: input.exp_month == null ? "exp_month" : "exp_year" });
  }
  const month = input.exp_month;
  const year = fullYear(input.exp_year);
  if (!Number.isInteger(month) || month < 1 || month > 12) {
    throw cardError("invalid_expiry_month", CARD_MESSAGES.invalidMonth, { param: "exp_month" });
  }
  if (!Number.isInteger(year) || year > now.getUTCFullYear() + 50) {
    throw cardError("invalid_expiry_year", CARD_MESSAGES.invalidYear, { param: "exp_year" });
  }
  if (isExpired(month, year, now)) throw cardError("expired_card", CARD_MESSAGES.expired, { param: "exp_year" });
  const cvc = input.cvc ?? "";
  if (cvc !== "" && !/^\d{3,4}$/.test(cvc)) throw cardError("incorrect_cvc", CARD_MESSAGES.incorrectCvc, { param: "cvc" });
  return { test, exp_month: month, exp_year: year, cvcGiven: cvc !== "" };
}

/** The PaymentMethod's `card` for a checked card. */
export function cardObject(checked: CheckedCard, postalCodeGiven: boolean): SbCard {
  return {
    brand: checked.test.brand,
    display_brand: checked.test.brand,
    last4: checked.test.last4,
    exp_month: checked.exp_month,
    exp_year: checked.exp_year,
    funding: "credit",
    country: checked.test.country ?? "US",
    // Stable per test card, like Stripe's per card number (the product may deduplicate saved cards on it).
    fingerprint: createHash("sha256").update(`stripe-sandbox:${checked.test.number}`).digest("base64url").slice(0, 16),
    checks: {
      address_line1_check: null,
      address_postal_code_check: postalCodeGiven ? "pass" : null,
      cvc_check: checked.cvcGiven ? "pass" : null,
    },
    networks: { available: [checked.test.brand], preferred: null },
    three_d_secure_usage: { supported: true },
    wallet: null,
    generated_from: null,
    regulated_status: "unregulated",
  };
}

export interface Decline {
  code: "card_declined" | "expired_card";
  decline_code: string;
  message: string;
}

export function testCardOf(card: Pick<SbCard, "brand" | "last4">): TestCard | undefined {
  return TEST_CARDS.find((t) => t.brand === card.brand && t.last4 === card.last4);
}

/** How the card asks for 3-D Secure: never, until set up (then not off-session), or on every charge. */
export function authenticationOf(card: Pick<SbCard, "brand" | "last4">): "never" | "once" | "always" {
  const behaviour = testCardOf(card)?.behaviour;
  return behaviour === "authenticate_once" ? "once" : behaviour === "authenticate_always" ? "always" : "never";
}

/** Why charging this card at `now` fails, or null when it succeeds (3-D Secure is decided before: authenticationOf). */
export function declineFor(card: Pick<SbCard, "brand" | "last4" | "exp_month" | "exp_year">, now: Date): Decline | null {
  if (isExpired(card.exp_month, card.exp_year, now)) {
    return { code: "expired_card", decline_code: "expired_card", message: CARD_MESSAGES.expired };
  }
  switch (testCardOf(card)?.behaviour ?? "declined") {
    case "succeeds":
    case "authenticate_once":
    case "authenticate_always":
      return null;
    case "insufficient_funds":
      return { code: "card_declined", decline_code: "insufficient_funds", message: CARD_MESSAGES.insufficientFunds };
    default:
      return { code: "card_declined", decline_code: "generic_decline", message: CARD_MESSAGES.declined };
  }
}

export function declineError(decline: Decline, extra: Parameters<typeof cardError>[2] = {}): SandboxError {
  return cardError(decline.code, decline.message, { decline_code: decline.decline_code, ...extra });
}

/** "MM / YY", "MM/YY", "MM/YYYY", "MMYY" → month and year; null when it is none of these. */
export function parseExpiry(text: string): { month: number; year: number } | null {
  const compact = text.replace(/\s/g, "");
  const match = /^(\d{1,2})\/(\d{2}|\d{4})$/.exec(compact) ?? /^(\d{2})(\d{2}|\d{4})$/.exec(compact);
  if (!match) return null;
  return { month: Number(match[1]), year: fullYear(Number(match[2])) };
}
