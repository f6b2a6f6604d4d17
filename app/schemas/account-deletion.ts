import * as z from "zod/mini";
import { choiceField, codeField, passwordField } from "./fields";

// 'Delete my account': the password, or for an account without one the emailed code. `method` is a
// hidden field the page renders from the account (the server decides by the account, not by it).
const DELETE_PASSWORD_REQUIRED = "Please enter your password.";
const DELETE_CODE_FORMAT = "Please enter the 6-digit verification code";

export const DeleteAccountSchema = z
  .object({ method: choiceField, password: passwordField, code: codeField })
  .check(
    z.superRefine((value, ctx) => {
      if (value.method === "code") {
        if (!/^\d{6}$/.test(value.code?.trim() ?? "")) ctx.addIssue({ code: "custom", message: DELETE_CODE_FORMAT, path: ["code"] });
      } else if (!value.password) {
        ctx.addIssue({ code: "custom", message: DELETE_PASSWORD_REQUIRED, path: ["password"] });
      }
    }),
  );

export type DeleteAccountFields = z.input<typeof DeleteAccountSchema>;
