// Apart from passkey-messages.ts: in the browser these go with the passkey client only, not in a chunk of their
// own with the form names that other pages use (/login's JS budget).
export const PASSKEY_CLIENT_MESSAGES = {
  nameRequired: "Please enter a passkey name",
  cancelled: "The passkey prompt was closed or timed out. Please try again.",
  unsupported: "This browser cannot use passkeys.",
  failed: "Something went wrong with the passkey. Please try again.",
  confirmAgain: "Please confirm it is you again before adding a passkey.",
} as const;
