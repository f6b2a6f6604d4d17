import type { Express } from "express";
import type { ApiContext } from "../context";
import { ApiError, asyncHandler, parseBody, sendOk } from "../lib/http";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "../lib/passwords";
import { tooManyLoginsMessage } from "../lib/rate-limit";
import { defineRoute } from "../lib/routing";
import { getAuth, issueToken, requireAuth, signInDevice } from "../lib/sessions";
import { clientAddressKey } from "../lib/trust-proxy";
import { publicUser } from "../lib/users";
import { body, deviceFields, emailField, passwordField } from "../lib/validation";

export const INVALID_CREDENTIALS = "These credentials do not match our records.";

const loginSchema = body({
  email: emailField(),
  password: passwordField(),
  ...deviceFields(),
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
