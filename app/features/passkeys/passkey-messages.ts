/** The form name under which the security page's passkey section shows redirect-carried errors. */
export const PASSKEYS_FORM = "passkeys";

export const PASSKEY_CLIENT_MESSAGES = {
  nameRequired: "Please enter a passkey name",
  cancelled: "The passkey prompt was closed or timed out. Please try again.",
  unsupported: "This browser cannot use passkeys.",
  failed: "Something went wrong with the passkey. Please try again.",
} as const;
