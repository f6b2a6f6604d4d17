import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { choiceField, codeField, emailField, passwordField } from "./fields";

// 'Change email' (issue 22): 'New email' and 'Current password', or for an account without a password
// the code emailed to its current address. `method` is a hidden field the page renders from the
// account (the server decides by the account, not by it).
// The messages are catalogue keys (app/locales/*/account.json): Field shows them in the page's language.
export const EMAIL_CHANGE_FORM_MESSAGES = {
  emailRequired: "account.emailChange.errors.emailRequired",
  emailInvalid: "account.emailChange.errors.emailInvalid",
  passwordRequired: "account.emailChange.errors.passwordRequired",
  codeFormat: "account.emailChange.errors.codeFormat",
} as const;

export const EmailChangeStartSchema = z
  .object({ method: choiceField, email: emailField, password: passwordField, code: codeField })
  .check(
    z.superRefine((value, ctx) => {
      if (!value.email) ctx.addIssue({ code: "custom", message: EMAIL_CHANGE_FORM_MESSAGES.emailRequired, path: ["email"] });
      else if (!EMAIL_PATTERN.test(value.email)) ctx.addIssue({ code: "custom", message: EMAIL_CHANGE_FORM_MESSAGES.emailInvalid, path: ["email"] });
      if (value.method === "code") {
        if (!/^\d{6}$/.test(value.code)) ctx.addIssue({ code: "custom", message: EMAIL_CHANGE_FORM_MESSAGES.codeFormat, path: ["code"] });
      } else if (!value.password) {
        ctx.addIssue({ code: "custom", message: EMAIL_CHANGE_FORM_MESSAGES.passwordRequired, path: ["password"] });
      }
    }),
  );

export type EmailChangeStartFields = z.input<typeof EmailChangeStartSchema>;
