// What /help's route and its server module share (the route module must not import the server one's values).
export const CONTACT_FORM_ID = "contact-form";
export const SENT_MESSAGE = "Your message has been sent. We have emailed you a copy and will reply to that address.";
export const PUBLIC_CACHE = "public, max-age=300, s-maxage=3600";
export const PRIVATE_CACHE = "private, no-store";
