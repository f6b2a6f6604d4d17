import type { Express } from "express";
import type { ApiContext } from "../context";
import { invalidCodeError, issueCode, recordLinkSend, useCode } from "../lib/codes";
import { createDesktopCode, redeemDesktopCode } from "../lib/desktop-codes";
import {
  loginCodeEmail,
  passwordChangedEmail,
  passwordSetEmail,
  resetCodeEmail,
  setPasswordLinkEmail,
} from "../lib/emails";
import { ApiError, asyncHandler, parseBody, sendOk } from "../lib/http";
import {
  consumeOneTimeToken,
  createOneTimeToken,
  createSetPasswordToken,
  peekOneTimeToken,
  retireOneTimeTokens,
} from "../lib/one-time-tokens";
import { hashPassword } from "../lib/passwords";
import { secondsUntil } from "../lib/rate-limit";
import { defineRoute } from "../lib/routing";
import { getAuth, issueToken, liveTokenIdOf, requireAuth, revokeUserTokens, signInDevice } from "../lib/sessions";
import { bearerToken } from "../lib/tokens";
import { clientAddressKey } from "../lib/trust-proxy";
import { findUserByEmail, publicUser } from "../lib/users";
import {
  EMAIL_REQUIRED,
  body,
  codeField,
  deviceFields,
  emailField,
  newPasswordFields,
  passwordsMatch,
  requiredText,
} from "../lib/validation";

export const AUTH_MESSAGES = {
  loginCodeSent: "If an account exists for this email, we have sent a sign-in code.",
  resetCodeSent: "If an account exists for this email, we have sent a password reset code.",
  loggedIn: "Login successful.",
  codeVerified: "Verification successful!",
  passwordReset: "Your password has been reset.",
  resetLinkInvalid: "This reset link is invalid or has expired. Please start again.",
  passwordSet: "Your password has been set.",
  setLinkInvalid: "This link is invalid or has expired.",
  setLinkSent: "We have emailed you a link to set your password.",
  alreadyHasPassword: "Your account already has a password.",
  ssoCreated: "Sign-in token created.",
  ssoInvalid: "This sign-in link is invalid or has expired.",
  enterPassword: "Please enter password",
  passwordsDiffer: "Passwords don't match",
  desktopCodeCreated: "Enter this code in the desktop app.",
  desktopCodeNotDesktop: "Codes for the desktop app can only be made from a desktop app sign-in.",
  desktopCodeInvalid: "This code is invalid or has expired.",
} as const;

/** 'Too many attempts. Please try again in N minutes.' (N rounded up, at least 1). */
export function tooManyDesktopCodeAttempts(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Too many attempts. Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}

const emailOnlySchema = body({ email: emailField({ required: EMAIL_REQUIRED }) });

const codeLoginSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  code: codeField(),
  ...deviceFields(),
});

const resetByCodeSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  code: codeField(),
});

const passwordRules = newPasswordFields({
  required: AUTH_MESSAGES.enterPassword,
  mismatch: AUTH_MESSAGES.passwordsDiffer,
});

const resetPasswordSchema = body({
  token: requiredText("token", { max: 200, required: AUTH_MESSAGES.resetLinkInvalid }),
  email: emailField({ required: EMAIL_REQUIRED }),
  ...passwordRules,
}).superRefine(passwordsMatch(AUTH_MESSAGES.passwordsDiffer));

const newPasswordSchema = body({
  token: requiredText("token", { max: 200, required: AUTH_MESSAGES.setLinkInvalid }),
  ...passwordRules,
}).superRefine(passwordsMatch(AUTH_MESSAGES.passwordsDiffer));

const ssoLoginSchema = body({
  access_token: requiredText("access_token", { max: 200 }),
  ...deviceFields(),
});

const desktopCodeSchema = body({
  code: requiredText("code", { max: 50, required: AUTH_MESSAGES.desktopCodeInvalid }),
});

function linkError(message: string): ApiError {
  return new ApiError(422, message, { fields: { token: [message] } });
}

export function registerAuthRoutes(app: Express, ctx: ApiContext): void {
  const { db, config, clock, mail, loginThrottle, limiter } = ctx;

  // Sign-in by emailed code. Known and unknown emails get the same answer and the same limits; a
  // code is emailed only when the account exists.
  defineRoute(app, "/api/auth/get-login-code", {
    post: asyncHandler(async (req, res) => {
      const { email } = parseBody(req, emailOnlySchema);
      const code = await issueCode(ctx, { email, purpose: "login", addressKey: clientAddressKey(req.ip) });
      if (await findUserByEmail(db, email)) await mail.deliver(loginCodeEmail(email, code));
      sendOk(res, null, AUTH_MESSAGES.loginCodeSent);
    }),
  });

  defineRoute(app, "/api/auth/code-login", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, codeLoginSchema);
      await useCode(db, clock, { email: input.email, purpose: "login", code: input.code, field: "code" });
      const user = await findUserByEmail(db, input.email);
      // Without an account the stored code was never sent: guessing it is just a wrong code.
      if (!user) throw invalidCodeError("code");
      const { token } = await issueToken(db, {
        userId: user.id,
        device: signInDevice(input, req.headers["user-agent"]),
        ttlDays: config.tokenTtlDays,
        clock,
      });
      sendOk(res, { token, user: publicUser(user) }, AUTH_MESSAGES.loggedIn);
    }),
  });

  // Password reset by emailed code; also how accounts without a password (Google/Apple) set one.
  defineRoute(app, "/api/auth/forgot-password", {
    post: asyncHandler(async (req, res) => {
      const { email } = parseBody(req, emailOnlySchema);
      const code = await issueCode(ctx, { email, purpose: "reset", addressKey: clientAddressKey(req.ip) });
      if (await findUserByEmail(db, email)) await mail.deliver(resetCodeEmail(email, code));
      sendOk(res, null, AUTH_MESSAGES.resetCodeSent);
    }),
  });

  defineRoute(app, "/api/auth/reset-password-by-code", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, resetByCodeSchema);
      await useCode(db, clock, { email: input.email, purpose: "reset", code: input.code, field: "code" });
      const user = await findUserByEmail(db, input.email);
      if (!user) throw invalidCodeError("code");
      // One live reset token per account.
      await retireOneTimeTokens(db, { purpose: "reset", userId: user.id });
      const resetToken = await createOneTimeToken(db, { purpose: "reset", userId: user.id });
      sendOk(res, { reset_token: resetToken }, AUTH_MESSAGES.codeVerified);
    }),
  });

  // Sets the password with a reset token and signs out every other session of the account: all its
  // tokens except the bearer token of this request when it is a live token of the same account.
  defineRoute(app, "/api/auth/reset-password", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, resetPasswordSchema);
      const user = await findUserByEmail(db, input.email);
      if (!user || (await peekOneTimeToken(db, { purpose: "reset", token: input.token })) !== user.id) {
        throw linkError(AUTH_MESSAGES.resetLinkInvalid);
      }
      const passwordHash = await hashPassword(input.password);
      const keepTokenId = await liveTokenIdOf(db, req.headers.authorization, user.id);
      await db.transaction().execute(async (trx) => {
        const used = await consumeOneTimeToken(trx, { purpose: "reset", token: input.token, userId: user.id });
        if (used === null) throw linkError(AUTH_MESSAGES.resetLinkInvalid);
        await trx
          .updateTable("users")
          .set({ password_hash: passwordHash, updated_at: clock.now().toISOString() })
          .where("id", "=", user.id)
          .execute();
        await revokeUserTokens(trx, user.id, keepTokenId);
        await retireOneTimeTokens(trx, { purpose: "reset", userId: user.id });
        await retireOneTimeTokens(trx, { purpose: "set_password", userId: user.id });
      });
      // Whoever holds the mailbox may sign in again at once.
      await loginThrottle.recordSuccess(user.email);
      await mail.deliver(passwordChangedEmail(user.email, config.publicUrl));
      sendOk(res, null, AUTH_MESSAGES.passwordReset);
    }),
  });

  // First password, from the "set your password" email (a 'set_password' token, 24 h, single use).
  defineRoute(app, "/api/generate/new-password", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, newPasswordSchema);
      const owner = await peekOneTimeToken(db, { purpose: "set_password", token: input.token });
      if (owner === null) throw linkError(AUTH_MESSAGES.setLinkInvalid);
      const passwordHash = await hashPassword(input.password);
      const email = await db.transaction().execute(async (trx) => {
        const userId = await consumeOneTimeToken(trx, { purpose: "set_password", token: input.token, userId: owner });
        if (userId === null) throw linkError(AUTH_MESSAGES.setLinkInvalid);
        const row = await trx
          .updateTable("users")
          .set({ password_hash: passwordHash, updated_at: clock.now().toISOString() })
          .where("id", "=", userId)
          .returning("email")
          .executeTakeFirst();
        if (!row) throw linkError(AUTH_MESSAGES.setLinkInvalid);
        await retireOneTimeTokens(trx, { purpose: "set_password", userId });
        return row.email;
      });
      await mail.deliver(passwordSetEmail(email, config.publicUrl));
      sendOk(res, null, AUTH_MESSAGES.passwordSet);
    }),
  });

  // For a signed-in account without a password: emails a link to /generate-password/{token}.
  defineRoute(app, "/api/user/set-password-email", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (req, res) => {
        const { user } = getAuth(res);
        if (user.password_hash) throw new ApiError(409, AUTH_MESSAGES.alreadyHasPassword);
        await recordLinkSend(ctx, { email: user.email, addressKey: clientAddressKey(req.ip) });
        // The newest link replaces older ones.
        await retireOneTimeTokens(db, { purpose: "set_password", userId: user.id });
        const token = await createSetPasswordToken(db, user.id);
        await mail.deliver(setPasswordLinkEmail(user.email, `${config.publicUrl}/generate-password/${token}`));
        sendOk(res, null, AUTH_MESSAGES.setLinkSent);
      }),
    ],
  });

  // SSO: a signed-in client gets a one-time token (60 s) that signs the same account in elsewhere.
  defineRoute(app, "/api/auth/sso-token", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (_req, res) => {
        const { user } = getAuth(res);
        const accessToken = await createOneTimeToken(db, { purpose: "sso", userId: user.id });
        sendOk(res, { access_token: accessToken }, AUTH_MESSAGES.ssoCreated);
      }),
    ],
  });

  defineRoute(app, "/api/auth/sso-login-with-token", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, ssoLoginSchema);
      const userId = await consumeOneTimeToken(db, { purpose: "sso", token: input.access_token });
      const user =
        userId === null ? undefined : await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
      if (!user) throw new ApiError(401, AUTH_MESSAGES.ssoInvalid);
      const { token } = await issueToken(db, {
        userId: user.id,
        device: signInDevice(input, req.headers["user-agent"]),
        ttlDays: config.tokenTtlDays,
        clock,
      });
      sendOk(res, { token, user: publicUser(user) }, AUTH_MESSAGES.loggedIn);
    }),
  });

  // Desktop hand-off: the browser half of a Desktop sign-in (a token whose device is 'Desktop') gets
  // a short code that the desktop app redeems for the same token (lib/desktop-codes.ts).
  defineRoute(app, "/api/auth/desktop-code/issue", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (req, res) => {
        const { user, tokenId, deviceId } = getAuth(res);
        const device = await db.selectFrom("devices").select("platform").where("id", "=", deviceId).executeTakeFirst();
        if (device?.platform !== "Desktop") throw new ApiError(403, AUTH_MESSAGES.desktopCodeNotDesktop);
        // requireAuth accepted this header's token.
        const token = bearerToken(req.headers.authorization)!;
        const { code, expiresIn } = await createDesktopCode(db, { token, tokenId, userId: user.id });
        sendOk(res, { code, expires_in: expiresIn }, AUTH_MESSAGES.desktopCodeCreated);
      }),
    ],
  });

  // Every attempt counts against the client address (DESKTOP_CODE_MAX_PER_IP per 10 minutes,
  // real time), right or wrong, before the code is looked at.
  defineRoute(app, "/api/auth/desktop-code", {
    post: asyncHandler(async (req, res) => {
      const attempts = await limiter.hit(
        `desktop-code:ip:${clientAddressKey(req.ip)}`,
        config.desktopCodes.windowSeconds,
      );
      if (attempts.count > config.desktopCodes.maxPerIp) {
        const wait = secondsUntil(attempts.resetAt);
        throw new ApiError(429, tooManyDesktopCodeAttempts(wait), { headers: { "Retry-After": String(wait) } });
      }
      const input = parseBody(req, desktopCodeSchema);
      const redeemed = await redeemDesktopCode(db, input.code);
      if (!redeemed) {
        throw new ApiError(422, AUTH_MESSAGES.desktopCodeInvalid, {
          fields: { code: [AUTH_MESSAGES.desktopCodeInvalid] },
        });
      }
      sendOk(res, { token: redeemed.token, user: publicUser(redeemed.user) }, AUTH_MESSAGES.loggedIn);
    }),
  });
}
