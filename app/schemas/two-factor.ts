import * as z from "zod/mini";
import { choiceField, codeField, passwordField } from "./fields";

// Two-factor authentication (docs/decisions/017): the 6-digit code of an authenticator app, or one
// of the recovery codes. Strings only, as every form schema here (docs/decisions/002). Messages are catalogue keys.
const AUTHENTICATION_CODE_FORMAT = "auth.validation.authenticationCode";
const RECOVERY_CODE_REQUIRED = "auth.validation.recoveryCode";

/** 'Authentication code' (sign-in step, 'Turn on', 'Turn off'). */
export const TwoFactorCodeSchema = z.object({ code: codeField }).check(
  z.superRefine((value, ctx) => {
    if (!/^\d{6}$/.test(value.code?.replace(/\s/g, "") ?? "")) ctx.addIssue({ code: "custom", message: AUTHENTICATION_CODE_FORMAT, path: ["code"] });
  }),
);

/** 'Recovery code' (sign-in step, 'Turn off'). */
export const RecoveryCodeSchema = z.object({ recovery_code: codeField }).check(
  z.superRefine((value, ctx) => {
    const code = value.recovery_code?.trim() ?? "";
    if (!code || code.length > 40) ctx.addIssue({ code: "custom", message: RECOVERY_CODE_REQUIRED, path: ["recovery_code"] });
  }),
);

/**
 * 'Turn on': the authentication code, confirmed by the 'Current password' or, for an account
 * without one (`method` "code", a hidden field the page renders from the account; the server
 * decides by the account), the emailed 'Verification code'.
 */
const CURRENT_PASSWORD_REQUIRED = "auth.validation.currentPassword";
const VERIFICATION_CODE_FORMAT = "auth.validation.verificationCode";

export const TwoFactorEnableSchema = z
  .object({
    code: codeField,
    method: choiceField,
    password: passwordField,
    verification_code: codeField,
  })
  .check(
    z.superRefine((value, ctx) => {
      if (!/^\d{6}$/.test(value.code?.replace(/\s/g, "") ?? "")) ctx.addIssue({ code: "custom", message: AUTHENTICATION_CODE_FORMAT, path: ["code"] });
      if (value.method === "code") {
        if (!/^\d{6}$/.test(value.verification_code?.trim() ?? "")) {
          ctx.addIssue({ code: "custom", message: VERIFICATION_CODE_FORMAT, path: ["verification_code"] });
        }
      } else if (!value.password) {
        ctx.addIssue({ code: "custom", message: CURRENT_PASSWORD_REQUIRED, path: ["password"] });
      }
    }),
  );

export type TwoFactorCodeFields = z.input<typeof TwoFactorCodeSchema>;
export type TwoFactorEnableFields = z.input<typeof TwoFactorEnableSchema>;
export type RecoveryCodeFields = z.input<typeof RecoveryCodeSchema>;
