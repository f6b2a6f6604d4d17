import { z } from "zod";
import { route } from "../contract/route";
import { claimIdTokenUse } from "../../identity/id-tokens";
import {
  LINK_MESSAGES,
  LinkedAccountSchema,
  connectLink,
  disconnectLink,
  listLinks,
  providerLabel,
  verifyProviderToken,
} from "../../identity/account-links";
import { rateLimited } from "../contract/responses";
import {
  DELETION_MAX_WRONG_PASSWORDS,
  DELETION_MESSAGES,
  DELETION_WRONG_PASSWORD_WINDOW_SECONDS,
  deletionFailureKey,
  eraseAccount,
} from "../../identity/account-deletion";
import { releaseGatewayResources, releasePayPalResources } from "../../payments/account-deletion";
import { eraseVpnAccount } from "../../vpn/configurations";
import { consumeCode, invalidCodeError, verifyCode } from "../../identity/codes";
import { SUBJECTS, accountDeletedEmail, deletionCodeEmail } from "../../identity/emails";
import { deliverSecurityEmail, emailOrigin } from "../../identity/sign-in-alerts";
import { eventSource } from "../security";
import { PaidPlanLossSchema, RefundOfferSchema, paidPlanLossOf, refundOfferOf } from "../../billing/deletion-losses";
import { confirmationCodeRoute } from "./confirmation-code";
import { DomainError, type ErrorCode, type FieldErrors } from "../../platform/errors";
import {
  AUTHENTICATION_CODE_REQUIRED,
  TWO_FACTOR_MESSAGES,
  TwoFactorStatusSchema,
  confirmSecondFactor,
  giveBackRecoveryCode,
  isTwoFactorEnabled,
  twoFactorStatus,
} from "../../identity/two-factor";
import { UserSchema, publicUser, setLanguage } from "../../identity/users";
import { CODE_FORMAT, body, cleanedText, idField, languageField, linkTypeField } from "../validation";
import { LANGUAGES, asLanguage, text } from "../../platform/i18n";
import { activeSubscription } from "../../payments/plans";
import { paymentFailedOf } from "../../billing/dunning";
import { PaymentFailedSchema } from "./dunning";
import { DownloadLinksSchema } from "./public";
import { NextChargeFields, SubscriptionSchema, publicSubscription } from "./subscription";
import { nextChargeOf } from "../../billing/notices";
import { EndedPlanSchema, endedPlanOf } from "../../billing/ended-plan";
import { idTokenFields } from "./user";

const connectSchema = body({
  name: cleanedText("name").meta({ description: "Accepted for the spec's payload; not used." }),
  ...idTokenFields(),
  link_type: linkTypeField("link type"),
}).meta({ id: "ConnectRequest" });

const disconnectSchema = body({
  link_id: idField("link id").meta({
    description: "id from /api/account/link-list (a number, or digits in form data).",
  }),
  link_type: linkTypeField("link type"),
}).meta({ id: "DisconnectRequest" });

const deleteAccountSchema = body({
  password: z
    .string({ error: "The password field must be text." })
    .max(1024, { error: "The password field must not be longer than 1024 characters." })
    .optional()
    .meta({ description: "The account's password, compared exactly as sent. Required when the account has one." }),
  code: z
    .string({ error: CODE_FORMAT })
    .trim()
    .optional()
    .meta({ description: "For an account without a password: the 6-digit code from POST /api/account/delete/send-code." }),
  authentication_code: z
    .preprocess(
      (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
      z
        .string({ error: AUTHENTICATION_CODE_REQUIRED })
        .trim()
        .max(40, { error: TWO_FACTOR_MESSAGES.recoveryInvalid })
        .optional(),
    )
    .meta({
      description:
        "Required when the account has two-factor authentication on: a current 6-digit code of the authenticator app (a time step not used before; spaces ignored) or an unused recovery code (xxxxx-xxxxx, any case, dash optional). Six digits are taken as an app code, anything else as a recovery code.",
      override: { type: "string", maxLength: 40 },
    }),
}).meta({
  id: "DeleteAccountRequest",
  // The handler wants the password (an account with one) or the code (an account without): one of them.
  override: {
    anyOf: [
      { required: ["password"], properties: { password: { minLength: 1 } } },
      { required: ["code"], properties: { code: { pattern: "^\\s*\\d{6}\\s*$" } } },
    ],
  },
});

const languageSchema = body({ language: languageField() }).meta({ id: "SetLanguageRequest" });

export const LANGUAGE_SAVED = "Your language was saved.";

function fieldError(code: ErrorCode, field: string, message: string): DomainError {
  return new DomainError(code, message, { field });
}

export const accountRoutes = [
  // The account's language (issue 36, docs/decisions/064): its emails and invoices are written in it.
  route({
    method: "put",
    path: "/api/account/language",
    operationId: "setAccountLanguage",
    tags: ["Account"],
    summary: "Set the account's language",
    description:
      "Sets the language the account's emails and invoice PDFs are written in: en, de, fr or es (any case). The answers' messages follow each request's Accept-Language instead, whatever the account's language.",
    auth: true,
    body: languageSchema,
    success: {
      description: `'${LANGUAGE_SAVED}'`,
      data: z.strictObject({ language: z.enum(LANGUAGES) }).meta({ id: "AccountLanguage" }),
    },
    async handler({ ctx, auth, body: input }) {
      await setLanguage(ctx.db, auth.user.id, input.language, ctx.clock);
      return { data: { language: input.language }, message: LANGUAGE_SAVED };
    },
  }),

  // The portal's account home in one round trip instead of four (docs/decisions/013-performance-budgets.md).
  route({
    method: "get",
    path: "/api/account/home",
    operationId: "accountHome",
    tags: ["Account"],
    summary: "Everything the account home shows, in one call",
    description:
      "The answers of /api/me, /api/subscription/active, /api/account/link-list and /api/download-links together, read in one request: `user`, `subscription` (or null) with the product's `now`, `next_charge` and `ends_on`, `linked` and `downloads`, and `two_factor` (as /api/account/two-factor answers), and `ended_plan`, the plan that ended last while none is active.",
    auth: true,
    success: {
      description: "The account home",
      data: z
        .strictObject({
          user: UserSchema,
          subscription: SubscriptionSchema.nullable(),
          now: z.string().meta({
            format: "date-time",
            description: "The product's current time (ISO 8601); count days left from it, not from the caller's clock.",
          }),
          linked: z.array(LinkedAccountSchema),
          downloads: DownloadLinksSchema,
          two_factor: TwoFactorStatusSchema,
          payment_failed: PaymentFailedSchema.nullable().meta({
            description: "The unpaid renewal within its grace period (as GET /api/billing/past-due answers), else null.",
          }),
          ...NextChargeFields,
          ended_plan: EndedPlanSchema,
        })
        .meta({ id: "AccountHome" }),
    },
    async handler({ ctx, auth }) {
      const now = ctx.clock.now();
      const [subscription, linked, twoFactor, paymentFailed] = await Promise.all([
        activeSubscription(ctx.db, auth.user.id, now),
        listLinks(ctx.db, auth.user.id),
        twoFactorStatus(ctx.db, auth.user.id),
        paymentFailedOf(ctx.dunning, auth.user.id),
      ]);
      const [next, endedPlan] = await Promise.all([
        nextChargeOf(ctx.notices, subscription),
        endedPlanOf(ctx.db, auth.user.id, subscription !== undefined),
      ]);
      return {
        data: {
          user: publicUser(auth.user),
          subscription: subscription ? publicSubscription(subscription) : null,
          now: now.toISOString(),
          linked,
          downloads: { windows: ctx.config.downloads.windows, mac: ctx.config.downloads.mac },
          two_factor: twoFactor,
          payment_failed: paymentFailed,
          ...next,
          ended_plan: endedPlan,
        },
      };
    },
  }),

  route({
    method: "post",
    path: "/api/account/link-list",
    operationId: "linkList",
    tags: ["Account"],
    summary: "Google and Apple accounts linked to this account",
    description: "No request body. The Google and Apple accounts linked to this account (at most one of each).",
    auth: true,
    success: {
      description: "The linked accounts",
      data: z.strictObject({ linked: z.array(LinkedAccountSchema) }),
    },
    handler: async ({ ctx, auth }) => ({ data: { linked: await listLinks(ctx.db, auth.user.id) } }),
  }),

  // Connects a Google or Apple account to the signed-in account. Its ID token is verified like a
  // sign-in's (the provider must also have verified its email); failures are 422 here, not 401,
  // which would read as the session being gone.
  route({
    method: "post",
    path: "/api/account/connect",
    operationId: "connectAccount",
    tags: ["Account"],
    summary: "Connect a Google or Apple account",
    description:
      "Verifies the ID token like /api/user/thirdparty-login (and the provider must assert email_verified), then links the provider account (its `sub`) to this account.",
    auth: true,
    body: connectSchema,
    success: { description: `'${LINK_MESSAGES.connected}'`, data: LinkedAccountSchema },
    errors: {
      404: "'Sign-in with Google is not available.' (Apple likewise): the provider is off (no credentials outside sandbox mode).",
      409: "'This Google account is already connected to another account.', 'Your account is already connected to Google.', or 'This Google sign-in was already used. Please connect Google again.' (the ID token was used before; Apple likewise)",
      422: "Validation (errors.fields), or the ID token is refused (also under errors.fields.firebase_id_token): 'The Google sign-in could not be verified. Please try again.', 'The email does not match your Google account.', 'Google has not verified this email address.' (Apple likewise). Not 401, which would mean the session is gone.",
      503: "'Sign-in with Google is unavailable right now. Please try again later.' (Apple likewise)",
    },
    async handler({ ctx, auth, body: input }) {
      const claims = await verifyProviderToken(ctx.config, {
        linkType: input.link_type,
        idToken: input.firebase_id_token,
        email: input.email,
        purpose: "connect",
      });
      if (!claims.emailVerified) {
        const message = LINK_MESSAGES.connectEmailUnverified(providerLabel(input.link_type));
        const provider = { provider: providerLabel(input.link_type) };
        throw new DomainError("provider_token_rejected", message, { field: "firebase_id_token", text: text("messages:links.connectEmailUnverified", provider) });
      }
      // An ID token is used once, here as at sign-in: a copy must not connect a second time.
      if (!(await claimIdTokenUse(ctx.db, input.firebase_id_token, claims.payload))) {
        throw new DomainError("id_token_replayed", LINK_MESSAGES.connectReplayed(providerLabel(input.link_type)), {
          text: text("messages:links.connectReplayed", { provider: providerLabel(input.link_type) }),
        });
      }
      const link = await connectLink(ctx.db, ctx.clock, { userId: auth.user.id, linkType: input.link_type, claims });
      return { data: link, message: LINK_MESSAGES.connected };
    },
  }),

  route({
    method: "post",
    path: "/api/account/disconnect",
    operationId: "disconnectAccount",
    tags: ["Account"],
    summary: "Disconnect a Google or Apple account",
    description:
      "Removes one of this account's links. An account keeps at least one way to sign in: without a password, its only link cannot be removed.",
    auth: true,
    body: disconnectSchema,
    success: { description: `'${LINK_MESSAGES.disconnected}' (data: null)`, data: z.null() },
    errors: {
      404: "'Connection not found.' (no such link of this account and type)",
      409: "'Set a password before disconnecting your only way to sign in.'",
    },
    async handler({ ctx, auth, body: input }) {
      await disconnectLink(ctx.db, { userId: auth.user.id, linkId: input.link_id, linkType: input.link_type });
      return { data: null, message: LINK_MESSAGES.disconnected };
    },
  }),

  // The emailed code that confirms deleting an account without a password: the code machinery and
  // limits of every emailed code, under its own purpose 'delete' (docs/decisions/015).
  confirmationCodeRoute({
    path: "/api/account/delete/send-code",
    operationId: "sendAccountDeletionCode",
    summary: "Email the code that confirms deleting an account without a password",
    subject: SUBJECTS.deletionCode,
    purpose: "delete",
    messages: { sent: DELETION_MESSAGES.codeSent, notSent: DELETION_MESSAGES.codeNotSent, hasPassword: DELETION_MESSAGES.hasPassword },
    compose: deletionCodeEmail,
  }),

  route({
    method: "get",
    path: "/api/account/delete/preview",
    operationId: "accountDeletionPreview",
    tags: ["Account"],
    summary: "What deleting the account asks for and loses",
    description:
      "For the delete page, before the form: how deletion is confirmed (`confirm_with`, and `two_factor` when an authentication code is needed too), the active plan's paid days that would be lost (counted at the API's clock from the subscription's end), and the payment the 30-day money-back guarantee still refunds (by the refund's own rule), to offer first.",
    auth: true,
    success: {
      description: "What deleting the account asks for and loses",
      data: z
        .strictObject({
          confirm_with: z.enum(["password", "code"]).meta({
            description: "`password` for an account with one; `code` (POST /api/account/delete/send-code) for an account without.",
          }),
          two_factor: z.boolean().meta({ description: "Two-factor authentication is on: POST /api/account/delete also needs `authentication_code`." }),
          now: z.string().meta({ format: "date-time", description: "The product's current time, at which the days are counted." }),
          paid_plan: PaidPlanLossSchema,
          refund: RefundOfferSchema,
        })
        .meta({ id: "AccountDeletionPreview" }),
    },
    async handler({ ctx, auth }) {
      const now = ctx.clock.now();
      const userId = auth.user.id;
      const [twoFactor, paidPlan, refund] = await Promise.all([
        isTwoFactorEnabled(ctx.db, userId),
        paidPlanLossOf(ctx.db, userId, now),
        refundOfferOf(ctx.db, userId, now),
      ]);
      return {
        data: {
          confirm_with: auth.user.password_hash ? ("password" as const) : ("code" as const),
          two_factor: twoFactor,
          now: now.toISOString(),
          paid_plan: paidPlan,
          refund,
        },
      };
    },
  }),

  route({
    method: "post",
    path: "/api/account/delete",
    operationId: "deleteAccount",
    tags: ["Account"],
    summary: "Delete the signed-in account",
    description:
      "Confirmed by the password, or for an account without one by the emailed code, and, when two-factor authentication is on, by `authentication_code` too (an app code or a recovery code; wrong ones count on the account's budget of wrong second factors, TWO_FACTOR_MAX_FAILURES_PER_ACCOUNT per LOGIN_FAILURE_WINDOW_SECONDS, shared with the sign-in step). Nothing is used up unless every proof is right. First at the gateway (idempotent): auto-renewal of card subscriptions cancelled, saved cards detached. Then one database transaction: every credential (tokens and devices, passkeys, SSO, reset and desktop codes, two-factor, Google/Apple links, pending codes and challenges, the VPN service credentials), the security log and saved cards deleted, WireGuard configurations revoked (their keys leave the servers' peers list), personal data erased; transactions, invoices and subscriptions are kept (amounts, dates) and point to an anonymised account. No way of signing in accepts a deleted account. The email can then sign up again as a new account. Once committed, 'Your VPN account was deleted' is emailed to the address the account had (a mail failure does not undo or fail the deletion). Wrong passwords: 5 per account per 15 minutes.",
    auth: true,
    body: deleteAccountSchema,
    success: { description: `'${DELETION_MESSAGES.deleted}' (data: null)`, data: z.null() },
    errors: {
      422: `Validation (errors.fields), 'The password is incorrect.' (under errors.fields.password), 'Please enter your password.', the code refused (under errors.fields.code) as in CodeRejected, or with two-factor on '${AUTHENTICATION_CODE_REQUIRED}', '${TWO_FACTOR_MESSAGES.codeInvalid}' or '${TWO_FACTOR_MESSAGES.recoveryInvalid}' (under errors.fields.authentication_code). Every missing proof is named at once.`,
      429: rateLimited("'Too many wrong passwords. Please try again in N minutes.' or 'Too many wrong authentication codes for this account. Please try again in N minutes.'"),
      502: `'${DELETION_MESSAGES.gatewayFailed}'`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const { db, clock, limiter } = ctx;
      const user = auth.user;
      const twoFactorOn = await isTwoFactorEnabled(db, user.id);
      // Every missing proof at once, so that the form can show each next to its field.
      const missing: FieldErrors = {};
      if (user.password_hash && !input.password) missing.password = [DELETION_MESSAGES.passwordRequired];
      if (!user.password_hash && !input.code) missing.code = [DELETION_MESSAGES.codeRequired];
      if (twoFactorOn && !input.authentication_code) missing.authentication_code = [AUTHENTICATION_CODE_REQUIRED];
      const [firstMissing] = Object.values(missing);
      if (firstMissing) throw new DomainError("validation_failed", firstMissing[0]!, { fields: missing });

      let emailed: Awaited<ReturnType<typeof verifyCode>> | null = null;
      if (user.password_hash) {
        // The try is taken before argon2, so parallel guesses get no more than 5 evaluations; a right
        // password gives it back.
        const limit: [string, number] = [deletionFailureKey(user.id), DELETION_MAX_WRONG_PASSWORDS];
        const reservation = await limiter.reserve(...limit, DELETION_WRONG_PASSWORD_WINDOW_SECONDS);
        if (!reservation) {
          const seconds = (await limiter.blockedFor([limit])) ?? 1;
          throw new DomainError("rate_limited", DELETION_MESSAGES.tooManyTries(Math.ceil(seconds / 60)), {
            headers: { "Retry-After": String(seconds) },
            text: text("messages:confirm.tooManyPasswords", { count: Math.ceil(seconds / 60) }),
          });
        }
        if (!(await ctx.passwords.verify(user.password_hash, input.password ?? ""))) {
          throw fieldError("wrong_password", "password", DELETION_MESSAGES.wrongPassword);
        }
        await limiter.release([reservation]);
      } else {
        const code = input.code ?? "";
        if (!/^\d{6}$/.test(code)) throw fieldError("validation_failed", "code", CODE_FORMAT);
        // Used up only once the second factor is right too, so a wrong authentication code costs no new email.
        emailed = await verifyCode(db, clock, { email: user.email, purpose: "delete", code, field: "code" });
      }
      // The first factor was right: only now is the second one looked at (and, when right, used up).
      const secondFactor = twoFactorOn ? await confirmSecondFactor(ctx, user.id, input.authentication_code ?? "", "authentication_code") : null;

      // Captured before the erasure replaces it with the tombstone.
      const address = user.email;
      const lng = asLanguage(user.language);
      try {
        // A parallel request may have used the emailed code meanwhile.
        if (emailed && !(await consumeCode(db, emailed))) throw invalidCodeError("code");
        await releaseGatewayResources(ctx.payments, user.id);
        await releasePayPalResources(ctx.paypal, user.id);
        const now = clock.now();
        // The VPN's keys leave the servers' peers list and the service credentials go, in the same transaction.
        await eraseAccount(db, user, now.toISOString(), (trx) => eraseVpnAccount(trx, user.id, now));
      } catch (error) {
        // Nothing was deleted: the recovery code that confirmed it may confirm the retry.
        if (secondFactor?.recoveryCode) await giveBackRecoveryCode(db, user.id, secondFactor.recoveryCode);
        throw error;
      }
      // After the commit, and best effort: a lost email neither fails nor undoes the deletion.
      await deliverSecurityEmail(ctx, accountDeletedEmail(address, emailOrigin(eventSource(req), clock.now()), ctx.config.publicUrl, lng));
      return { data: null, message: DELETION_MESSAGES.deleted };
    },
  }),
];
