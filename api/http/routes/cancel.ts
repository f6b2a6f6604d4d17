import { z } from "zod";
import { asLanguage, localize } from "../../platform/i18n";
import { requestLanguage } from "../envelope";
import { responses } from "../contract/responses";
import { route } from "../contract/route";
import { codeSendDescription } from "./auth";
import { AUTO_RENEWAL_MESSAGES } from "../../billing/auto-renewal";
import { CANCEL_MESSAGES, CANCEL_PROOF_TTL_SECONDS, cancelView, cancelWithProof, createCancelProof } from "../../billing/cancel-without-sign-in";
import { invalidCodeError, sendCode, useCode } from "../../identity/codes";
import { SUBJECTS, cancelCodeEmail } from "../../identity/emails";
import { findUserByEmail } from "../../identity/users";
import { clientAddressKey } from "../../platform/trust-proxy";
import { eventSource } from "../security";
import { EMAIL_REQUIRED, body, codeField, emailField, requiredText } from "../validation";

/*
 * Cancel without signing in (issue 22, docs/decisions/038): an emailed 'cancel' code, then a proof
 * that can only show the account's subscription and turn its auto-renewal off (15 minutes).
 */

const sendSchema = body({ email: emailField({ required: EMAIL_REQUIRED }) }).meta({ id: "CancelCodeRequest" });

const verifySchema = body({
  email: emailField({ required: EMAIL_REQUIRED }),
  code: codeField(),
}).meta({ id: "CancelVerifyRequest" });

const proofSchema = body({
  proof: requiredText("proof", { max: 200, required: CANCEL_MESSAGES.proofInvalid }).meta({
    description: "data.proof from /api/anonymous/cancel/verify.",
  }),
}).meta({ id: "CancelProofRequest" });

const CancelSubscriptionSchema = z
  .strictObject({
    title: z.string(),
    subscription_by: z.enum(["stripe", "paypal", "bitpay"]),
    billing_type: z.enum(["recurring", "single"]),
    renews_on: z.string().nullable().meta({ format: "date-time", description: "When it renews by itself; null when it does not." }),
    ends_on: z.string().nullable().meta({ format: "date-time", description: "When it ends, when it does not renew by itself; else null." }),
    can_turn_off: z.boolean().meta({ description: "Whether auto-renewal can be turned off now." }),
    note: z.string().nullable().meta({ description: "Why it cannot (already off, crypto, one-time, within 24 hours of the renewal); null when it can." }),
  })
  .nullable()
  .meta({ id: "CancelSubscription", description: "The account's active subscription, or null when it has none." });

const PROOF_ERRORS = `'${CANCEL_MESSAGES.proofInvalid}' (unknown, used or older than ${CANCEL_PROOF_TTL_SECONDS / 60} minutes; code link_invalid)`;

export const cancelRoutes = [
  route({
    method: "post",
    path: "/api/anonymous/cancel/send-code",
    operationId: "sendCancelCode",
    tags: ["Subscriptions", "Public"],
    summary: "Email the code that lets a visitor who is not signed in turn auto-renewal off",
    description: codeSendDescription(
      `Sends a 'cancel' code (subject '${SUBJECTS.cancelCode}') only when the account exists; its own purpose, so it neither replaces nor unlocks a sign-in code.`,
    ),
    auth: false,
    body: sendSchema,
    success: { description: `'${CANCEL_MESSAGES.codeSent}'`, data: z.null() },
    errors: { 429: responses.CodeRequestLimited, 502: `'${CANCEL_MESSAGES.codeNotSent}' (the mail server is unavailable; nothing was stored)` },
    async handler({ ctx, req, body: { email } }) {
      await sendCode(ctx, {
        email,
        purpose: "cancel",
        addressKey: clientAddressKey(req.ip),
        failureMessage: CANCEL_MESSAGES.codeNotSent,
        compose: async (code) => {
          const user = await findUserByEmail(ctx.db, email);
          return user ? cancelCodeEmail(email, code, asLanguage(user.language)) : null;
        },
      });
      return { data: null, message: CANCEL_MESSAGES.codeSent };
    },
  }),

  route({
    method: "post",
    path: "/api/anonymous/cancel/verify",
    operationId: "verifyCancelCode",
    tags: ["Subscriptions", "Public"],
    summary: "Exchange a cancel code for a cancel proof",
    description: `Checks and uses up the 'cancel' code; answers a proof valid ${CANCEL_PROOF_TTL_SECONDS / 60} minutes (stored hashed; a newer one retires older ones) that can only show the account's subscription and turn its auto-renewal off. Not a session. An email without an account is refused as a wrong code.`,
    auth: false,
    body: verifySchema,
    success: {
      description: `'${CANCEL_MESSAGES.verified}'`,
      data: z.strictObject({ proof: z.string(), expires_at: z.string().meta({ format: "date-time" }) }),
    },
    errors: { 422: responses.CodeRejected },
    async handler({ ctx: { db, clock }, body: input }) {
      await useCode(db, clock, { email: input.email, purpose: "cancel", code: input.code, field: "code" });
      const user = await findUserByEmail(db, input.email);
      // Without an account the stored code was never sent: guessing it is just a wrong code.
      if (!user || user.deleted_at) throw invalidCodeError("code");
      const { proof, expiresAt } = await createCancelProof(db, user.id);
      return { data: { proof, expires_at: expiresAt }, message: CANCEL_MESSAGES.verified };
    },
  }),

  route({
    method: "post",
    path: "/api/anonymous/cancel/subscription",
    operationId: "cancelSubscriptionView",
    tags: ["Subscriptions", "Public"],
    summary: "The subscription a cancel proof may turn auto-renewal off for",
    description: "The proof's account email and its active subscription (plan, renewal or end date, and whether auto-renewal can be turned off now).",
    auth: false,
    body: proofSchema,
    success: {
      description: "The account's email and subscription",
      data: z.strictObject({ email: z.string(), subscription: CancelSubscriptionSchema }),
    },
    errors: { 422: PROOF_ERRORS },
    async handler({ ctx, req, body: input }) {
      const view = await cancelView({ db: ctx.db, clock: ctx.clock }, input.proof);
      // The note (why auto-renewal cannot be turned off) is shown on the page: in the request's language.
      const note = view.subscription?.note;
      if (!note) return { data: view };
      return { data: { ...view, subscription: { ...view.subscription!, note: localize(note, requestLanguage(req)) } } };
    },
  }),

  route({
    method: "post",
    path: "/api/anonymous/cancel/turn-off-auto-renewal",
    operationId: "cancelAutoRenewal",
    tags: ["Subscriptions", "Public"],
    summary: "Turn auto-renewal off with a cancel proof",
    description:
      "Turns off auto-renewal of the proof's account's active subscription exactly as /api/stripe/auto-renewal does (Stripe, the 24-hour rule, past-due invoices, the 'Auto-renewal is off' email with the date and time), uses up the proof and records the security event 'auto_renewal_cancelled'.",
    auth: false,
    body: proofSchema,
    success: {
      description: `'${CANCEL_MESSAGES.turnedOff}'`,
      data: z.strictObject({
        title: z.string(),
        ends_on: z.string().meta({ format: "date-time", description: "When the plan now ends." }),
        turned_off_at: z.string().meta({ format: "date-time", description: "When auto-renewal was turned off (the product's time, UTC)." }),
      }),
    },
    errors: {
      404: `'${CANCEL_MESSAGES.noSubscription}'`,
      409: `'${AUTO_RENEWAL_MESSAGES.ended}'`,
      422: `${PROOF_ERRORS}; '${AUTO_RENEWAL_MESSAGES.tooLate}'; or nothing renews ('${CANCEL_MESSAGES.alreadyOff}', crypto, one-time).`,
    },
    async handler({ ctx, req, body: input }) {
      const done = await cancelWithProof(ctx.notices, input.proof, eventSource(req));
      return { data: done, message: CANCEL_MESSAGES.turnedOff };
    },
  }),
];
