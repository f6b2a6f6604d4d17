// The card sandbox's test cards (api/sandboxes/stripe), as a customer types them.

/** Pays. */
export const GOOD_CARD = "4242 4242 4242 4242";
/** Pays too, with its own fingerprint: the money-back guarantee is once per card, so a second refund needs it. */
export const OTHER_GOOD_CARD = "4000 0566 5566 5556";
/** Declined by the bank. */
export const DECLINED_CARD = "4000 0000 0000 0002";
/** Declined for insufficient funds. */
export const NO_FUNDS_CARD = "4000 0000 0000 9995";

/** Pays (Mastercard). */
export const MASTERCARD = "5555 5555 5555 4444";
/** Pays (American Express: 15 digits, 4-digit CVC). */
export const AMEX = "3782 822463 10005";
/** Asks for 3-D Secure on-session; once set up, off-session charges need none. */
export const THREE_DS_CARD = "4000 0025 0000 3155";
/** Asks for 3-D Secure every time: off-session charges fail with authentication_required. */
export const THREE_DS_ALWAYS_CARD = "4000 0027 6000 3184";
/** Attaches and saves; every charge is declined. */
export const ATTACH_THEN_DECLINE_CARD = "4000 0000 0000 0341";

/** Pays; issued in Germany (card.country DE). */
export const GERMAN_CARD = "4000 0027 6000 0016";

/** Every test card: the e2e log scan (logs.spec.ts) looks for each with and without its spaces. */
export const TEST_CARD_NUMBERS = [
  GOOD_CARD,
  OTHER_GOOD_CARD,
  DECLINED_CARD,
  NO_FUNDS_CARD,
  MASTERCARD,
  AMEX,
  THREE_DS_CARD,
  THREE_DS_ALWAYS_CARD,
  ATTACH_THEN_DECLINE_CARD,
  GERMAN_CARD,
];

/** The number without its spaces, as an API client sends it. */
export const digitsOf = (card: string) => card.replace(/ /g, "");
