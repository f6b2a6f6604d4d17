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
import { useCode } from "../../identity/codes";
import { SUBJECTS, deletionCodeEmail } from "../../identity/emails";
import { confirmationCodeRoute } from "./confirmation-code";
import { DomainError, type ErrorCode } from "../../platform/errors";
import { verifyPassword } from "../../identity/passwords";
import { TwoFactorStatusSchema, twoFactorStatus } from "../../identity/two-factor";
import { UserSchema, publicUser } from "../../identity/users";
import { CODE_FORMAT, body, cleanedText, idField, linkTypeField } from "../validation";
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

function fieldError(code: ErrorCode, field: string, message: string): DomainError {
  return new DomainError(code, message, { field });
}

export const accountRoutes = [
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
        throw new DomainError("provider_token_rejected", message, { field: "firebase_id_token" });
      }
      // An ID token is used once, here as at sign-in: a copy must not connect a second time.
      if (!(await claimIdTokenUse(ctx.db, input.firebase_id_token, claims.payload))) {
        throw new DomainError("id_token_replayed", LINK_MESSAGES.connectReplayed(providerLabel(input.link_type)));
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
    method: "post",
    path: "/api/account/delete",
    operationId: "deleteAccount",
    tags: ["Account"],
    summary: "Delete the signed-in account",
    description:
      "Confirmed by the password, or for an account without one by the emailed code. First at the gateway (idempotent): auto-renewal of card subscriptions cancelled, saved cards detached. Then one database transaction: every credential (tokens and devices, passkeys, SSO, reset and desktop codes, two-factor, Google/Apple links, pending codes and challenges), the security log and saved cards deleted, personal data erased; transactions, invoices and subscriptions are kept (amounts, dates) and point to an anonymised account. No way of signing in accepts a deleted account. The email can then sign up again as a new account. Wrong passwords: 5 per account per 15 minutes.",
    auth: true,
    body: deleteAccountSchema,
    success: { description: `'${DELETION_MESSAGES.deleted}' (data: null)`, data: z.null() },
    errors: {
      422: "Validation (errors.fields), 'The password is incorrect.' (under errors.fields.password), 'Please enter your password.', or the code is refused (under errors.fields.code) as in CodeRejected.",
      429: rateLimited("'Too many wrong passwords. Please try again in N minutes.'"),
      502: `'${DELETION_MESSAGES.gatewayFailed}'`,
    },
    async handler({ ctx, auth, body: input }) {
      const { db, clock, limiter } = ctx;
      const user = auth.user;
      if (user.password_hash) {
        if (!input.password) throw fieldError("validation_failed", "password", DELETION_MESSAGES.passwordRequired);
        // The try is taken before argon2, so parallel guesses get no more than 5 evaluations; a right
        // password gives it back.
        const limit: [string, number] = [deletionFailureKey(user.id), DELETION_MAX_WRONG_PASSWORDS];
        const reservation = await limiter.reserve(...limit, DELETION_WRONG_PASSWORD_WINDOW_SECONDS);
        if (!reservation) {
          const seconds = (await limiter.blockedFor([limit])) ?? 1;
          throw new DomainError("rate_limited", DELETION_MESSAGES.tooManyTries(Math.ceil(seconds / 60)), {
            headers: { "Retry-After": String(seconds) },
          });
        }
        if (!(await verifyPassword(user.password_hash, input.password))) {
          throw fieldError("wrong_password", "password", DELETION_MESSAGES.wrongPassword);
        }
        await limiter.release([reservation]);
      } else {
        if (!input.code) throw fieldError("validation_failed", "code", DELETION_MESSAGES.codeRequired);
        if (!/^\d{6}$/.test(input.code)) throw fieldError("validation_failed", "code", CODE_FORMAT);
        await useCode(db, clock, { email: user.email, purpose: "delete", code: input.code, field: "code" });
      }
      await releaseGatewayResources(ctx.payments, user.id);
      await releasePayPalResources(ctx.paypal, user.id);
      await eraseAccount(db, user, clock.now().toISOString());
      return { data: null, message: DELETION_MESSAGES.deleted };
    },
  }),
];
