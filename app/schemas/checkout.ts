import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { BILLING_DETAILS_MESSAGES } from "./billing-details";
import { codeField, emailField, textField } from "./fields";
import { controlCharactersMessage, hasControlCharacters } from "./text";

// The checkout's forms (commerce §5), with the spec's messages. Strings only, like identity.ts.

const trimmed = (value: string | undefined) => value?.trim() ?? "";

/** The visitor's email at checkout. */
export const CheckoutEmailSchema = z.object({ email: emailField }).check(
  z.superRefine((value, ctx) => {
    const email = trimmed(value.email);
    if (!email) ctx.addIssue({ code: "custom", message: "Valid email is required for checkout", path: ["email"] });
    else if (!EMAIL_PATTERN.test(email)) ctx.addIssue({ code: "custom", message: "Please enter a valid email address.", path: ["email"] });
  }),
);

/** 'Verify Your Email', step 1: the emailed code. */
export const CheckoutCodeSchema = z.object({ verification_code: codeField }).check(
  z.superRefine((value, ctx) => {
    const code = trimmed(value.verification_code);
    if (!code) ctx.addIssue({ code: "custom", message: "Please enter the verification code", path: ["verification_code"] });
    else if (!/^\d{6}$/.test(code))
      ctx.addIssue({ code: "custom", message: "Please enter the 6-digit verification code", path: ["verification_code"] });
  }),
);

/** 'Got a coupon?': the code. */
export const CouponSchema = z.object({ code: codeField }).check(
  z.superRefine((value, ctx) => {
    const code = trimmed(value.code);
    if (!code) ctx.addIssue({ code: "custom", message: "Please enter a coupon code.", path: ["code"] });
    else if (code.length > 64) ctx.addIssue({ code: "custom", message: "This coupon code is not valid.", path: ["code"] });
    else if (hasControlCharacters(code)) ctx.addIssue({ code: "custom", message: controlCharactersMessage("coupon code"), path: ["code"] });
  }),
);

/**
 * The order summary's 'Country' (issue 35): the country taxed. The API has the list and the last word
 * (an unknown code comes back as its message next to the field).
 */
export const CheckoutCountrySchema = z.object({ country: textField }).check(
  z.superRefine((value, ctx) => {
    if (!/^[A-Za-z]{2}$/.test(value.country)) ctx.addIssue({ code: "custom", message: BILLING_DETAILS_MESSAGES.country, path: ["country"] });
  }),
);

export type CheckoutEmailFields = z.infer<typeof CheckoutEmailSchema>;
export type CheckoutCodeFields = z.infer<typeof CheckoutCodeSchema>;
export type CouponFields = z.infer<typeof CouponSchema>;
export type CheckoutCountryFields = z.infer<typeof CheckoutCountrySchema>;
