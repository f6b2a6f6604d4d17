import type { Express } from "express";
import { z } from "zod";
import type { ApiContext } from "../context";
import { LINK_MESSAGES, accountForProviderSignIn, verifyProviderToken } from "../lib/account-links";
import { ApiError, asyncHandler, parseBody, sendOk } from "../lib/http";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "../lib/passwords";
import { tooManyLoginsMessage } from "../lib/rate-limit";
import { defineRoute } from "../lib/routing";
import { getAuth, issueToken, requireAuth, signInDevice } from "../lib/sessions";
import { clientAddressKey } from "../lib/trust-proxy";
import { publicUser } from "../lib/users";
import {
  body,
  deviceFields,
  emailField,
  linkTypeField,
  optionalText,
  passwordField,
  requiredText,
} from "../lib/validation";

export const INVALID_CREDENTIALS = "These credentials do not match our records.";

const loginSchema = body({
  email: emailField(),
  password: passwordField(),
  ...deviceFields(),
});

const PLATFORM_INVALID = "The platform must be Web Browser or Desktop.";

const thirdPartyLoginSchema = body({
  ...deviceFields(),
  name: optionalText("name"),
  email: emailField(),
  firebase_id_token: requiredText("firebase id token", { max: 16_384 }),
  auth_method: linkTypeField("auth method"),
  platform: optionalText("platform", 50).pipe(
    z.enum(["Web Browser", "Desktop"], { error: PLATFORM_INVALID }).default("Web Browser"),
  ),
});

export function registerUserRoutes(app: Express, ctx: ApiContext): void {
  const { db, config, clock, loginThrottle } = ctx;

  defineRoute(app, "/api/user/login", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, loginSchema);
      const addressKey = clientAddressKey(req.ip);

      const waitSeconds = await loginThrottle.blockedFor(input.email, addressKey);
      if (waitSeconds !== null) {
        throw new ApiError(429, tooManyLoginsMessage(waitSeconds), {
          headers: { "Retry-After": String(waitSeconds) },
        });
      }

      const user = await db.selectFrom("users").selectAll().where("email", "=", input.email).executeTakeFirst();
      // Always one argon2 verify (a dummy one for unknown emails and password-less accounts).
      const valid = await verifyPassword(user?.password_hash ?? null, input.password);
      if (!user || !user.password_hash || !valid) {
        await loginThrottle.recordFailure(input.email, addressKey);
        throw new ApiError(401, INVALID_CREDENTIALS);
      }
      await loginThrottle.recordSuccess(input.email);

      if (passwordNeedsRehash(user.password_hash)) {
        await db
          .updateTable("users")
          .set({ password_hash: await hashPassword(input.password), updated_at: clock.now().toISOString() })
          .where("id", "=", user.id)
          .execute();
      }

      const device = signInDevice(input, req.headers["user-agent"]);
      const { token } = await issueToken(db, { userId: user.id, device, ttlDays: config.tokenTtlDays, clock });
      sendOk(res, { token, user: publicUser(user) }, "Login successful.");
    }),
  });

  // Sign-in with Google or Apple: the portal ran the provider flow (and checked its nonce) and sends
  // the ID token; it is verified again here. Account rule: lib/account-links.ts.
  defineRoute(app, "/api/user/thirdparty-login", {
    post: asyncHandler(async (req, res) => {
      const input = parseBody(req, thirdPartyLoginSchema);
      const linkType = input.auth_method;
      const claims = await verifyProviderToken(config, {
        linkType,
        idToken: input.firebase_id_token,
        email: input.email,
        purpose: "login",
      });
      const { user } = await accountForProviderSignIn(db, clock, { linkType, claims, name: input.name });
      const device = signInDevice(input, req.headers["user-agent"]);
      const { token } = await issueToken(db, { userId: user.id, device, ttlDays: config.tokenTtlDays, clock });
      sendOk(res, { token, user: publicUser(user) }, LINK_MESSAGES.loggedIn);
    }),
  });

  defineRoute(app, "/api/user/logout", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (_req, res) => {
        const { tokenId } = getAuth(res);
        await db
          .updateTable("tokens")
          .set({ revoked_at: new Date().toISOString() })
          .where("id", "=", tokenId)
          .where("revoked_at", "is", null)
          .execute();
        sendOk(res, null, "Logged out.");
      }),
    ],
  });

  defineRoute(app, "/api/me", {
    get: [
      requireAuth(ctx),
      (_req, res) => {
        sendOk(res, publicUser(getAuth(res).user));
      },
    ],
  });
}
