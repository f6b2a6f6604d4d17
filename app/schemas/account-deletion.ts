import * as z from "zod/mini";
import { choiceField, codeField, passwordField } from "./fields";

// 'Delete my account': the password, or for an account without one the emailed code, and with
// two-factor on the 'Authentication code' (an app code or a recovery code). `method` and `two_factor`
// are hidden fields the page renders from the API's answer (the API decides by the account, not by them).
// The messages are catalogue keys (app/locales/*/account.json): Field shows them in the page's language.
const DELETE_PASSWORD_REQUIRED = "account.delete.errors.passwordRequired";
const DELETE_CODE_FORMAT = "account.delete.errors.codeFormat";
export const AUTHENTICATION_CODE_REQUIRED = "account.delete.errors.authenticationCodeRequired";

export const DeleteAccountSchema = z
  .object({ method: choiceField, two_factor: choiceField, password: passwordField, code: codeField, authentication_code: codeField })
  .check(
    z.superRefine((value, ctx) => {
      if (value.method === "code") {
        if (!/^\d{6}$/.test(value.code?.trim() ?? "")) ctx.addIssue({ code: "custom", message: DELETE_CODE_FORMAT, path: ["code"] });
      } else if (!value.password) {
        ctx.addIssue({ code: "custom", message: DELETE_PASSWORD_REQUIRED, path: ["password"] });
      }
      // Digits are an app code (six of them); anything else is a recovery code, which the API judges.
      const second = value.authentication_code.replace(/\s/g, "");
      if (value.two_factor === "1" && (!second || (/^\d+$/.test(second) && second.length !== 6))) {
        ctx.addIssue({ code: "custom", message: AUTHENTICATION_CODE_REQUIRED, path: ["authentication_code"] });
      }
    }),
  );

export type DeleteAccountFields = z.input<typeof DeleteAccountSchema>;
