/** The form name under which the security page's passkey section shows redirect-carried errors. */
export const PASSKEYS_FORM = "passkeys";
/** 'Add a passkey': the confirmation form (name, password or emailed code, authentication code). */
export const PASSKEY_CONFIRM_FORM = "passkey-confirm";
/** The passkeys listed after a password reset (/forget-password). */
export const RESET_PASSKEYS_FORM = "reset-passkeys";
/** How long the API's confirmation lets the session add a passkey (api/identity/passkeys.ts). */
export const PASSKEY_CONFIRMATION_SECONDS = 300;
/** The longest passkey name the API takes. */
export const PASSKEY_NAME_MAX = 60;
