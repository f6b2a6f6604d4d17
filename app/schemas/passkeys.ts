import * as z from "zod/mini";
import { PASSKEY_NAME_MAX } from "~/features/passkeys/passkey-messages";
import { choiceField, codeField, passwordField, textField } from "./fields";
import { hasControlCharacters } from "./text";

// 'Add a passkey' on the security page (issue 30, docs/decisions/037): the passkey's name, confirmed
// by the 'Current password' or, for an account without one, the emailed 'Verification code', and by
// the 'Authentication code' when two-factor is on. `method` and `two_factor` are hidden fields the
// page renders from the account (the server decides by the account, not by them).
// The messages are catalogue keys (app/locales/*/account.json): Field shows them in the page's language.
export const PASSKEY_FORM_MESSAGES = {
  nameRequired: "account.passkeys.errors.nameRequired",
  /** Its text says PASSKEY_NAME_MAX (60) characters. */
  nameTooLong: "account.passkeys.errors.nameTooLong",
  nameControlCharacters: "account.passkeys.errors.nameControlCharacters",
  passwordRequired: "account.passkeys.errors.passwordRequired",
  verificationCodeFormat: "account.passkeys.errors.verificationCodeFormat",
  authenticationCodeFormat: "account.passkeys.errors.authenticationCodeFormat",
} as const;

export const PasskeyConfirmSchema = z
  .object({ name: textField, method: choiceField, two_factor: choiceField, password: passwordField, verification_code: codeField, code: codeField })
  .check(
    z.superRefine((value, ctx) => {
      if (!value.name) ctx.addIssue({ code: "custom", message: PASSKEY_FORM_MESSAGES.nameRequired, path: ["name"] });
      else if (value.name.length > PASSKEY_NAME_MAX) ctx.addIssue({ code: "custom", message: PASSKEY_FORM_MESSAGES.nameTooLong, path: ["name"] });
      // Here, before the browser's prompt: a name the API refused after it would leave a passkey on the device.
      else if (hasControlCharacters(value.name)) ctx.addIssue({ code: "custom", message: PASSKEY_FORM_MESSAGES.nameControlCharacters, path: ["name"] });
      if (value.method === "code") {
        if (!/^\d{6}$/.test(value.verification_code)) {
          ctx.addIssue({ code: "custom", message: PASSKEY_FORM_MESSAGES.verificationCodeFormat, path: ["verification_code"] });
        }
      } else if (!value.password) {
        ctx.addIssue({ code: "custom", message: PASSKEY_FORM_MESSAGES.passwordRequired, path: ["password"] });
      }
      if (value.two_factor === "1" && !/^\d{6}$/.test(value.code.replace(/\s/g, ""))) {
        ctx.addIssue({ code: "custom", message: PASSKEY_FORM_MESSAGES.authenticationCodeFormat, path: ["code"] });
      }
    }),
  );

export type PasskeyConfirmFields = z.input<typeof PasskeyConfirmSchema>;
