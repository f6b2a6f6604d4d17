import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import { confirmationCodeRoute } from "./confirmation-code";
import {
  AuthenticationResponseSchema,
  PASSKEY_ADDED_SUBJECT,
  PASSKEY_CHALLENGE_TTL_SECONDS,
  PASSKEY_CODE_SUBJECT,
  PASSKEY_CONFIRMATION_TTL_SECONDS,
  PASSKEY_CONFIRM_MAX_FAILURES,
  PASSKEY_MESSAGES,
  PASSKEY_NAME_MAX,
  PASSKEY_REVIEW_TTL_SECONDS,
  PasskeyOptionsSchema,
  PasskeySchema,
  RegistrationResponseSchema,
  addPasskey,
  confirmForPasskey,
  listPasskeys,
  passkeyCodeEmail,
  registrationOptions,
  removePasskey,
  removePasskeyByReview,
  reviewPasskeys,
  signInOptions,
  verifyPasskeySignIn,
} from "../../identity/passkeys";
import { issueToken, signInDevice } from "../../identity/sessions";
import { TWO_FACTOR_MESSAGES } from "../../identity/two-factor";
import { clientHintsOf } from "../../identity/user-agent";
import { LoginResultSchema, publicUser } from "../../identity/users";
import { clientAddressKey } from "../../platform/trust-proxy";
import { afterSignIn, eventSource } from "../security";
import { CODE_FORMAT, body, deviceFields, idField, requiredText } from "../validation";

// Passkeys (WebAuthn): the account's list, confirming who is there and adding one, removing one,
// removing them after a password reset, and signing in with one (docs/decisions/037; the rules are
// in identity/passkeys.ts).

const challengeIdField = () =>
  requiredText("challenge id", { max: 200, required: PASSKEY_MESSAGES.requestEnded }).meta({
    description: `data.challenge_id of the options answer: single use, valid ${PASSKEY_CHALLENGE_TTL_SECONDS} s.`,
  });

const nameField = () =>
  requiredText("passkey name", { max: PASSKEY_NAME_MAX, required: PASSKEY_MESSAGES.nameRequired })
    .refine((value) => value.length <= PASSKEY_NAME_MAX, { error: PASSKEY_MESSAGES.nameTooLong })
    .meta({ description: `The customer's name for the passkey ('Laptop'), 1 to ${PASSKEY_NAME_MAX} characters (trimmed).` });

const registerSchema = body({
  challenge_id: challengeIdField(),
  name: nameField(),
  response: RegistrationResponseSchema,
}).meta({ id: "PasskeyRegisterRequest" });

const signInSchema = body({
  challenge_id: challengeIdField(),
  response: AuthenticationResponseSchema,
  ...deviceFields(),
}).meta({ id: "PasskeySignInRequest" });

const blankToUndefined = (value: unknown) => (typeof value === "string" && value.trim() === "" ? undefined : value);
const sixDigits = (message: string, description: string) =>
  z
    .preprocess(blankToUndefined, z.string({ error: message }).trim().regex(/^\d{6}$/, { error: message }).optional())
    .meta({ description, override: { type: "string", pattern: "^\\s*\\d{6}\\s*$" } });

const confirmSchema = body({
  password: z
    .string({ error: "The password field must be text." })
    .max(1024, { error: "The password field must not be longer than 1024 characters." })
    .optional()
    .meta({ description: "The account's current password, compared exactly as sent. Required when the account has one." }),
  verification_code: sixDigits(CODE_FORMAT, "For an account without a password: the 6-digit code from POST /api/account/passkeys/send-code."),
  code: sixDigits(TWO_FACTOR_MESSAGES.codeFormat, "When two-factor is on: a current code of the authenticator app (a time step not used before)."),
}).meta({ id: "PasskeyConfirmRequest" });

const reviewSchema = body({
  token: requiredText("token", { max: 200, required: PASSKEY_MESSAGES.reviewInvalid }).meta({
    description: "data.passkey_review.token of POST /api/auth/reset-password.",
  }),
}).meta({ id: "PasskeyReviewRequest" });

const reviewRemoveSchema = body({
  token: requiredText("token", { max: 200, required: PASSKEY_MESSAGES.reviewInvalid }).meta({
    description: "data.passkey_review.token of POST /api/auth/reset-password.",
  }),
  id: idField("passkey id").meta({ description: "The passkey's id (Passkey.id)." }),
}).meta({ id: "PasskeyReviewRemoveRequest" });

const REVIEW_INVALID = `'${PASSKEY_MESSAGES.reviewInvalid}' (unknown, replaced by a newer reset, or older than ${PASSKEY_REVIEW_TTL_SECONDS / 60} minutes; code link_invalid)`;
const CONFIRM_FIRST = `'${PASSKEY_MESSAGES.confirmationRequired}' (code confirmation_required): this session has no live confirmation from POST /api/account/passkeys/confirm`;

const passkeyParams = z.object({ id: idField("passkey id").meta({ description: "The passkey's id (Passkey.id)." }) });

const LIMITED = rateLimited("'Too many passkey attempts. Please try again in N minutes.' (failed verifications, or options handed out, per client address)");

export const passkeyRoutes = [
  // The emailed code that confirms adding a passkey for an account without a password: the code
  // machinery and limits of every emailed code, under its own purpose 'passkey'.
  confirmationCodeRoute({
    path: "/api/account/passkeys/send-code",
    operationId: "passkeySendCode",
    summary: "Email the code that confirms adding a passkey (accounts without a password)",
    subject: PASSKEY_CODE_SUBJECT,
    purpose: "passkey",
    messages: { sent: PASSKEY_MESSAGES.codeSent, notSent: PASSKEY_MESSAGES.codeNotSent, hasPassword: PASSKEY_MESSAGES.hasPassword },
    compose: passkeyCodeEmail,
  }),

  route({
    method: "post",
    path: "/api/account/passkeys/confirm",
    operationId: "passkeyConfirm",
    tags: ["Account"],
    summary: "Confirm who is there before adding a passkey",
    description: `A passkey signs in without the password and without two-factor, so a session must first confirm with the account's current \`password\` (an account without one: the \`verification_code\` from /api/account/passkeys/send-code) and, when two-factor is on, a current authentication \`code\`. That lets this session (no other) ask for registration options and add one passkey within ${PASSKEY_CONFIRMATION_TTL_SECONDS} s; adding it uses the confirmation up. ${PASSKEY_CONFIRM_MAX_FAILURES} wrong tries per account per 15 minutes, then 429.`,
    auth: true,
    body: confirmSchema,
    success: {
      description: `'${PASSKEY_MESSAGES.confirmed}'`,
      data: z.strictObject({ expires_at: z.string().meta({ format: "date-time", description: "When the confirmation ends (real time)." }) }),
    },
    errors: {
      422: `'${PASSKEY_MESSAGES.passwordRequired}' or '${PASSKEY_MESSAGES.wrongPassword}' (under password); '${CODE_FORMAT}' or a refused emailed code as in CodeRejected (under verification_code); '${TWO_FACTOR_MESSAGES.codeFormat}' or '${TWO_FACTOR_MESSAGES.codeInvalid}' (under code)`,
      429: rateLimited("'Too many wrong tries. Please try again in N minutes.'"),
    },
    async handler({ ctx, auth, body: input }) {
      const { expiresAt } = await confirmForPasskey(ctx, {
        user: auth.user,
        tokenId: auth.tokenId,
        password: input.password,
        verificationCode: input.verification_code,
        code: input.code,
      });
      return { data: { expires_at: expiresAt }, message: PASSKEY_MESSAGES.confirmed };
    },
  }),

  route({
    method: "get",
    path: "/api/account/passkeys",
    operationId: "listPasskeys",
    tags: ["Account"],
    summary: "The account's passkeys",
    description: "Newest first, each with its name, when it was added and when it last signed in (null: never).",
    auth: true,
    success: { description: `'${PASSKEY_MESSAGES.listed}'`, data: z.array(PasskeySchema) },
    async handler({ ctx, auth }) {
      return { data: await listPasskeys(ctx.db, auth.user.id), message: PASSKEY_MESSAGES.listed };
    },
  }),

  route({
    method: "post",
    path: "/api/account/passkeys/options",
    operationId: "passkeyRegistrationOptions",
    tags: ["Account"],
    summary: "Options to create a passkey",
    description: `Only for a session with a live confirmation (POST /api/account/passkeys/confirm). PublicKeyCredentialCreationOptionsJSON for startRegistration() (RP ID and origin from PUBLIC_URL; a resident key and user verification required; the account's passkeys excluded) and the challenge id to send back to POST /api/account/passkeys within ${PASSKEY_CHALLENGE_TTL_SECONDS} s.`,
    auth: true,
    success: { description: `'${PASSKEY_MESSAGES.registrationOptions}'`, data: PasskeyOptionsSchema },
    errors: { 403: CONFIRM_FIRST, 422: `'${PASSKEY_MESSAGES.tooMany}'`, 429: LIMITED },
    async handler({ ctx, auth, req }) {
      const data = await registrationOptions(ctx, auth.user, { tokenId: auth.tokenId, addressKey: clientAddressKey(req.ip) });
      return { data, message: PASSKEY_MESSAGES.registrationOptions };
    },
  }),

  route({
    method: "post",
    path: "/api/account/passkeys",
    operationId: "addPasskey",
    tags: ["Account"],
    summary: "Add a passkey",
    description: `Verifies the browser's answer to the registration options (the challenge is used up whatever the outcome; the authenticator must have verified the person: UV set), uses up the session's confirmation, stores the passkey under its name, records 'Passkey added' in the security log and emails '${PASSKEY_ADDED_SUBJECT}'.`,
    auth: true,
    body: registerSchema,
    success: { description: `'${PASSKEY_MESSAGES.added}'`, data: PasskeySchema },
    errors: {
      401: `'${PASSKEY_MESSAGES.notVerified}' (the answer does not verify, or without user verification), or no valid bearer token`,
      403: `${CONFIRM_FIRST} (expired or used by another passkey)`,
      422: `Validation, '${PASSKEY_MESSAGES.requestEnded}' (challenge expired, used or another account's), or '${PASSKEY_MESSAGES.alreadyRegistered}'`,
      429: LIMITED,
    },
    async handler({ ctx, auth, req, body: input }) {
      const passkey = await addPasskey(
        ctx,
        auth.user,
        { challengeId: input.challenge_id, name: input.name, response: input.response },
        { ...eventSource(req), addressKey: clientAddressKey(req.ip), tokenId: auth.tokenId },
      );
      return { data: passkey, message: PASSKEY_MESSAGES.added };
    },
  }),

  route({
    method: "delete",
    path: "/api/account/passkeys/{id}",
    operationId: "removePasskey",
    tags: ["Account"],
    summary: "Remove a passkey",
    description: "Removes one of the caller's passkeys (another account's answers 404) and records 'Passkey removed'. It can no longer sign in.",
    auth: true,
    params: passkeyParams,
    success: { description: `'${PASSKEY_MESSAGES.removed}'`, data: z.null() },
    errors: { 404: `'${PASSKEY_MESSAGES.notFound}'` },
    async handler({ ctx, auth, req, params }) {
      await removePasskey(ctx, auth.user.id, params.id, eventSource(req));
      return { data: null, message: PASSKEY_MESSAGES.removed };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/passkey/options",
    operationId: "passkeySignInOptions",
    tags: ["Authentication"],
    summary: "Options to sign in with a passkey",
    description: `PublicKeyCredentialRequestOptionsJSON for startAuthentication() (empty allowCredentials: discoverable credentials, so the browser's autofill can offer them) and the challenge id to send back to POST /api/auth/passkey/login within ${PASSKEY_CHALLENGE_TTL_SECONDS} s. Limited per client address.`,
    auth: false,
    success: { description: `'${PASSKEY_MESSAGES.signInOptions}'`, data: PasskeyOptionsSchema },
    errors: { 429: LIMITED },
    async handler({ ctx, req }) {
      const data = await signInOptions(ctx, clientAddressKey(req.ip));
      return { data, message: PASSKEY_MESSAGES.signInOptions };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/passkey/login",
    operationId: "passkeyLogin",
    tags: ["Authentication"],
    summary: "Sign in with a passkey",
    description:
      "Verifies the browser's answer to the sign-in options (the challenge is used up whatever the outcome; the signature counter must move on; the authenticator must have verified the person, UV set: a touch alone is refused), records the passkey's use and signs in like /api/user/login (device row and bearer token; 'Signed in' in the security log and the new-device alert) but without the two-factor step: a passkey with user verification is already two factors. Failed verifications count against the client address's failed sign-in limit (LOGIN_MAX_FAILURES_PER_IP per LOGIN_FAILURE_WINDOW_SECONDS).",
    auth: false,
    body: signInSchema,
    success: { description: `'${PASSKEY_MESSAGES.loggedIn}'`, data: LoginResultSchema },
    errors: {
      401: `'${PASSKEY_MESSAGES.notRegistered}' (no account has this passkey: removed, or never added) or '${PASSKEY_MESSAGES.notVerified}'`,
      422: `Validation, or '${PASSKEY_MESSAGES.requestEnded}'`,
      429: LIMITED,
    },
    async handler({ ctx, req, body: input }) {
      const user = await verifyPasskeySignIn(ctx, { challengeId: input.challenge_id, response: input.response }, clientAddressKey(req.ip));
      const device = signInDevice(input, req.headers["user-agent"], clientHintsOf(req.headers));
      const { token } = await issueToken(ctx.db, { userId: user.id, device, ttlDays: ctx.config.tokenTtlDays, clock: ctx.clock });
      // 'Signed in', and the alert when the browser is new to the account, as after every sign-in.
      await afterSignIn(ctx, req, user, device);
      return { data: { token, user: publicUser(user) }, message: PASSKEY_MESSAGES.loggedIn };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/reset-password/passkeys",
    operationId: "passkeyReviewList",
    tags: ["Authentication"],
    summary: "The account's passkeys, after a password reset",
    description: `No bearer token: the review token of POST /api/auth/reset-password is the proof (valid ${PASSKEY_REVIEW_TTL_SECONDS / 60} minutes). A new password does not stop a passkey, so whoever reset it sees the account's passkeys (newest first) to remove the ones they do not know.`,
    auth: false,
    body: reviewSchema,
    success: { description: `'${PASSKEY_MESSAGES.listed}'`, data: z.array(PasskeySchema) },
    errors: { 422: REVIEW_INVALID },
    async handler({ ctx, body: input }) {
      return { data: await reviewPasskeys(ctx.db, input.token), message: PASSKEY_MESSAGES.listed };
    },
  }),

  route({
    method: "post",
    path: "/api/auth/reset-password/passkeys/remove",
    operationId: "passkeyReviewRemove",
    tags: ["Authentication"],
    summary: "Remove a passkey after a password reset",
    description: "No bearer token: the review token of POST /api/auth/reset-password is the proof. Removes one of the account's passkeys (another account's answers 404), records 'Passkey removed', and answers the passkeys left. The token stays usable until it expires.",
    auth: false,
    body: reviewRemoveSchema,
    success: { description: `'${PASSKEY_MESSAGES.removed}' (data: the passkeys left)`, data: z.array(PasskeySchema) },
    errors: { 404: `'${PASSKEY_MESSAGES.notFound}'`, 422: `Validation, or ${REVIEW_INVALID}` },
    async handler({ ctx, req, body: input }) {
      const left = await removePasskeyByReview(ctx, input.token, input.id, eventSource(req));
      return { data: left, message: PASSKEY_MESSAGES.removed };
    },
  }),
];
