import { z } from "zod";
import { responses } from "../contract/responses";
import { type HandlerArgs, route } from "../contract/route";
import { consumeCode, invalidCodeError, sendCode, verifyCode } from "../../identity/codes";
import { alreadyRegisteredEmail, signupCodeEmail, welcomeEmail } from "../../identity/emails";
import { DomainError } from "../../platform/errors";
import { issueToken, signInDevice } from "../../identity/sessions";
import { afterSignIn } from "../security";
import { deliverSecurityEmail } from "../../identity/sign-in-alerts";
import { clientAddressKey } from "../../platform/trust-proxy";
import { clientHintsOf } from "../../identity/user-agent";
import { LoginResultSchema, findUserByEmail, publicUser } from "../../identity/users";
import {
  EMAIL_REQUIRED,
  body,
  codeField,
  deviceFields,
  emailField,
  acceptedFlag,
  flagField,
  newPasswordFields,
  optionalLanguageField,
  passwordsMatch,
} from "../validation";
import { asLanguage } from "../../platform/i18n";
import { requestLanguage } from "../envelope";
import { codeSendDescription } from "./auth";

export const SIGNUP_MESSAGES = {
  codeSent: "Verification code sent to your email!",
  /** The sign-up screen's failure message (identity spec), answered when the mail server is unavailable. */
  codeNotSent: "Failed to send signup token!",
  verified: "Verification successful!",
  registered: "Registration successful.",
  mustAgree: "You must agree to terms and conditions",
  fillAllFields: "Please fill in all fields",
  passwordsDiffer: "Passwords do not match",
  accountExists: "An account with this email already exists. Please sign in.",
} as const;

const tempSignupSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  isCheckout: flagField("isCheckout").meta({ description: "Sign-up started from checkout; kept with the code." }),
  plan_id: z
    .union([z.string().trim().max(50), z.number().int().nonnegative()], {
      error: "The plan id field must be text.",
    })
    .nullish()
    .transform((v) => (v === undefined || v === null || v === "" ? undefined : String(v)))
    .meta({
      description: "The plan chosen at checkout; kept with the code.",
      override: {
        anyOf: [{ type: "string", maxLength: 50 }, { type: "integer", minimum: 0 }, { type: "null" }],
      },
    }),
}).meta({ id: "TempSignupRequest" });

const verifyTempCodeSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  verification_code: codeField(),
}).meta({ id: "VerifyTempCodeRequest" });

const registerSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  agreement: acceptedFlag(SIGNUP_MESSAGES.mustAgree),
  verification_code: codeField(),
  ...newPasswordFields({ required: SIGNUP_MESSAGES.fillAllFields, mismatch: SIGNUP_MESSAGES.passwordsDiffer }),
  newsletter: flagField("newsletter"),
  language: optionalLanguageField(),
  ...deviceFields(),
})
  .superRefine(passwordsMatch(SIGNUP_MESSAGES.passwordsDiffer))
  .meta({ id: "RegisterRequest" });

// Step 3 (and the one-call form /api/user/signup): checks and uses up the code, creates the account,
// a device and a token. The code is checked before the account's existence, so that only someone
// holding a valid code for the email can learn that it has an account.
async function register(
  { ctx, req, body: input }: HandlerArgs<typeof registerSchema | typeof checkoutRegisterSchema, undefined, undefined, false>,
  opts: { atCheckout?: boolean } = {},
) {
  const { db, config, clock } = ctx;
  const verified = await verifyCode(db, clock, {
    email: input.email,
    purpose: "signup",
    code: input.verification_code,
    field: "verification_code",
  });
  if (await findUserByEmail(db, input.email)) throw new DomainError("email_taken", SIGNUP_MESSAGES.accountExists);

  const passwordHash = await ctx.passwords.hash(input.password);
  const now = clock.now().toISOString();
  const userId = await db.transaction().execute(async (trx) => {
    if (!(await consumeCode(trx, verified))) throw invalidCodeError("verification_code");
    const row = await trx
      .insertInto("users")
      .values({
        email: input.email,
        name: null,
        password_hash: passwordHash,
        email_verified_at: now,
        agreement_at: now,
        newsletter: "newsletter" in input ? input.newsletter : 0,
        newsletter_at: "newsletter" in input && input.newsletter === 1 ? now : null,
        language: input.language ?? null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column("email").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!row) throw new DomainError("email_taken", SIGNUP_MESSAGES.accountExists);
    return Number(row.id);
  });

  const device = signInDevice(input, req.headers["user-agent"], clientHintsOf(req.headers));
  const { token } = await issueToken(db, { userId, device, ttlDays: config.tokenTtlDays, clock });
  const user = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
  // The account's first device: remembered, no alert (sign-in-alerts.ts).
  await afterSignIn(ctx, req, user, device);
  // Made in the checkout, the account was never announced as such: say so, and how to come back.
  if (opts.atCheckout) await deliverSecurityEmail(ctx, welcomeEmail(user.email, config.publicUrl, asLanguage(user.language)));
  return { data: { token, user: publicUser(user) }, message: SIGNUP_MESSAGES.registered, topLevel: { token } };
}

/** Checkout's verification (commerce §3): code and password; the checkout page shows the terms it accepts. */
const checkoutRegisterSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  verification_code: codeField(),
  ...newPasswordFields({ required: SIGNUP_MESSAGES.fillAllFields, mismatch: SIGNUP_MESSAGES.passwordsDiffer }),
  language: optionalLanguageField(),
  ...deviceFields(),
})
  .superRefine(passwordsMatch(SIGNUP_MESSAGES.passwordsDiffer))
  .meta({ id: "CheckoutRegisterRequest" });

const REGISTER_DESCRIPTION =
  "Validates the body (agreement must be 1; password at least 8 characters and equal to password_confirmation), checks and uses up the 'signup' code, then creates the account (email verified, agreement_at now, newsletter 0/1 with newsletter_at), a device (platform default 'Web Browser') and a bearer token. The code is checked before the account's existence: 409 'An account with this email already exists. Please sign in.' only reaches someone holding a valid sign-up code (e.g. an account created meanwhile with Google).";

const registerContract = {
  method: "post",
  tags: ["Authentication"],
  auth: false,
  body: registerSchema,
  success: {
    description: `'${SIGNUP_MESSAGES.registered}' The token is also at the top level (\`token\`).`,
    data: LoginResultSchema,
    topLevel: { token: z.string() },
  },
  errors: { 409: `'${SIGNUP_MESSAGES.accountExists}'`, 422: responses.CodeRejected },
  handler: register,
} as const;

export const signupRoutes = [
  // Step 1: a 'signup' code by email. An email that already has an account gets "You already have
  // an account" instead (no code); the answer, the 30 s gate and the hourly caps are the same.
  route({
    method: "post",
    path: "/api/user/temp-signup",
    operationId: "tempSignup",
    tags: ["Authentication"],
    summary: "Sign-up step 1: email a sign-up code",
    description: codeSendDescription(
      "Sends a 'signup' code (subject 'Your verification code'). When the email already has an account it sends 'You already have an account' instead (sign in or reset the password; no code).",
    ),
    auth: false,
    body: tempSignupSchema,
    success: { description: `'${SIGNUP_MESSAGES.codeSent}'`, data: z.null() },
    errors: { 429: responses.CodeRequestLimited, 502: `'${SIGNUP_MESSAGES.codeNotSent}' (the mail server is unavailable; nothing was stored)` },
    async handler({ ctx, req, body: input }) {
      // No account yet: the code is written in the request's language; an existing account's, in its own.
      const lng = requestLanguage(req);
      await sendCode(ctx, {
        email: input.email,
        purpose: "signup",
        addressKey: clientAddressKey(req.ip),
        meta: { isCheckout: input.isCheckout === 1, planId: input.plan_id },
        failureMessage: SIGNUP_MESSAGES.codeNotSent,
        compose: async (code) => {
          const existing = await findUserByEmail(ctx.db, input.email);
          return existing
            ? alreadyRegisteredEmail(input.email, ctx.config.publicUrl, asLanguage(existing.language))
            : signupCodeEmail(input.email, code, { atCheckout: input.isCheckout === 1 }, lng);
        },
      });
      return { data: null, message: SIGNUP_MESSAGES.codeSent };
    },
  }),

  // Step 2: checks the code without using it up (registration does); wrong tries count.
  route({
    method: "post",
    path: "/api/user/verify-temp-code",
    operationId: "verifyTempCode",
    tags: ["Authentication"],
    summary: "Sign-up step 2: check the code",
    description: "Checks the 'signup' code without using it up (registration does). Wrong tries count toward the 5.",
    auth: false,
    body: verifyTempCodeSchema,
    success: { description: `'${SIGNUP_MESSAGES.verified}'`, data: z.null() },
    errors: { 422: responses.CodeRejected },
    async handler({ ctx: { db, clock }, body: input }) {
      await verifyCode(db, clock, {
        email: input.email,
        purpose: "signup",
        code: input.verification_code,
        field: "verification_code",
      });
      return { data: null, message: SIGNUP_MESSAGES.verified };
    },
  }),

  route({
    ...registerContract,
    path: "/api/user/register-user",
    operationId: "registerUser",
    summary: "Sign-up step 3: create the account",
    description: REGISTER_DESCRIPTION,
  }),
  route({
    ...registerContract,
    body: checkoutRegisterSchema,
    handler: (args: HandlerArgs<typeof checkoutRegisterSchema, undefined, undefined, false>) => register(args, { atCheckout: true }),
    path: "/api/user/checkout-register",
    operationId: "checkoutRegister",
    summary: "Checkout's email verification: the code, then a password; the visitor is signed in",
    description: `The checkout's 'Verify Your Email' step for a visitor (after temp-signup with isCheckout and plan_id): the same as /api/user/register-user without the consent fields, because the checkout page shows the terms of service and privacy policy it accepts. ${REGISTER_DESCRIPTION} Then it emails 'Welcome to VPN: your account is ready' (how to sign in and set a new password), since the visitor never saw a sign-up page.`,
  }),
  route({
    ...registerContract,
    path: "/api/user/signup",
    operationId: "signup",
    summary: "One-call sign-up for clients that already hold a code",
    description: `Same payload, handler and answers as /api/user/register-user. ${REGISTER_DESCRIPTION}`,
  }),
];
