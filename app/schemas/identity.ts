import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { choiceField, codeField, emailField, passwordField } from "./fields";

// One schema per form of the identity flows, with identity §5's messages as catalogue keys (app/locales/*/auth.json;
// Field translates them). Strings only (see
// docs/decisions/002): the browser and the action get identical results.

const trimmed = (value: string | undefined) => value?.trim() ?? "";

function emailIssues(value: string | undefined, ctx: z.core.$RefinementCtx, path = "email") {
  const email = trimmed(value);
  if (!email) ctx.addIssue({ code: "custom", message: "auth.validation.emailRequired", path: [path] });
  else if (!EMAIL_PATTERN.test(email)) ctx.addIssue({ code: "custom", message: "auth.validation.emailInvalid", path: [path] });
}

/**
 * Sign-up step 1: email, terms (agree_terms, required) and marketing (agree_margeting, optional).
 * identity §5 gives sign-up one email message, for a blank email too.
 */
export const SignupEmailSchema = z
  .object({ email: emailField, agree_terms: choiceField, agree_margeting: choiceField })
  .check(
    z.superRefine((value, ctx) => {
      if (!EMAIL_PATTERN.test(trimmed(value.email)))
        ctx.addIssue({ code: "custom", message: "auth.validation.emailInvalid", path: ["email"] });
      if (!value.agree_terms) ctx.addIssue({ code: "custom", message: "auth.validation.agreeTerms", path: ["agree_terms"] });
    }),
  );

/** Sign-up step 2: the emailed code. */
export const SignupCodeSchema = z.object({ verification_code: codeField }).check(
  z.superRefine((value, ctx) => {
    if (trimmed(value.verification_code).length !== 6)
      ctx.addIssue({ code: "custom", message: "auth.validation.verificationCode", path: ["verification_code"] });
  }),
);

/** Sign-up step 3: Password and Confirm Password. */
export const SignupPasswordSchema = z.object({ password: passwordField, confirmPassword: passwordField }).check(
  z.superRefine((value, ctx) => {
    if (!value.password || !value.confirmPassword) {
      ctx.addIssue({ code: "custom", message: "auth.validation.fillAll", path: [value.password ? "confirmPassword" : "password"] });
      return;
    }
    if (value.password !== value.confirmPassword)
      ctx.addIssue({ code: "custom", message: "auth.validation.passwordsDoNotMatch", path: ["confirmPassword"] });
    else if (value.password.length < 8)
      ctx.addIssue({ code: "custom", message: "auth.validation.passwordLength", path: ["password"] });
  }),
);

/** The email step of code sign-in and password reset. */
export const EmailStepSchema = z.object({ email: emailField }).check(z.superRefine((value, ctx) => emailIssues(value.email, ctx)));

/** The code step of code sign-in, password reset and the change-password dialog. */
export const OtpSchema = z.object({ code: codeField }).check(
  z.superRefine((value, ctx) => {
    if (trimmed(value.code).length !== 6) ctx.addIssue({ code: "custom", message: "auth.validation.otp", path: ["code"] });
  }),
);

/** A new password with its confirmation (reset, change, first password). */
export const NewPasswordSchema = z
  .object({ password: passwordField, password_confirmation: passwordField })
  .check(
    z.superRefine((value, ctx) => {
      if (!value.password) ctx.addIssue({ code: "custom", message: "auth.validation.enterPassword", path: ["password"] });
      if (!value.password_confirmation)
        ctx.addIssue({ code: "custom", message: "auth.validation.enterPassword", path: ["password_confirmation"] });
      if (!value.password || !value.password_confirmation) return;
      if (value.password !== value.password_confirmation)
        ctx.addIssue({ code: "custom", message: "auth.validation.passwordsDontMatch", path: ["password_confirmation"] });
      else if (value.password.length < 8)
        ctx.addIssue({ code: "custom", message: "auth.validation.passwordLength", path: ["password"] });
    }),
  );

export type SignupEmailFields = z.input<typeof SignupEmailSchema>;
export type SignupCodeFields = z.input<typeof SignupCodeSchema>;
export type SignupPasswordFields = z.input<typeof SignupPasswordSchema>;
export type EmailStepFields = z.input<typeof EmailStepSchema>;
export type OtpFields = z.input<typeof OtpSchema>;
export type NewPasswordFields = z.input<typeof NewPasswordSchema>;
