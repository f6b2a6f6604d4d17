import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { choiceField, emailField } from "./fields";
import { hasControlCharacters } from "./text";

// The help page's contact form: 'Email', 'Message' and a hidden topic. The API checks the same and has
// the last word (api/http/routes/support.ts); these are its messages.

export const SUPPORT_MESSAGE_MAX = 5000;

/** A message: as typed, trimmed only at its ends (its lines are the customer's). */
const messageField = z.pipe(z.optional(z.string()), z.transform((value) => value?.trim() ?? ""));

/** Catalogue keys (app/locales/<language>/pages.json): Field translates them. The catalogue says the 5000 of messageTooLong. */
export const SUPPORT_FORM_MESSAGES = {
  emailRequired: "pages.help.contact.emailRequired",
  emailInvalid: "pages.help.contact.emailInvalid",
  messageRequired: "pages.help.contact.messageRequired",
  messageTooLong: "pages.help.contact.messageTooLong",
  messageControlCharacters: "pages.help.contact.messageControlCharacters",
} as const;

export const SupportMessageSchema = z.object({ email: emailField, message: messageField, topic: choiceField }).check(
  z.superRefine((value, ctx) => {
    if (!value.email) ctx.addIssue({ code: "custom", message: SUPPORT_FORM_MESSAGES.emailRequired, path: ["email"] });
    else if (!EMAIL_PATTERN.test(value.email)) ctx.addIssue({ code: "custom", message: SUPPORT_FORM_MESSAGES.emailInvalid, path: ["email"] });
    if (!value.message) ctx.addIssue({ code: "custom", message: SUPPORT_FORM_MESSAGES.messageRequired, path: ["message"] });
    else if (value.message.length > SUPPORT_MESSAGE_MAX)
      ctx.addIssue({ code: "custom", message: SUPPORT_FORM_MESSAGES.messageTooLong, path: ["message"] });
    // Its lines and tabs are the customer's; any other control or direction character is refused.
    else if (hasControlCharacters(value.message, { multiline: true }))
      ctx.addIssue({ code: "custom", message: SUPPORT_FORM_MESSAGES.messageControlCharacters, path: ["message"] });
  }),
);

export type SupportMessageFields = z.input<typeof SupportMessageSchema>;
