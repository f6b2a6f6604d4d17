import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { emailField, passwordField } from "./fields";

// Identity §5: email required and an email; password required; both empty reads 'User and password'. The
// messages are catalogue keys (app/locales/*/auth.json), translated where they are shown.
// The hidden oldurl is not validated here (the action reads it and keeps only a same-origin path): a
// tampered one must not fail the form with an error that no field shows.
export const LoginSchema = z
  .object({
    email: emailField,
    password: passwordField,
  })
  .check(
    z.superRefine((value, ctx) => {
      const email = value.email?.trim();
      if (!email && !value.password) {
        ctx.addIssue({ code: "custom", message: "auth.validation.userAndPassword", path: [] });
        return;
      }
      if (!email) ctx.addIssue({ code: "custom", message: "auth.validation.emailRequired", path: ["email"] });
      else if (!EMAIL_PATTERN.test(email))
        ctx.addIssue({ code: "custom", message: "auth.validation.emailInvalid", path: ["email"] });
      if (!value.password) ctx.addIssue({ code: "custom", message: "auth.validation.passwordRequired", path: ["password"] });
    }),
  );

export type LoginFields = z.input<typeof LoginSchema>;
