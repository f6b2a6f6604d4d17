// The change-email forms' names (issue 22), shared by the page and its server half.

/** The home card whose button opens the dialog: its errors stay in its alert (issue 21). */
export const EMAIL_CARD = { form: "home-email" };
export const EMAIL_START_FORM = "email-start";
export const EMAIL_VERIFY_FORM = "email-verify";
