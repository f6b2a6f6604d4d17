import { z } from "zod";
import { responses } from "../contract/responses";
import { route } from "../contract/route";
import { LINK_MESSAGES, accountForProviderSignIn, providerLabel, verifyProviderToken } from "../../identity/account-links";
import { claimIdTokenUse } from "../../identity/id-tokens";
import { DomainError } from "../../platform/errors";
import { text } from "../../platform/i18n";
import { revokeSessions, signInDevice } from "../../identity/sessions";
import { clientAddressKey } from "../../platform/trust-proxy";
import { noteSecurityEvent } from "../../identity/sign-in-alerts";
import { afterSignIn, eventSource } from "../security";
import { SignInResultSchema, TWO_FACTOR_MESSAGES, finishSignIn, providerUsedMultiFactor } from "../../identity/two-factor";
import { clientHintsOf } from "../../identity/user-agent";
import { UserSchema, findUserByEmail, publicUser } from "../../identity/users";
import {
  body,
  cleanedText,
  deviceFields,
  emailField,
  linkTypeField,
  optionalLanguageField,
  optionalText,
  passwordField,
  requiredText,
} from "../validation";

export const INVALID_CREDENTIALS = "These credentials do not match our records.";

const loginSchema = body({
  email: emailField(),
  password: passwordField(),
  ...deviceFields(),
}).meta({ id: "LoginRequest" });

const PLATFORM_INVALID = "The platform must be Web Browser or Desktop.";

/** The provider's ID token and its email, as sign-in and connect take them. */
export function idTokenFields() {
  return {
    email: emailField().meta({ description: "Trimmed and lower-cased; must be the ID token's email." }),
    firebase_id_token: requiredText("firebase id token", { max: 16_384 }).meta({
      description:
        "The provider's OpenID Connect ID token (the spec's name for it). Verified: signature against the issuer's published keys (discovery + JWKS), issuer, audience (our client id), expiry (60 s tolerance); its email must equal `email` (any case).",
    }),
  };
}

const thirdPartyLoginSchema = body({
  ...deviceFields(),
  name: cleanedText("name").meta({
    description:
      "Name for a new account; else the ID token's name, else the part of the email before the @. It comes from the provider, so its control and bidirectional characters are removed (a line break becomes a space), not refused.",
  }),
  ...idTokenFields(),
  auth_method: linkTypeField("auth method"),
  platform: optionalText("platform", 50)
    .pipe(z.enum(["Web Browser", "Desktop"], { error: PLATFORM_INVALID }).default("Web Browser"))
    .meta({ override: { anyOf: undefined, type: "string", enum: ["Web Browser", "Desktop"], default: "Web Browser" } }),
  language: optionalLanguageField().meta({
    description: "The language of an account this sign-in creates (en, de, fr, es): its emails and invoices are written in it. Missing: en. An existing account keeps its own.",
  }),
}).meta({ id: "ThirdPartyLoginRequest" });

export const userRoutes = [
  route({
    method: "post",
    path: "/api/user/login",
    operationId: "login",
    tags: ["Authentication"],
    summary: "Sign in with email and password",
    description:
      "Creates a device row (web: described by the User-Agent header; other platforms by the device_* fields) and a bearer token valid for TOKEN_TTL_DAYS. Wrong email and wrong password answer identically (401). Failed attempts are limited per email and client address (LOGIN_MAX_FAILURES_PER_EMAIL_PER_IP), per client address (LOGIN_MAX_FAILURES_PER_IP) and per email from all addresses (LOGIN_MAX_FAILURES_PER_EMAIL, a higher backstop) within LOGIN_FAILURE_WINDOW_SECONDS; once a limit is reached the answer is 429 with Retry-After, before the password is checked. Each try is reserved on the counters before the password is checked and given back when it is right, so a parallel burst gets no more tries than a sequence. Only failures count; a completed sign-in clears this address's counter for the email (with two-factor on, only once the second factor is right: a right password alone clears nothing). Code sign-in and the password reset are not affected by these limits. When the account has two-factor authentication on, the answer carries no token but a challenge (data.two_factor_required, data.challenge) for /api/user/two-factor/verify.",
    auth: false,
    body: loginSchema,
    success: { description: `'Login successful.', or with two-factor on '${TWO_FACTOR_MESSAGES.required}'`, data: SignInResultSchema },
    errors: { 401: `'${INVALID_CREDENTIALS}'`, 429: responses.TooManyRequests },
    async handler({ ctx, req, body: input }) {
      const { db, clock, loginThrottle } = ctx;
      const addressKey = clientAddressKey(req.ip);

      // The try is taken before argon2 (429 when a limit is reached), so parallel guesses get no
      // more evaluations than sequential ones; a wrong password keeps it as the failure count.
      const reservations = await loginThrottle.reserve(input.email, addressKey);

      // A deleted account is an unknown email (it has no password either).
      const user = await findUserByEmail(db, input.email);
      // Always one argon2 verify (a dummy one for unknown emails and password-less accounts).
      const valid = await ctx.passwords.verify(user?.password_hash ?? null, input.password);
      if (!user?.password_hash || !valid) {
        // An existing account's failure is in its activity; an unknown email leaves no trace (no enumeration).
        // Not awaited: the write would make a known email's refusal measurably slower than an unknown one's.
        if (user) void noteSecurityEvent(ctx, { userId: user.id, kind: "sign_in_failed", ...eventSource(req) });
        throw new DomainError("invalid_credentials", INVALID_CREDENTIALS);
      }
      // The right password is not a failure.
      await loginThrottle.release(reservations);

      if (ctx.passwords.needsRehash(user.password_hash)) {
        await db
          .updateTable("users")
          .set({ password_hash: await ctx.passwords.hash(input.password), updated_at: clock.now().toISOString() })
          .where("id", "=", user.id)
          .execute();
      }

      const device = signInDevice(input, req.headers["user-agent"], clientHintsOf(req.headers));
      const signedIn = await finishSignIn(ctx, { user, device, purpose: "password" });
      // With two-factor on, the sign-in is not over: the counts are cleared only when the second factor is right.
      if (!("token" in signedIn)) return { data: signedIn, message: TWO_FACTOR_MESSAGES.required };
      await loginThrottle.recordSuccess(input.email, addressKey);
      await afterSignIn(ctx, req, user, device);
      return { data: { token: signedIn.token, user: publicUser(user) }, message: "Login successful." };
    },
  }),

  // Sign-in with Google or Apple: the portal ran the provider flow (and checked its nonce) and sends
  // the ID token; it is verified again here. Account rule: lib/account-links.ts.
  route({
    method: "post",
    path: "/api/user/thirdparty-login",
    operationId: "thirdPartyLogin",
    tags: ["Authentication"],
    summary: "Sign in with Google or Apple",
    description:
      "The portal runs the provider's sign-in (and checks its nonce), then sends the ID token, verified here again against the provider of auth_method (GOOGLE_ISSUER / GOOGLE_CLIENT_ID, APPLE_ISSUER / APPLE_CLIENT_ID; the identity sandbox when unset). The account: (1) a link with this provider and the token's `sub` signs into its account, whatever the email; (2) else an account with the token's email signs in and gets the link, only when the provider asserts email_verified (true or \"true\"), otherwise 403; (3) else a new account without a password is created (email verified, name from `name`, the token, or the part of the email before the @) with the link. Each ID token signs in once: a second use answers 409. Then a device row (platform and device_* as for /api/user/login) and a bearer token; but when the account has two-factor authentication on and the ID token's `amr` does not include 'mfa' (the provider did not itself ask for a second factor), a challenge for /api/user/two-factor/verify instead of the token.",
    auth: false,
    body: thirdPartyLoginSchema,
    success: { description: `'${LINK_MESSAGES.loggedIn}', or with two-factor on '${TWO_FACTOR_MESSAGES.required}'`, data: SignInResultSchema },
    errors: {
      401: "'Login failed: the Google sign-in could not be verified. Please try again.' (signature, issuer, audience, expiry), 'Login failed: the email does not match your Google account.', 'Login failed: Google has not verified this email address.' (no account yet); Apple likewise.",
      409: "'Login failed: this Google sign-in was already used. Please sign in with Google again.' (Apple likewise): this ID token already signed in once (it is remembered by its `jti`, or by a hash of the whole token, until it expires).",
      403: "'This email belongs to an existing account. Sign in with your password, then connect your Google account.' (Apple likewise): the provider does not assert that the email is verified.",
      404: "'Sign-in with Google is not available.' (Apple likewise): the provider is off (no credentials outside sandbox mode).",
      503: "'Sign-in with Google is unavailable right now. Please try again later.' (the provider's discovery document or keys could not be fetched; Apple likewise)",
    },
    async handler({ ctx, req, body: input }) {
      const { db, config, clock } = ctx;
      const linkType = input.auth_method;
      const claims = await verifyProviderToken(config, {
        linkType,
        idToken: input.firebase_id_token,
        email: input.email,
        purpose: "login",
      });
      // An ID token signs in once: a copy (a log, a proxy, a stolen redirect) must not sign in again.
      if (!(await claimIdTokenUse(db, input.firebase_id_token, claims.payload))) {
        const provider = providerLabel(linkType);
        throw new DomainError("id_token_replayed", LINK_MESSAGES.loginReplayed(provider), { text: text("messages:links.loginReplayed", { provider }) });
      }
      const { user } = await accountForProviderSignIn(db, clock, { linkType, claims, name: input.name, language: input.language });
      const device = signInDevice(input, req.headers["user-agent"], clientHintsOf(req.headers));
      const signedIn = await finishSignIn(ctx, {
        user,
        device,
        purpose: linkType === "GOOGLE" ? "google" : "apple",
        multiFactor: providerUsedMultiFactor(claims.payload),
      });
      if (!("token" in signedIn)) return { data: signedIn, message: TWO_FACTOR_MESSAGES.required };
      await afterSignIn(ctx, req, user, device);
      return { data: { token: signedIn.token, user: publicUser(user) }, message: LINK_MESSAGES.loggedIn };
    },
  }),

  route({
    method: "post",
    path: "/api/user/logout",
    operationId: "logout",
    tags: ["Authentication"],
    summary: "Revoke the bearer token used for this request",
    auth: true,
    success: { description: "'Logged out.'", data: z.null() },
    async handler({ ctx, auth }) {
      await ctx.db.transaction().execute((trx) => revokeSessions(trx, { userId: auth.user.id, tokenId: auth.tokenId }));
      return { data: null, message: "Logged out." };
    },
  }),

  route({
    method: "get",
    path: "/api/me",
    operationId: "me",
    tags: ["Account"],
    summary: "The signed-in user",
    auth: true,
    success: { description: "The user", data: UserSchema },
    handler: ({ auth }) => ({ data: publicUser(auth.user) }),
  }),
];
