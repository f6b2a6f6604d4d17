// The actions' door to the form schemas. Browser bundles replace *.server modules with empty ones,
// so importing schemas through here keeps zod out of route chunks; the browser loads a schema
// lazily (utils/client-validation.ts) from its own module when it validates as you type.
export { LoginSchema } from "./login";
export {
  EmailStepSchema,
  NewPasswordSchema,
  OtpSchema,
  SignupCodeSchema,
  SignupEmailSchema,
  SignupPasswordSchema,
} from "./identity";
export { CheckoutCodeSchema, CheckoutCountrySchema, CheckoutEmailSchema, CouponSchema } from "./checkout";
export { DeleteAccountSchema } from "./account-deletion";
export { PayOpenInvoiceSchema } from "./dunning";
export { RecoveryCodeSchema, TwoFactorCodeSchema, TwoFactorEnableSchema } from "./two-factor";
export { SupportMessageSchema } from "./support";
export { EmailChangeStartSchema } from "./email-change";
export { PasskeyConfirmSchema } from "./passkeys";
export { WireGuardConfigSchema } from "./wireguard";
export { BillingDetailsSchema } from "./billing-details";
