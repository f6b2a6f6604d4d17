// Apart from passkey-messages.ts: in the browser these go with the passkey client only, not in a chunk of their
// own with the form names that other pages use (/login's JS budget). Catalogue keys (app/locales/*/auth.json):
// whatever shows one translates it with t (a text the API gave passes through t as it is).
export const PASSKEY_CLIENT_MESSAGES = {
  nameRequired: "auth.passkey.nameRequired",
  cancelled: "auth.passkey.cancelled",
  unsupported: "auth.passkey.unsupported",
  failed: "auth.passkey.failed",
  confirmAgain: "auth.passkey.confirmAgain",
  alreadyRegistered: "auth.passkey.alreadyRegistered",
} as const;
