import { z } from "zod";
import { asLanguage, text } from "../../platform/i18n";
import { rateLimited, responses } from "../contract/responses";
import { route } from "../contract/route";
import { invalidCodeError, recordLinkSend, sendCode, useCode } from "../../identity/codes";
import { DESKTOP_CODE_TTL_SECONDS, createDesktopCode, redeemDesktopCode } from "../../identity/desktop-codes";
import {
  loginCodeEmail,
  passwordChangedEmail,
  passwordSetEmail,
  resetCodeEmail,
  setPasswordLinkEmail,
} from "../../identity/emails";
import { DomainError } from "../../platform/errors";
import {
  consumeOneTimeToken,
  createOneTimeToken,
  createSetPasswordToken,
  peekOneTimeToken,
  retireOneTimeTokens,
} from "../../identity/one-time-tokens";
import { PasskeyReviewSchema, startPasskeyReview } from "../../identity/passkeys";
import { minutesOf, secondsUntil, tryAgainIn } from "../../platform/rate-limit";
import { issueToken, liveTokenIdOf, revokeSessions, signInDevice } from "../../identity/sessions";
import { bearerToken } from "../../platform/tokens";
import { clientAddressKey } from "../../platform/trust-proxy";
import { noteSecurityEvent, noteSignIn, parseDeviceKey } from "../../identity/sign-in-alerts";
import { DEVICE_KEY_HEADER, afterSignIn, eventSource } from "../security";
import { SignInResultSchema, TWO_FACTOR_MESSAGES, finishSignIn } from "../../identity/two-factor";
import { clientHintsOf } from "../../identity/user-agent";
import { LoginResultSchema, findUserByEmail, findUserById, notDeleted, publicUser } from "../../identity/users";
import {
  EMAIL_REQUIRED,
  body,
  codeField,
  deviceFields,
  emailField,
  newPasswordFields,
  passwordsMatch,
  requiredText,
} from "../validation";

export const AUTH_MESSAGES = {
  loginCodeSent: "If an account exists for this email, we have sent a sign-in code.",
  resetCodeSent: "If an account exists for this email, we have sent a password reset code.",
  // The screens' failure messages (identity spec), answered when the mail server is unavailable.
  loginCodeNotSent: "Failed to get login code!",
  resetCodeNotSent: "Failed to send reset password email",
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
  ssoValid: "This sign-in link is valid.",
  enterPassword: "Please enter password",
  passwordsDiffer: "Passwords don't match",
  desktopCodeCreated: "Enter this code in the desktop app.",
  desktopCodeNotDesktop: "Codes for the desktop app can only be made from a desktop app sign-in.",
  desktopCodeInvalid: "This code is invalid or has expired.",
} as const;

/** 'Too many attempts. Please try again in N minutes.' */
export function tooManyDesktopCodeAttempts(retryAfterSeconds: number): string {
  return `Too many attempts. ${tryAgainIn(retryAfterSeconds)}`;
}

const emailOnlySchema = body({ email: emailField({ required: EMAIL_REQUIRED }) }).meta({ id: "EmailRequest" });

const codeLoginSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  code: codeField(),
  ...deviceFields(),
}).meta({ id: "CodeLoginRequest" });

const resetByCodeSchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  code: codeField(),
}).meta({ id: "CodeRequest" });

const passwordRules = newPasswordFields({
  required: AUTH_MESSAGES.enterPassword,
  mismatch: AUTH_MESSAGES.passwordsDiffer,
});

const resetPasswordSchema = body({
  token: requiredText("token", { max: 200, required: AUTH_MESSAGES.resetLinkInvalid }).meta({
    description: "data.reset_token from reset-password-by-code.",
  }),
  email: emailField({ required: EMAIL_REQUIRED }),
  ...passwordRules,
})
  .superRefine(passwordsMatch(AUTH_MESSAGES.passwordsDiffer))
  .meta({ id: "ResetPasswordRequest" });

const newPasswordSchema = body({
  token: requiredText("token", { max: 200, required: AUTH_MESSAGES.setLinkInvalid }).meta({
    description: "The token of the link /generate-password/{token} from the 'Set your account password' email.",
  }),
  ...passwordRules,
})
  .superRefine(passwordsMatch(AUTH_MESSAGES.passwordsDiffer))
  .meta({ id: "NewPasswordRequest" });

const ssoLoginSchema = body({
  access_token: requiredText("access_token", { max: 200 }).meta({
    description: "data.access_token from /api/auth/sso-token.",
  }),
  ...deviceFields(),
}).meta({ id: "SsoLoginRequest" });

const ssoAccountSchema = body({
  access_token: requiredText("access_token", { max: 200 }).meta({
    description: "data.access_token from /api/auth/sso-token.",
  }),
}).meta({ id: "SsoAccountRequest" });

const desktopCodeSchema = body({
  code: requiredText("code", { max: 50, required: AUTH_MESSAGES.desktopCodeInvalid }).meta({
    examples: ["ABCD-2345"],
    description: "The code from /api/auth/desktop-code/issue, with or without the dash, any case (spaces ignored).",
  }),
}).meta({ id: "DesktopCodeRequest" });

/** What every code-sending endpoint does, for its description. */
const CODE_RULES =
  "Codes: 6 random digits, stored hashed, one live code per email and purpose (a new send replaces the old one), valid 300 s (business clock), burnt after 5 wrong tries, resend refused for 30 s after the last send for the email and purpose; the caps CODE_MAX_PER_EMAIL_PER_HOUR and CODE_MAX_PER_IP_PER_HOUR also apply.";
export const SAME_FOR_EVERY_EMAIL =
  "The answer, the 30 s gate and the hourly caps are the same whether or not the email has an account.";

export function codeSendDescription(what: string): string {
  return `${CODE_RULES} ${what} ${SAME_FOR_EVERY_EMAIL} `;
}

function linkError(message: string): DomainError {
  return new DomainError("link_invalid", message, { field: "token" });
}

export const authRoutes = [
  // Sign-in by emailed code. Known and unknown emails get the same answer and the same limits; a
  // code is emailed only when the account exists.
  route({
    method: "post",
    path: "/api/auth/get-login-code",
    operationId: "getLoginCode",
    tags: ["Authentication"],
    summary: "Email a sign-in code",
    description: codeSendDescription("Sends a 'login' code (subject 'Your sign-in code') only when the account exists."),
    auth: false,
    body: emailOnlySchema,
    success: { description: `'${AUTH_MESSAGES.loginCodeSent}'`, data: z.null() },
    errors: { 429: responses.CodeRequestLimited, 502: `'${AUTH_MESSAGES.loginCodeNotSent}' (the mail server is unavailable; nothing was stored)` },
    async handler({ ctx, req, body: { email } }) {
      await sendCode(ctx, {
        email,
        purpose: "login",
        addressKey: clientAddressKey(req.ip),
        failureMessage: AUTH_MESSAGES.loginCodeNotSent,
        compose: async (code) => {
          const user = await findUserByEmail(ctx.db, email);
          return user ? loginCodeEmail(email, code, asLanguage(user.language)) : null;
        },
      });
      return { data: null, message: AUTH_MESSAGES.loginCodeSent };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/code-login",
    operationId: "codeLogin",
    tags: ["Authentication"],
    summary: "Sign in with an emailed code",
    description:
      "Checks and uses up the 'login' code, then signs in like /api/user/login (device row and bearer token; with two-factor on, a challenge for /api/user/two-factor/verify instead). Not subject to the failed password sign-in limits (the code has its own: 5 wrong tries).",
    auth: false,
    body: codeLoginSchema,
    success: { description: `'${AUTH_MESSAGES.loggedIn}', or with two-factor on '${TWO_FACTOR_MESSAGES.required}'`, data: SignInResultSchema },
    errors: { 422: responses.CodeRejected },
    async handler({ ctx, req, body: input }) {
      const { db, clock, loginThrottle } = ctx;
      // Deliberately not throttled by the password limits: the mailbox holder can always get in.
      await useCode(db, clock, { email: input.email, purpose: "login", code: input.code, field: "code" });
      const user = await findUserByEmail(db, input.email);
      // Without an account the stored code was never sent: guessing it is just a wrong code.
      if (!user) throw invalidCodeError("code");
      const device = signInDevice(input, req.headers["user-agent"], clientHintsOf(req.headers));
      const signedIn = await finishSignIn(ctx, { user, device, purpose: "code" });
      // With two-factor on the sign-in is not over yet: the counts are cleared only once the second factor is right.
      if (!("token" in signedIn)) return { data: signedIn, message: TWO_FACTOR_MESSAGES.required };
      await loginThrottle.recordSuccess(user.email, clientAddressKey(req.ip));
      await afterSignIn(ctx, req, user, device);
      return { data: { token: signedIn.token, user: publicUser(user) }, message: AUTH_MESSAGES.loggedIn };
    },
  }),

  // Password reset by emailed code; also how accounts without a password (Google/Apple) set one.
  route({
    method: "post",
    path: "/api/auth/forgot-password",
    operationId: "forgotPassword",
    tags: ["Authentication"],
    summary: "Email a password reset code",
    description: codeSendDescription(
      "Sends a 'reset' code (subject 'Your password reset code') only when the account exists; accounts without a password (Google/Apple) use it to set one.",
    ),
    auth: false,
    body: emailOnlySchema,
    success: { description: `'${AUTH_MESSAGES.resetCodeSent}'`, data: z.null() },
    errors: { 429: responses.CodeRequestLimited, 502: `'${AUTH_MESSAGES.resetCodeNotSent}' (the mail server is unavailable; nothing was stored)` },
    async handler({ ctx, req, body: { email } }) {
      await sendCode(ctx, {
        email,
        purpose: "reset",
        addressKey: clientAddressKey(req.ip),
        failureMessage: AUTH_MESSAGES.resetCodeNotSent,
        compose: async (code) => {
          const user = await findUserByEmail(ctx.db, email);
          return user ? resetCodeEmail(email, code, asLanguage(user.language)) : null;
        },
      });
      return { data: null, message: AUTH_MESSAGES.resetCodeSent };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/reset-password-by-code",
    operationId: "resetPasswordByCode",
    tags: ["Authentication"],
    summary: "Exchange a reset code for a reset token",
    description:
      "Checks and uses up the 'reset' code; answers a single-use reset token valid 15 minutes (stored hashed). A newer one replaces older ones.",
    auth: false,
    body: resetByCodeSchema,
    success: { description: `'${AUTH_MESSAGES.codeVerified}'`, data: z.strictObject({ reset_token: z.string() }) },
    errors: { 422: responses.CodeRejected },
    async handler({ ctx: { db, clock }, body: input }) {
      await useCode(db, clock, { email: input.email, purpose: "reset", code: input.code, field: "code" });
      const user = await findUserByEmail(db, input.email);
      if (!user) throw invalidCodeError("code");
      // One live reset token per account.
      await retireOneTimeTokens(db, { purpose: "reset", userId: user.id });
      const resetToken = await createOneTimeToken(db, { purpose: "reset", userId: user.id });
      return { data: { reset_token: resetToken }, message: AUTH_MESSAGES.codeVerified };
    },
  }),

  // Sets the password with a reset token and signs out every other session of the account: all its
  // tokens except the bearer token of this request when it is a live token of the same account.
  route({
    method: "post",
    path: "/api/auth/reset-password",
    operationId: "resetPassword",
    tags: ["Authentication"],
    summary: "Set a new password with a reset token",
    description:
      "Uses up the reset token (it must belong to `email`), sets the password (argon2id) and revokes every token of the account except the bearer token of this request when it is a live token of the same account (the signed-in change-password dialog keeps its session); the one-time SSO tokens and desktop codes of the revoked sessions and every waiting two-factor sign-in stop working too. Emails 'Your password was changed'. The bearer token is optional. A new password does not stop a passkey: when the account has passkeys, `passkey_review` lists them with a token that can remove them without signing in (POST /api/auth/reset-password/passkeys/remove).",
    auth: false,
    body: resetPasswordSchema,
    success: { description: `'${AUTH_MESSAGES.passwordReset}'`, data: z.strictObject({ passkey_review: PasskeyReviewSchema }) },
    errors: {
      422: `Validation ('${AUTH_MESSAGES.enterPassword}', 'Password must be at least 8 characters', "${AUTH_MESSAGES.passwordsDiffer}") or '${AUTH_MESSAGES.resetLinkInvalid}' (unknown, expired, used, or another account's token).`,
    },
    async handler({ ctx, req, body: input }) {
      const { db, config, clock, mail, loginThrottle } = ctx;
      const user = await findUserByEmail(db, input.email);
      if (!user || (await peekOneTimeToken(db, { purpose: "reset", token: input.token })) !== user.id) {
        throw linkError(AUTH_MESSAGES.resetLinkInvalid);
      }
      const passwordHash = await ctx.passwords.hash(input.password);
      const keepTokenId = await liveTokenIdOf(db, req.headers.authorization, user.id);
      await db.transaction().execute(async (trx) => {
        const used = await consumeOneTimeToken(trx, { purpose: "reset", token: input.token, userId: user.id });
        if (used === null) throw linkError(AUTH_MESSAGES.resetLinkInvalid);
        await trx
          .updateTable("users")
          .set({ password_hash: passwordHash, updated_at: clock.now().toISOString() })
          .where("id", "=", user.id)
          .execute();
        await revokeSessions(trx, { userId: user.id, all: true, keepTokenId });
        await retireOneTimeTokens(trx, { purpose: "reset", userId: user.id });
        await retireOneTimeTokens(trx, { purpose: "set_password", userId: user.id });
      });
      // Whoever holds the mailbox may sign in with the new password at once (other addresses stay locked).
      await loginThrottle.recordPasswordReset(user.email, clientAddressKey(req.ip));
      await noteSecurityEvent(ctx, { userId: user.id, kind: "password_changed", ...eventSource(req) });
      await mail.deliver(passwordChangedEmail(user.email, config.publicUrl, asLanguage(user.language)));
      return { data: { passkey_review: await startPasskeyReview(db, user.id) }, message: AUTH_MESSAGES.passwordReset };
    },
  }),

  // First password, from the "set your password" email (a 'set_password' token, 24 h, single use).
  route({
    method: "post",
    path: "/api/generate/new-password",
    operationId: "generateNewPassword",
    tags: ["Authentication"],
    summary: "Set the first password from a 'set your password' link",
    description:
      "Uses up the 'set_password' token (24 hours, single use) and sets the password. Emails 'Your password was set'.",
    auth: false,
    body: newPasswordSchema,
    success: { description: `'${AUTH_MESSAGES.passwordSet}'`, data: z.null() },
    errors: {
      422: `Validation ('${AUTH_MESSAGES.enterPassword}', 'Password must be at least 8 characters', "${AUTH_MESSAGES.passwordsDiffer}") or '${AUTH_MESSAGES.setLinkInvalid}'`,
    },
    async handler({ ctx, req, body: input }) {
      const { db, config, clock, mail } = ctx;
      const owner = await peekOneTimeToken(db, { purpose: "set_password", token: input.token });
      if (owner === null) throw linkError(AUTH_MESSAGES.setLinkInvalid);
      const passwordHash = await ctx.passwords.hash(input.password);
      const email = await db.transaction().execute(async (trx) => {
        const userId = await consumeOneTimeToken(trx, { purpose: "set_password", token: input.token, userId: owner });
        if (userId === null) throw linkError(AUTH_MESSAGES.setLinkInvalid);
        const row = await trx
          .updateTable("users")
          .set({ password_hash: passwordHash, updated_at: clock.now().toISOString() })
          .where("id", "=", userId)
          // A deleted account gets no password back.
          .where(notDeleted)
          .returning(["email", "language"])
          .executeTakeFirst();
        if (!row) throw linkError(AUTH_MESSAGES.setLinkInvalid);
        await retireOneTimeTokens(trx, { purpose: "set_password", userId });
        return row;
      });
      await noteSecurityEvent(ctx, { userId: owner, kind: "password_changed", ...eventSource(req) });
      await mail.deliver(passwordSetEmail(email.email, config.publicUrl, asLanguage(email.language)));
      return { data: null, message: AUTH_MESSAGES.passwordSet };
    },
  }),

  // For a signed-in account without a password: emails a link to /generate-password/{token}.
  route({
    method: "post",
    path: "/api/user/set-password-email",
    operationId: "setPasswordEmail",
    tags: ["Account"],
    summary: "Email a link to set a first password",
    description:
      "For an account without a password (created with Google/Apple): emails 'Set your account password' with the link {PUBLIC_URL}/generate-password/{token} (24 hours, single use; a newer link replaces older ones). The 30 s resend gate and the hourly caps apply (purpose 'set_password'). No request body.",
    auth: true,
    success: { description: `'${AUTH_MESSAGES.setLinkSent}'`, data: z.null() },
    errors: { 409: `'${AUTH_MESSAGES.alreadyHasPassword}'`, 429: responses.CodeRequestLimited },
    async handler({ ctx, req, auth: { user } }) {
      const { db, config, mail } = ctx;
      if (user.password_hash) throw new DomainError("password_already_set", AUTH_MESSAGES.alreadyHasPassword);
      await recordLinkSend(ctx, { email: user.email, addressKey: clientAddressKey(req.ip) });
      // The newest link replaces older ones.
      await retireOneTimeTokens(db, { purpose: "set_password", userId: user.id });
      const token = await createSetPasswordToken(db, user.id);
      await mail.deliver(setPasswordLinkEmail(user.email, `${config.publicUrl}/generate-password/${token}`, asLanguage(user.language)));
      return { data: null, message: AUTH_MESSAGES.setLinkSent };
    },
  }),

  // SSO: a signed-in client gets a one-time token (60 s) that signs the same account in elsewhere.
  route({
    method: "post",
    path: "/api/auth/sso-token",
    operationId: "ssoToken",
    tags: ["Authentication"],
    summary: "A one-time sign-in token for another client",
    description:
      "A single-use token valid 60 seconds (real time) that /api/auth/sso-login-with-token exchanges for a session of the same account. It stops working when the session that made it ends (logout, device terminated, all devices terminated, password reset or change, account deleted). No request body.",
    auth: true,
    success: { description: `'${AUTH_MESSAGES.ssoCreated}'`, data: z.strictObject({ access_token: z.string() }) },
    async handler({ ctx, auth: { user, tokenId } }) {
      const accessToken = await createOneTimeToken(ctx.db, { purpose: "sso", userId: user.id, tokenId });
      return { data: { access_token: accessToken }, message: AUTH_MESSAGES.ssoCreated };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/sso-login-with-token",
    operationId: "ssoLoginWithToken",
    tags: ["Authentication"],
    summary: "Sign in with a one-time SSO token",
    description: "Uses up the token and signs in like /api/user/login (device row and bearer token).",
    auth: false,
    body: ssoLoginSchema,
    success: { description: `'${AUTH_MESSAGES.loggedIn}'`, data: LoginResultSchema },
    errors: { 401: `'${AUTH_MESSAGES.ssoInvalid}' (unknown, expired or used)` },
    async handler({ ctx, req, body: input }) {
      const { db, config, clock } = ctx;
      const userId = await consumeOneTimeToken(db, { purpose: "sso", token: input.access_token });
      const user = userId === null ? undefined : await findUserById(db, userId);
      if (!user) throw new DomainError("sso_token_invalid", AUTH_MESSAGES.ssoInvalid);
      const device = signInDevice(input, req.headers["user-agent"], clientHintsOf(req.headers));
      const { token } = await issueToken(db, { userId: user.id, device, ttlDays: config.tokenTtlDays, clock });
      await afterSignIn(ctx, req, user, device);
      return { data: { token, user: publicUser(user) }, message: AUTH_MESSAGES.loggedIn };
    },
  }),

  // Login CSRF guard: a /login-sso link may carry someone else's token, so the portal first shows whose
  // account the token opens ('Continue as {email}') and exchanges it only when that button is pressed.
  route({
    method: "post",
    path: "/api/auth/sso-token/account",
    operationId: "ssoTokenAccount",
    tags: ["Authentication"],
    summary: "Whose account a one-time SSO token signs in to, without using it",
    description:
      "Answers the email of the account a live SSO token (from /api/auth/sso-token) belongs to. The token is not used up: /api/auth/sso-login-with-token still exchanges it once. POST, so the token never appears in a URL or an access log.",
    auth: false,
    body: ssoAccountSchema,
    success: { description: "The token is live", data: z.strictObject({ email: z.string() }) },
    errors: { 401: `'${AUTH_MESSAGES.ssoInvalid}' (unknown, expired or used)` },
    async handler({ ctx: { db }, body: input }) {
      const userId = await peekOneTimeToken(db, { purpose: "sso", token: input.access_token });
      const user = userId === null ? undefined : await findUserById(db, userId);
      if (!user) throw new DomainError("sso_token_invalid", AUTH_MESSAGES.ssoInvalid);
      return { data: { email: user.email }, message: AUTH_MESSAGES.ssoValid };
    },
  }),

  // Desktop hand-off: the browser half of a Desktop sign-in (a token whose device is 'Desktop') gets
  // a short code that the desktop app redeems for the same token (lib/desktop-codes.ts).
  route({
    method: "post",
    path: "/api/auth/desktop-code/issue",
    operationId: "issueDesktopCode",
    tags: ["Authentication"],
    summary: "A code that hands this desktop sign-in to the desktop app",
    description:
      "For a bearer token whose device has platform 'Desktop' (a desktop sign-in made in the browser). The code (8 characters of 23456789ABCDEFGHJKLMNPQRSTUVWXYZ, shown XXXX-XXXX) is valid 300 seconds (real time), single use, and /api/auth/desktop-code redeems it for this same bearer token. A new code retires the older codes of the token. Stored as sha256; the token only encrypted (AES-256-GCM, key HKDF-SHA256 of the code with a per-row salt). No request body.",
    auth: true,
    success: {
      description: `'${AUTH_MESSAGES.desktopCodeCreated}'`,
      data: z.strictObject({
        code: z.string().regex(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/),
        expires_in: z.literal(DESKTOP_CODE_TTL_SECONDS).meta({ override: { type: "integer" }, description: "Seconds." }),
      }),
    },
    errors: { 403: `'${AUTH_MESSAGES.desktopCodeNotDesktop}' (the token's device is not 'Desktop')` },
    async handler({ ctx: { db }, req, auth: { user, tokenId, deviceId } }) {
      const device = await db.selectFrom("devices").select("platform").where("id", "=", deviceId).executeTakeFirst();
      if (device?.platform !== "Desktop") throw new DomainError("not_desktop", AUTH_MESSAGES.desktopCodeNotDesktop);
      // requireAuth accepted this header's token.
      const token = bearerToken(req.headers.authorization)!;
      const { code, expiresIn } = await createDesktopCode(db, { token, tokenId, userId: user.id });
      return { data: { code, expires_in: expiresIn }, message: AUTH_MESSAGES.desktopCodeCreated };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/desktop-code",
    operationId: "redeemDesktopCode",
    tags: ["Authentication"],
    summary: "Redeem a desktop code for its bearer token",
    description:
      "Uses up the code and answers with the bearer token it was issued for (the same token, which must still be live) and its user. Every request counts against the client address, right or wrong: DESKTOP_CODE_MAX_PER_IP per 10 minutes (real time), then 429.",
    auth: false,
    body: desktopCodeSchema,
    success: { description: `'${AUTH_MESSAGES.loggedIn}'`, data: LoginResultSchema },
    errors: {
      422: `'${AUTH_MESSAGES.desktopCodeInvalid}' (missing, malformed, unknown, used, older than 300 s, or its token was revoked; also under errors.fields.code)`,
      429: rateLimited("'Too many attempts. Please try again in N minutes.'"),
    },
    // Every attempt counts against the client address (DESKTOP_CODE_MAX_PER_IP per 10 minutes,
    // real time), right or wrong, before the code is looked at.
    async before({ ctx: { limiter, config }, req }) {
      const attempts = await limiter.hit(`desktop-code:ip:${clientAddressKey(req.ip)}`, config.desktopCodes.windowSeconds);
      if (attempts.count > config.desktopCodes.maxPerIp) {
        const wait = secondsUntil(attempts.resetAt);
        throw new DomainError("rate_limited", tooManyDesktopCodeAttempts(wait), {
          headers: { "Retry-After": String(wait) },
          text: text("messages:auth.tooManyDesktopCodeAttempts", { count: minutesOf(wait) }),
        });
      }
    },
    async handler({ ctx, req, body: input }) {
      const redeemed = await redeemDesktopCode(ctx.db, input.code);
      if (!redeemed) {
        throw new DomainError("code_invalid", AUTH_MESSAGES.desktopCodeInvalid, { field: "code" });
      }
      // The sign-in itself was made (and checked for a new device) in the browser; the app's own
      // device id, when it sends one, is checked too.
      const deviceKey = parseDeviceKey(req.headers[DEVICE_KEY_HEADER]);
      if (deviceKey) await noteSignIn(ctx, { ...eventSource(req), user: redeemed.user, deviceKey });
      else await noteSecurityEvent(ctx, { userId: redeemed.user.id, kind: "signed_in", ...eventSource(req) });
      return { data: { token: redeemed.token, user: publicUser(redeemed.user) }, message: AUTH_MESSAGES.loggedIn };
    },
  }),
];
