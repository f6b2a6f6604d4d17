import * as z from "zod/mini";
import { EMAIL_PATTERN } from "./email";
import { codeField, emailField, textField } from "./fields";
import { hasControlCharacters } from "./text";

// The checkout's forms (commerce §5), with the spec's messages: catalogue keys (app/locales/<language>/checkout.json),
// which the fields translate when they show them. Strings only, like identity.ts.

/** The order summary's country refused: 'Please choose your country.' (checkout.ts's own key; the action's refusal uses it too). */
export const CHECKOUT_COUNTRY_MESSAGE = "checkout.country.required";

const trimmed = (value: string | undefined) => value?.trim() ?? "";

/** The visitor's email at checkout. */
export const CheckoutEmailSchema = z.object({ email: emailField }).check(
  z.superRefine((value, ctx) => {
    const email = trimmed(value.email);
    if (!email) ctx.addIssue({ code: "custom", message: "checkout.email.required", path: ["email"] });
    else if (!EMAIL_PATTERN.test(email)) ctx.addIssue({ code: "custom", message: "checkout.email.invalid", path: ["email"] });
  }),
);

/** 'Verify Your Email', step 1: the emailed code. */
export const CheckoutCodeSchema = z.object({ verification_code: codeField }).check(
  z.superRefine((value, ctx) => {
    const code = trimmed(value.verification_code);
    if (!code) ctx.addIssue({ code: "custom", message: "checkout.verify.codeRequired", path: ["verification_code"] });
    else if (!/^\d{6}$/.test(code))
      ctx.addIssue({ code: "custom", message: "checkout.verify.codeFormat", path: ["verification_code"] });
  }),
);

/** 'This coupon code is not valid.' */
export const COUPON_INVALID = "checkout.coupon.invalid";

/** 'Got a coupon?': the code. */
export const CouponSchema = z.object({ code: codeField }).check(
  z.superRefine((value, ctx) => {
    const code = trimmed(value.code);
    if (!code) ctx.addIssue({ code: "custom", message: "checkout.coupon.required", path: ["code"] });
    else if (code.length > 64) ctx.addIssue({ code: "custom", message: COUPON_INVALID, path: ["code"] });
    else if (hasControlCharacters(code)) ctx.addIssue({ code: "custom", message: "checkout.coupon.controls", path: ["code"] });
  }),
);

/**
 * The order summary's 'Country' (issue 35): the country taxed. The API has the list and the last word
 * (an unknown code comes back as its message next to the field).
 */
export const CheckoutCountrySchema = z.object({ country: textField }).check(
  z.superRefine((value, ctx) => {
    if (!/^[A-Za-z]{2}$/.test(value.country)) ctx.addIssue({ code: "custom", message: CHECKOUT_COUNTRY_MESSAGE, path: ["country"] });
  }),
);

export type CheckoutEmailFields = z.infer<typeof CheckoutEmailSchema>;
export type CheckoutCodeFields = z.infer<typeof CheckoutCodeSchema>;
export type CouponFields = z.infer<typeof CouponSchema>;
export type CheckoutCountryFields = z.infer<typeof CheckoutCountrySchema>;
