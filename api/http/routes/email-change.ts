import { z } from "zod";
import { responses, rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import { confirmationCodeRoute } from "./confirmation-code";
import { SUBJECTS, emailChangeAuthCodeEmail } from "../../identity/emails";
import {
  EMAIL_CHANGE_MESSAGES,
  resendEmailChangeCode,
  revertEmailChange,
  startEmailChange,
  verifyEmailChange,
} from "../../identity/email-change";
import { UserSchema, publicUser } from "../../identity/users";
import { syncCustomerEmail } from "../../payments/customer-email";
import { DataExportSchema, exportAccountData, reserveExport } from "../../billing/data-export";
import { recordSecurityEvent } from "../../identity/security-events";
import { clientAddressKey } from "../../platform/trust-proxy";
import { eventSource } from "../security";
import { CODE_FORMAT, body, codeField, emailField, requiredText } from "../validation";

// Changing the account's email and the copy of its data (issue 22, docs/decisions/036; the rules are
// in identity/email-change.ts and billing/data-export.ts).

const startSchema = body({
  email: emailField().meta({ description: "The new address (trimmed, lower-cased)." }),
  password: z
    .string({ error: "The password field must be text." })
    .max(1024, { error: "The password field must not be longer than 1024 characters." })
    .optional()
    .meta({ description: "The account's current password, compared exactly as sent. Required when the account has one." }),
  code: z
    .string({ error: CODE_FORMAT })
    .trim()
    .regex(/^\d{6}$/, { error: CODE_FORMAT })
    .optional()
    .meta({
      description: "For an account without a password: the 6-digit code from POST /api/account/email/send-auth-code.",
      override: { pattern: "^\\s*\\d{6}\\s*$" },
    }),
}).meta({ id: "EmailChangeStartRequest" });

const verifySchema = body({ code: codeField() }).meta({ id: "EmailChangeVerifyRequest" });

const revertSchema = body({
  token: requiredText("token", { max: 200 }).meta({ description: "The token of the link in 'Your email address was changed'." }),
}).meta({ id: "EmailRevertRequest" });

export const emailChangeRoutes = [
  confirmationCodeRoute({
    path: "/api/account/email/send-auth-code",
    operationId: "sendEmailChangeAuthCode",
    summary: "Email the code that lets an account without a password change its email",
    subject: SUBJECTS.emailChangeAuthCode,
    purpose: "email_change_auth",
    messages: {
      sent: EMAIL_CHANGE_MESSAGES.authCodeSent,
      notSent: EMAIL_CHANGE_MESSAGES.authCodeNotSent,
      hasPassword: EMAIL_CHANGE_MESSAGES.hasPassword,
    },
    compose: emailChangeAuthCodeEmail,
  }),

  route({
    method: "post",
    path: "/api/account/email/start",
    operationId: "startEmailChange",
    tags: ["Account"],
    summary: "Start changing the account's email: a code goes to the new address",
    description:
      "Confirmed by the current password, or for an account without one by the code from /api/account/email/send-auth-code. Emails a 6-digit code to the new address (subject 'Confirm your new email address'), with the limits of every emailed code plus the hourly cap of the new address. When the new address already has an account the answer is the same, and that address gets an email saying so instead of a code. Wrong passwords: 5 per account per 15 minutes.",
    auth: true,
    body: startSchema,
    success: { description: `'${EMAIL_CHANGE_MESSAGES.codeSent}' (data: null)`, data: z.null() },
    errors: {
      422: "Validation (errors.fields), 'This is already your email address.' (under email), 'The password is incorrect.' or 'Please enter your current password.' (under password), or the current address's code is refused (under code) as in CodeRejected.",
      429: responses.CodeRequestLimited,
      502: `'${EMAIL_CHANGE_MESSAGES.notSent}' (the mail server is unavailable; nothing was stored)`,
    },
    async handler({ ctx, req, auth, body: input }) {
      await startEmailChange(ctx, {
        user: auth.user,
        newEmail: input.email,
        password: input.password,
        code: input.code,
        addressKey: clientAddressKey(req.ip),
      });
      return { data: null, message: EMAIL_CHANGE_MESSAGES.codeSent };
    },
  }),

  route({
    method: "post",
    path: "/api/account/email/resend",
    operationId: "resendEmailChangeCode",
    tags: ["Account"],
    summary: "Send the pending email change's code again",
    description: "No request body. The same email as /api/account/email/start, to the same new address, with the same limits.",
    auth: true,
    success: { description: `'${EMAIL_CHANGE_MESSAGES.resent}' (data: null)`, data: z.null() },
    errors: {
      422: `'${EMAIL_CHANGE_MESSAGES.noPendingChange}' (no change was started)`,
      429: responses.CodeRequestLimited,
      502: `'${EMAIL_CHANGE_MESSAGES.notSent}'`,
    },
    async handler({ ctx, req, auth }) {
      await resendEmailChangeCode(ctx, { user: auth.user, addressKey: clientAddressKey(req.ip) });
      return { data: null, message: EMAIL_CHANGE_MESSAGES.resent };
    },
  }),

  route({
    method: "post",
    path: "/api/account/email/verify",
    operationId: "verifyEmailChange",
    tags: ["Account"],
    summary: "Confirm the new email with its code",
    description:
      "Changes the account's email to the pending new address. An address that has an account (from the start, meanwhile, or by a parallel change) answers 'Invalid verification code' like a wrong code. The previous address gets 'Your email address was changed' with a link (7 days, single use) to put it back. Sessions stay; Google and Apple links stay. The card gateway's customer (when there is one) gets the new address too, so its receipts follow.",
    auth: true,
    body: verifySchema,
    success: { description: `'${EMAIL_CHANGE_MESSAGES.changed}'`, data: UserSchema },
    errors: {
      422: responses.CodeRejected,
    },
    async handler({ ctx, req, auth, body: input }) {
      const email = await verifyEmailChange(ctx, { user: auth.user, code: input.code, source: eventSource(req) });
      await syncCustomerEmail(ctx.payments, auth.user.id, ctx.logger);
      return { data: publicUser({ ...auth.user, email }), message: EMAIL_CHANGE_MESSAGES.changed };
    },
  }),

  route({
    method: "post",
    path: "/api/account/email/revert",
    operationId: "revertEmailChange",
    tags: ["Account"],
    summary: "Put the previous email back (the link in 'Your email address was changed')",
    description:
      "No bearer token: the link's token is the proof. Puts the previous address back and signs out every session of the account. The link works once, for 7 days.",
    auth: false,
    body: revertSchema,
    success: { description: `'${EMAIL_CHANGE_MESSAGES.reverted}' (data: null)`, data: z.null() },
    errors: {
      409: `'${EMAIL_CHANGE_MESSAGES.revertTaken}' (nothing changed; the link stays unused)`,
      422: `Validation, or '${EMAIL_CHANGE_MESSAGES.revertInvalid}'`,
    },
    async handler({ ctx, req, body: input }) {
      const userId = await revertEmailChange(ctx, { token: input.token, source: eventSource(req) });
      await syncCustomerEmail(ctx.payments, userId, ctx.logger);
      return { data: null, message: EMAIL_CHANGE_MESSAGES.reverted };
    },
  }),

  route({
    method: "get",
    path: "/api/account/export",
    operationId: "exportAccountData",
    tags: ["Account"],
    summary: "A copy of the account's data",
    description:
      "The account, its linked Google/Apple accounts (no tokens or subjects), subscriptions, payments, invoices, saved cards (brand and last four only), devices and security events. No password hash, token hashes, two-factor secrets or gateway ids. 5 per account per hour; each one is recorded as a 'data_exported' security event.",
    auth: true,
    success: { description: "The account's data", data: DataExportSchema },
    errors: {
      429: rateLimited("'You can download your data 5 times an hour. Please try again in N minutes.'"),
    },
    async handler({ ctx, req, auth }) {
      await reserveExport(ctx.limiter, auth.user.id);
      const now = ctx.clock.now();
      await recordSecurityEvent(ctx.db, { userId: auth.user.id, kind: "data_exported", ...eventSource(req), at: now });
      return { data: await exportAccountData(ctx.db, auth.user.id, now) };
    },
  }),
];
