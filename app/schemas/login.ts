import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { emailField, passwordField } from "./fields";

// Identity §5: email required and an email; password required; both empty reads 'User and password'.
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
        ctx.addIssue({ code: "custom", message: "User and password", path: [] });
        return;
      }
      if (!email) ctx.addIssue({ code: "custom", message: "Email is required", path: ["email"] });
      else if (!EMAIL_PATTERN.test(email))
        ctx.addIssue({ code: "custom", message: "Please enter a valid email address", path: ["email"] });
      if (!value.password) ctx.addIssue({ code: "custom", message: "Password is required", path: ["password"] });
    }),
  );

export type LoginFields = z.input<typeof LoginSchema>;
