import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import {
  AuthenticationResponseSchema,
  PASSKEY_ADDED_SUBJECT,
  PASSKEY_CHALLENGE_TTL_SECONDS,
  PASSKEY_MESSAGES,
  PASSKEY_NAME_MAX,
  PasskeyOptionsSchema,
  PasskeySchema,
  RegistrationResponseSchema,
  addPasskey,
  listPasskeys,
  registrationOptions,
  removePasskey,
  signInOptions,
  verifyPasskeySignIn,
} from "../../identity/passkeys";
import { issueToken, signInDevice } from "../../identity/sessions";
import { LoginResultSchema, publicUser } from "../../identity/users";
import { clientAddressKey } from "../../platform/trust-proxy";
import { afterSignIn } from "../security";
import { body, deviceFields, idField, requiredText } from "../validation";

// Passkeys (WebAuthn): the account's list, adding and removing one, and signing in with one
// (docs/decisions/037; the rules are in identity/passkeys.ts).

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

const passkeyParams = z.object({ id: idField("passkey id").meta({ description: "The passkey's id (Passkey.id)." }) });

const LIMITED = rateLimited("'Too many passkey attempts. Please try again in N minutes.' (failed verifications, or options handed out, per client address)");

export const passkeyRoutes = [
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
    description: `PublicKeyCredentialCreationOptionsJSON for startRegistration() (RP ID and origin from PUBLIC_URL; a resident key required, user verification preferred; the account's passkeys excluded) and the challenge id to send back to POST /api/account/passkeys within ${PASSKEY_CHALLENGE_TTL_SECONDS} s.`,
    auth: true,
    success: { description: `'${PASSKEY_MESSAGES.registrationOptions}'`, data: PasskeyOptionsSchema },
    errors: { 422: `'${PASSKEY_MESSAGES.tooMany}'`, 429: LIMITED },
    async handler({ ctx, auth, req }) {
      const data = await registrationOptions(ctx, auth.user, clientAddressKey(req.ip));
      return { data, message: PASSKEY_MESSAGES.registrationOptions };
    },
  }),

  route({
    method: "post",
    path: "/api/account/passkeys",
    operationId: "addPasskey",
    tags: ["Account"],
    summary: "Add a passkey",
    description: `Verifies the browser's answer to the registration options (the challenge is used up whatever the outcome), stores the passkey under its name, records 'Passkey added' in the security log and emails '${PASSKEY_ADDED_SUBJECT}'.`,
    auth: true,
    body: registerSchema,
    success: { description: `'${PASSKEY_MESSAGES.added}'`, data: PasskeySchema },
    errors: {
      401: `'${PASSKEY_MESSAGES.notVerified}' (the answer does not verify), or no valid bearer token`,
      422: `Validation, '${PASSKEY_MESSAGES.requestEnded}' (challenge expired, used or another account's), or '${PASSKEY_MESSAGES.alreadyRegistered}'`,
      429: LIMITED,
    },
    async handler({ ctx, auth, req, body: input }) {
      const passkey = await addPasskey(
        ctx,
        auth.user,
        { challengeId: input.challenge_id, name: input.name, response: input.response },
        { userAgent: req.headers["user-agent"], ip: req.ip, addressKey: clientAddressKey(req.ip) },
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
      await removePasskey(ctx, auth.user.id, params.id, { userAgent: req.headers["user-agent"], ip: req.ip });
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
      "Verifies the browser's answer to the sign-in options (the challenge is used up whatever the outcome; the signature counter must move on), records the passkey's use and signs in like /api/user/login (device row and bearer token; 'Signed in' in the security log and the new-device alert) but without the two-factor step: a passkey is already two factors. Failed verifications count against the client address's failed sign-in limit (LOGIN_MAX_FAILURES_PER_IP per LOGIN_FAILURE_WINDOW_SECONDS).",
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
      const device = signInDevice(input, req.headers["user-agent"]);
      const { token } = await issueToken(ctx.db, { userId: user.id, device, ttlDays: ctx.config.tokenTtlDays, clock: ctx.clock });
      // 'Signed in', and the alert when the browser is new to the account, as after every sign-in.
      await afterSignIn(ctx, req, user);
      return { data: { token, user: publicUser(user) }, message: PASSKEY_MESSAGES.loggedIn };
    },
  }),
];
