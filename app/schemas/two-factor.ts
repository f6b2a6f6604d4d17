import * as z from "zod/mini";

// Two-factor authentication (docs/decisions/017): the 6-digit code of an authenticator app, or one
// of the recovery codes. Strings only, as every form schema here (docs/decisions/002).
export const AUTHENTICATION_CODE_FORMAT = "Please enter the 6-digit authentication code";
export const RECOVERY_CODE_REQUIRED = "Please enter a recovery code";

/** 'Authentication code' (sign-in step, 'Turn on', 'Turn off'). */
export const TwoFactorCodeSchema = z.object({ code: z.optional(z.string()) }).check(
  z.superRefine((value, ctx) => {
    if (!/^\d{6}$/.test(value.code?.replace(/\s/g, "") ?? "")) ctx.addIssue({ code: "custom", message: AUTHENTICATION_CODE_FORMAT, path: ["code"] });
  }),
);

/** 'Recovery code' (sign-in step, 'Turn off'). */
export const RecoveryCodeSchema = z.object({ recovery_code: z.optional(z.string()) }).check(
  z.superRefine((value, ctx) => {
    const code = value.recovery_code?.trim() ?? "";
    if (!code || code.length > 40) ctx.addIssue({ code: "custom", message: RECOVERY_CODE_REQUIRED, path: ["recovery_code"] });
  }),
);

export type TwoFactorCodeFields = z.input<typeof TwoFactorCodeSchema>;
export type RecoveryCodeFields = z.input<typeof RecoveryCodeSchema>;
