// What /help's route and its server module share (the route module must not import the server one's values).
export const CONTACT_FORM_ID = "contact-form";
/** Sent, and a copy went to the signed-in account's own address (/help?sent=1&copy=1). A catalogue key. */
export const SENT_MESSAGE = "pages.help.contact.sentWithCopy";
/** Sent without a copy: a visitor's address, or another than the account's, has proved nothing (/help?sent=1). A catalogue key. */
export const SENT_WITHOUT_COPY = "pages.help.contact.sent";
export const PUBLIC_CACHE = "public, max-age=300, s-maxage=3600";
export const PRIVATE_CACHE = "private, no-store";
