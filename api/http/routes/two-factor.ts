import { z } from "zod";
import { asLanguage } from "../../platform/i18n";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import { useCode } from "../../identity/codes";
import { SUBJECTS, recoveryCodeUsedEmail, twoFactorCodeEmail, twoFactorOffEmail, twoFactorOnEmail } from "../../identity/emails";
import { deliverSecurityEmail, emailOrigin, noteSecurityEvent } from "../../identity/sign-in-alerts";
import { afterSignIn, eventSource } from "../security";
import { confirmationCodeRoute } from "./confirmation-code";
import { DomainError, type ErrorCode } from "../../platform/errors";
import { clientAddressKey } from "../../platform/trust-proxy";
import {
  CHALLENGE_MAX_ATTEMPTS,
  CHALLENGE_TTL_SECONDS,
  DISABLE_MAX_FAILURES,
  RECOVERY_CODE_COUNT,
  SECOND_FACTOR_ALERT_AFTER,
  TWO_FACTOR_MESSAGES,
  TwoFactorStatusSchema,
  disableTwoFactor,
  enableTwoFactor,
  isTwoFactorEnabled,
  releaseSettingTry,
  reserveSettingTry,
  startSetup,
  twoFactorStatus,
  useSecondFactor,
  verifyChallenge,
} from "../../identity/two-factor";
import { LoginResultSchema, publicUser } from "../../identity/users";
import { CODE_FORMAT, body, requiredText } from "../validation";

// Two-factor authentication (TOTP, RFC 6238): enrolment on the account, and the second step of a
// sign-in (docs/decisions/017; the rules are in lib/two-factor.ts).

const codeField = () =>
  z
    .string({ error: TWO_FACTOR_MESSAGES.codeFormat })
    .trim()
    .regex(/^\d{6}$/, { error: TWO_FACTOR_MESSAGES.codeFormat })
    .meta({
      description: `The 6-digit code of the authenticator app (trimmed). Otherwise 422 '${TWO_FACTOR_MESSAGES.codeFormat}'.`,
      override: { pattern: "^\\s*\\d{6}\\s*$" },
    });

const recoveryCodeField = () =>
  z
    .string({ error: TWO_FACTOR_MESSAGES.recoveryFormat })
    .trim()
    .min(1, { error: TWO_FACTOR_MESSAGES.recoveryFormat })
    .max(40, { error: TWO_FACTOR_MESSAGES.recoveryInvalid })
    .meta({ description: "One of the recovery codes shown when two-factor was turned on (xxxxx-xxxxx; any case, dash optional)." });

/** Exactly one proof: `code` or `recovery_code` (blank ones count as missing). */
function secondFactorFields() {
  const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);
  return {
    code: z.preprocess(blankToUndefined, codeField().optional()),
    recovery_code: z.preprocess(blankToUndefined, recoveryCodeField().optional()),
  };
}

function requireOneProof(value: { code?: string; recovery_code?: string }, ctx: z.RefinementCtx) {
  if (value.code === undefined && value.recovery_code === undefined) {
    ctx.addIssue({ code: "custom", path: ["code"], message: TWO_FACTOR_MESSAGES.codeFormat });
  }
}

const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);

const enableSchema = body({
  code: codeField(),
  password: z
    .string({ error: "The password field must be text." })
    .max(1024, { error: "The password field must not be longer than 1024 characters." })
    .optional()
    .meta({ description: "The account's current password, compared exactly as sent. Required when the account has one." }),
  verification_code: z
    .preprocess(blankToUndefined, z.string({ error: CODE_FORMAT }).trim().regex(/^\d{6}$/, { error: CODE_FORMAT }).optional())
    .meta({
      description: "For an account without a password (Google/Apple only): the 6-digit code from POST /api/account/two-factor/send-code.",
      override: { type: "string", pattern: "^\\s*\\d{6}\\s*$" },
    }),
}).meta({ id: "TwoFactorEnableRequest" });

function fieldError(code: ErrorCode, field: string, message: string): DomainError {
  return new DomainError(code, message, { field });
}

/** requireOneProof, for the OpenAPI document: code or recovery_code. */
const ONE_PROOF = { anyOf: [{ required: ["code"] }, { required: ["recovery_code"] }] };

const disableSchema = body(secondFactorFields())
  .superRefine(requireOneProof)
  .meta({ id: "TwoFactorDisableRequest", override: ONE_PROOF });

const verifySchema = body({
  challenge: requiredText("challenge", { max: 200, required: TWO_FACTOR_MESSAGES.challengeEnded }).meta({
    description: "data.challenge of the sign-in answer that asked for two-factor.",
  }),
  ...secondFactorFields(),
})
  .superRefine(requireOneProof)
  .meta({ id: "TwoFactorVerifyRequest", override: ONE_PROOF });

const SetupSchema = z
  .strictObject({
    secret: z.string().meta({ description: "The TOTP secret, base32 (the 'Setup key' typed into an app)." }),
    otpauth_url: z.string().meta({ description: "otpauth://totp/… URI for the QR code (SHA1, 6 digits, 30 s)." }),
  })
  .meta({ id: "TwoFactorSetup" });

export const twoFactorRoutes = [
  route({
    method: "get",
    path: "/api/account/two-factor",
    operationId: "twoFactorStatus",
    tags: ["Account"],
    summary: "Whether two-factor authentication is on",
    auth: true,
    success: { description: "The account's two-factor state", data: TwoFactorStatusSchema },
    async handler({ ctx, auth }) {
      return { data: await twoFactorStatus(ctx.db, auth.user.id), message: TWO_FACTOR_MESSAGES.status };
    },
  }),

  route({
    method: "post",
    path: "/api/account/two-factor/setup",
    operationId: "twoFactorSetup",
    tags: ["Account"],
    summary: "Start setting up two-factor authentication",
    description:
      "Makes a TOTP secret (20 random bytes) and keeps it, encrypted, as the account's pending secret; calling again answers the same pending secret until 'enable' succeeds. Nothing changes for sign-in until then. No request body.",
    auth: true,
    success: { description: `'${TWO_FACTOR_MESSAGES.setupStarted}'`, data: SetupSchema },
    errors: { 409: `'${TWO_FACTOR_MESSAGES.alreadyOn}'` },
    async handler({ ctx, auth }) {
      const { secret, uri } = await startSetup(ctx, auth.user);
      return { data: { secret, otpauth_url: uri }, message: TWO_FACTOR_MESSAGES.setupStarted };
    },
  }),

  // The emailed code that confirms turning two-factor on for an account without a password: the
  // code machinery and limits of every emailed code, under its own purpose 'two_factor'.
  confirmationCodeRoute({
    path: "/api/account/two-factor/send-code",
    operationId: "twoFactorSendCode",
    summary: "Email the code that confirms turning two-factor on (accounts without a password)",
    subject: SUBJECTS.twoFactorCode,
    purpose: "two_factor",
    messages: { sent: TWO_FACTOR_MESSAGES.confirmCodeSent, notSent: TWO_FACTOR_MESSAGES.confirmCodeNotSent, hasPassword: TWO_FACTOR_MESSAGES.hasPassword },
    compose: twoFactorCodeEmail,
  }),

  route({
    method: "post",
    path: "/api/account/two-factor/enable",
    operationId: "twoFactorEnable",
    tags: ["Account"],
    summary: "Turn two-factor authentication on",
    description: `The code must come from the pending secret of /api/account/two-factor/setup (±1 time step of 30 s). Confirmed again by the account's current \`password\` or, for an account without a password, by the \`verification_code\` emailed by /api/account/two-factor/send-code, so that a stolen session cannot lock the owner out with its own authenticator. ${DISABLE_MAX_FAILURES} password tries per account per 15 minutes, then 429. Turns two-factor on and answers ${RECOVERY_CODE_COUNT} single-use recovery codes: shown only here (stored as sha256).`,
    auth: true,
    body: enableSchema,
    success: {
      description: `'${TWO_FACTOR_MESSAGES.turnedOn}'`,
      data: z.strictObject({ recovery_codes: z.array(z.string()).length(RECOVERY_CODE_COUNT) }).meta({ id: "TwoFactorRecoveryCodes" }),
    },
    errors: {
      409: `'${TWO_FACTOR_MESSAGES.alreadyOn}' or '${TWO_FACTOR_MESSAGES.noSetup}' (no pending secret)`,
      422: `'${TWO_FACTOR_MESSAGES.codeFormat}' or '${TWO_FACTOR_MESSAGES.codeInvalid}' (under code); '${TWO_FACTOR_MESSAGES.passwordRequired}' or '${TWO_FACTOR_MESSAGES.wrongPassword}' (under password); '${CODE_FORMAT}' or a refused emailed code as in CodeRejected (under verification_code)`,
      429: rateLimited("'Too many wrong passwords. Please try again in N minutes.'"),
    },
    async handler({ ctx, req, auth, body: input }) {
      const { user } = auth;
      let confirm: (() => Promise<unknown>) | undefined;
      if (user.password_hash) {
        if (!input.password) throw fieldError("validation_failed", "password", TWO_FACTOR_MESSAGES.passwordRequired);
        const reservation = await reserveSettingTry(ctx, "enable", user.id);
        if (!(await ctx.passwords.verify(user.password_hash, input.password))) throw fieldError("wrong_password", "password", TWO_FACTOR_MESSAGES.wrongPassword);
        await releaseSettingTry(ctx, reservation);
      } else {
        const code = input.verification_code;
        if (!code) throw fieldError("validation_failed", "verification_code", CODE_FORMAT);
        // Used up only once the authentication code is right (enableTwoFactor's confirm step).
        confirm = () => useCode(ctx.db, ctx.clock, { email: user.email, purpose: "two_factor", code, field: "verification_code" });
      }
      const codes = await enableTwoFactor(ctx, user.id, input.code, { confirm });
      const source = eventSource(req);
      await noteSecurityEvent(ctx, { userId: user.id, kind: "two_factor_enabled", ...source });
      await deliverSecurityEmail(ctx, twoFactorOnEmail(user.email, emailOrigin(source, ctx.clock.now()), ctx.config.publicUrl, asLanguage(user.language)));
      return { data: { recovery_codes: codes }, message: TWO_FACTOR_MESSAGES.turnedOn };
    },
  }),

  route({
    method: "post",
    path: "/api/account/two-factor/disable",
    operationId: "twoFactorDisable",
    tags: ["Account"],
    summary: "Turn two-factor authentication off",
    description: `Takes a current authentication code (a time step not used before) or an unused recovery code, then deletes the secret, the recovery codes and any waiting sign-ins. ${DISABLE_MAX_FAILURES} wrong codes per account per 15 minutes, then 429.`,
    auth: true,
    body: disableSchema,
    success: { description: `'${TWO_FACTOR_MESSAGES.turnedOff}'`, data: z.null() },
    errors: {
      409: `'${TWO_FACTOR_MESSAGES.notOn}'`,
      422: `'${TWO_FACTOR_MESSAGES.codeInvalid}' (under code) or '${TWO_FACTOR_MESSAGES.recoveryInvalid}' (under recovery_code)`,
      429: rateLimited("'Too many wrong codes. Please try again in N minutes.'"),
    },
    async handler({ ctx, req, auth, body: input }) {
      const userId = auth.user.id;
      if (!(await isTwoFactorEnabled(ctx.db, userId))) throw new DomainError("two_factor_off", TWO_FACTOR_MESSAGES.notOn);
      // The try is taken before the check (parallel guesses get no more than a sequence) and kept when wrong.
      const reservation = await reserveSettingTry(ctx, "disable", userId);
      const accepted = await useSecondFactor(ctx, userId, { code: input.code, recovery_code: input.recovery_code });
      if (!accepted) {
        const field = input.recovery_code !== undefined ? "recovery_code" : "code";
        const message = field === "code" ? TWO_FACTOR_MESSAGES.codeInvalid : TWO_FACTOR_MESSAGES.recoveryInvalid;
        throw new DomainError("code_invalid", message, { field });
      }
      await releaseSettingTry(ctx, reservation);
      await disableTwoFactor(ctx.db, userId);
      const source = eventSource(req);
      const origin = emailOrigin(source, ctx.clock.now());
      if (input.recovery_code !== undefined) {
        await noteSecurityEvent(ctx, { userId, kind: "recovery_code_used", ...source });
        await deliverSecurityEmail(ctx, recoveryCodeUsedEmail(auth.user.email, origin, ctx.config.publicUrl, asLanguage(auth.user.language)));
      }
      await noteSecurityEvent(ctx, { userId, kind: "two_factor_disabled", ...source });
      await deliverSecurityEmail(ctx, twoFactorOffEmail(auth.user.email, origin, ctx.config.publicUrl, asLanguage(auth.user.language)));
      return { data: null, message: TWO_FACTOR_MESSAGES.turnedOff };
    },
  }),

  route({
    method: "post",
    path: "/api/user/two-factor/verify",
    operationId: "twoFactorVerify",
    tags: ["Authentication"],
    summary: "Finish a sign-in with its second factor",
    description: `For a sign-in answered with \`two_factor_required\` (/api/user/login, /api/auth/code-login, /api/user/thirdparty-login): the challenge (valid ${CHALLENGE_TTL_SECONDS} s, real time) with a current authentication code (±1 step of 30 s, each step accepted once) or an unused recovery code. Answers the bearer token like /api/user/login, with the device of the first step. ${CHALLENGE_MAX_ATTEMPTS} wrong codes end the challenge ('${TWO_FACTOR_MESSAGES.tooManyWrong}'). Wrong codes (and recovery codes) also count per account, whatever the challenge: TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT per LOGIN_FAILURE_WINDOW_SECONDS, then 429 until the window ends (a new sign-in does not refill it; a complete sign-in resets it); and as failed sign-ins of the account's email (the LOGIN_MAX_FAILURES_* limits). Each try is reserved before the code is checked and given back when it is right, so a parallel burst gets no more tries than a sequence. The ${SECOND_FACTOR_ALERT_AFTER}th wrong code in a row emails the account's owner ('Failed two-factor sign-in attempts on your account'). The failed sign-in counts of the first step are cleared only here, when the code is right.`,
    auth: false,
    body: verifySchema,
    success: { description: `'${TWO_FACTOR_MESSAGES.verified}'`, data: LoginResultSchema },
    errors: {
      422: `'${TWO_FACTOR_MESSAGES.codeInvalid}' (under code), '${TWO_FACTOR_MESSAGES.recoveryInvalid}' (under recovery_code), '${TWO_FACTOR_MESSAGES.challengeEnded}' or '${TWO_FACTOR_MESSAGES.tooManyWrong}' (under challenge: sign in again)`,
      429: rateLimited(
        "'Too many wrong authentication codes for this account. Please try again in N minutes.' (the account's second-factor budget) or 'Too many failed sign-in attempts. Please try again in N minutes.' (the LOGIN_MAX_FAILURES_* limits)",
      ),
    },
    async handler({ ctx, req, body: input }) {
      const { token, user, device } = await verifyChallenge(ctx, {
        challenge: input.challenge,
        code: input.code,
        recovery_code: input.recovery_code,
        addressKey: clientAddressKey(req.ip),
      });
      if (input.recovery_code !== undefined) {
        const source = eventSource(req);
        await noteSecurityEvent(ctx, { userId: user.id, kind: "recovery_code_used", ...source });
        await deliverSecurityEmail(ctx, recoveryCodeUsedEmail(user.email, emailOrigin(source, ctx.clock.now()), ctx.config.publicUrl, asLanguage(user.language)));
      }
      await afterSignIn(ctx, req, user, device);
      return { data: { token, user: publicUser(user) }, message: TWO_FACTOR_MESSAGES.verified };
    },
  }),
];
