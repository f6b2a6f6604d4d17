// What /help's route and its server module share (the route module must not import the server one's values).
export const CONTACT_FORM_ID = "contact-form";
/** Sent, and a copy went to the signed-in account's own address (/help?sent=1&copy=1). */
export const SENT_MESSAGE = "Your message has been sent. We have emailed you a copy and will reply to that address.";
/** Sent without a copy: a visitor's address, or another than the account's, has proved nothing (/help?sent=1). */
export const SENT_WITHOUT_COPY = "Your message has been sent. We will reply to the email address you gave.";
export const PUBLIC_CACHE = "public, max-age=300, s-maxage=3600";
export const PRIVATE_CACHE = "private, no-store";
