import type { Express, RequestHandler } from "express";
import { z } from "zod";
import type { ApiContext } from "../context";
import { consumeCode, invalidCodeError, issueCode, verifyCode } from "../lib/codes";
import { alreadyRegisteredEmail, signupCodeEmail } from "../lib/emails";
import { ApiError, asyncHandler, parseBody, sendOk } from "../lib/http";
import { hashPassword } from "../lib/passwords";
import { defineRoute } from "../lib/routing";
import { issueToken, signInDevice } from "../lib/sessions";
import { clientAddressKey } from "../lib/trust-proxy";
import { findUserByEmail, publicUser } from "../lib/users";
import {
  EMAIL_REQUIRED,
  body,
  codeField,
  deviceFields,
  emailField,
  flagField,
  newPasswordFields,
  parseFlag,
  passwordsMatch,
} from "../lib/validation";

export const SIGNUP_MESSAGES = {
  codeSent: "Verification code sent to your email!",
  verified: "Verification successful!",
  registered: "Registration successful.",
  mustAgree: "You must agree to terms and conditions",
  fillAllFields: "Please fill in all fields",
  passwordsDiffer: "Passwords do not match",
  accountExists: "An account with this email already exists. Please sign in.",
} as const;

const tempSignupSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  isCheckout: flagField("isCheckout"),
  plan_id: z
    .union([z.string().trim().max(50), z.number().int().nonnegative()], {
      error: "The plan id field must be text.",
    })
    .nullish()
    .transform((v) => (v === undefined || v === null || v === "" ? undefined : String(v))),
});

const verifyTempCodeSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  verification_code: codeField(),
});

const registerSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  agreement: z.unknown().refine((v) => parseFlag(v) === 1, { error: SIGNUP_MESSAGES.mustAgree }),
  verification_code: codeField(),
  ...newPasswordFields({ required: SIGNUP_MESSAGES.fillAllFields, mismatch: SIGNUP_MESSAGES.passwordsDiffer }),
  newsletter: flagField("newsletter"),
  ...deviceFields(),
}).superRefine(passwordsMatch(SIGNUP_MESSAGES.passwordsDiffer));

export function registerSignupRoutes(app: Express, ctx: ApiContext): void {
  const { db, config, clock, mail } = ctx;

  // Step 1: a 'signup' code by email. An email that already has an account gets "You already have
  // an account" instead (no code); the answer, the 30 s gate and the hourly caps are the same.
  defineRoute(app, "/api/user/temp-signup", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, tempSignupSchema);
      const code = await issueCode(ctx, {
        email: input.email,
        purpose: "signup",
        addressKey: clientAddressKey(req.ip),
        meta: { isCheckout: input.isCheckout === 1, planId: input.plan_id },
      });
      const existing = await findUserByEmail(db, input.email);
      await mail.deliver(
        existing ? alreadyRegisteredEmail(input.email, config.publicUrl) : signupCodeEmail(input.email, code),
      );
      sendOk(res, null, SIGNUP_MESSAGES.codeSent);
    }),
  });

  // Step 2: checks the code without using it up (registration does); wrong tries count.
  defineRoute(app, "/api/user/verify-temp-code", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, verifyTempCodeSchema);
      await verifyCode(db, clock, {
        email: input.email,
        purpose: "signup",
        code: input.verification_code,
        field: "verification_code",
      });
      sendOk(res, null, SIGNUP_MESSAGES.verified);
    }),
  });

  // Step 3 (and the one-call form /api/user/signup): checks and uses up the code, creates the
  // account, a device and a token. The code is checked before the account's existence, so that
  // only someone holding a valid code for the email can learn that it has an account.
  const register: RequestHandler = asyncHandler(async (req, res) => {
    const input = parseBody(req, registerSchema);
    const verified = await verifyCode(db, clock, {
      email: input.email,
      purpose: "signup",
      code: input.verification_code,
      field: "verification_code",
    });
    if (await findUserByEmail(db, input.email)) throw new ApiError(409, SIGNUP_MESSAGES.accountExists);

    const passwordHash = await hashPassword(input.password);
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
          newsletter: input.newsletter,
          newsletter_at: input.newsletter === 1 ? now : null,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column("email").doNothing())
        .returning("id")
        .executeTakeFirst();
      if (!row) throw new ApiError(409, SIGNUP_MESSAGES.accountExists);
      return Number(row.id);
    });

    const { token } = await issueToken(db, {
      userId,
      device: signInDevice(input, req.headers["user-agent"]),
      ttlDays: config.tokenTtlDays,
      clock,
    });
    const user = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirstOrThrow();
    sendOk(res, { token, user: publicUser(user) }, SIGNUP_MESSAGES.registered, { token });
  });

  defineRoute(app, "/api/user/register-user", { post: register });
  defineRoute(app, "/api/user/signup", { post: register });
}
