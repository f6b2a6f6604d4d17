import type { Express } from "express";
import type { ApiContext } from "../context";
import {
  LINK_MESSAGES,
  type PublicLink,
  connectLink,
  disconnectLink,
  listLinks,
  providerLabel,
  verifyProviderToken,
} from "../lib/account-links";
import { ApiError, asyncHandler, parseBody, sendOk } from "../lib/http";
import { defineRoute } from "../lib/routing";
import { getAuth, requireAuth } from "../lib/sessions";
import { body, emailField, idField, linkTypeField, optionalText, requiredText } from "../lib/validation";

export type { LinkType } from "../lib/account-links";

/** An item of data.linked: the link's id, its provider and the provider account's email. */
export type LinkedAccount = PublicLink;

const connectSchema = body({
  name: optionalText("name"),
  email: emailField(),
  firebase_id_token: requiredText("firebase id token", { max: 16_384 }),
  link_type: linkTypeField("link type"),
});

const disconnectSchema = body({
  link_id: idField("link id"),
  link_type: linkTypeField("link type"),
});

export function registerAccountRoutes(app: Express, ctx: ApiContext): void {
  const { db, config, clock } = ctx;

  defineRoute(app, "/api/account/link-list", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (_req, res) => {
        const linked: LinkedAccount[] = await listLinks(db, getAuth(res).user.id);
        sendOk(res, { linked });
      }),
    ],
  });

  // Connects a Google or Apple account to the signed-in account. Its ID token is verified like a
  // sign-in's (the provider must also have verified its email); failures are 422 here, not 401,
  // which would read as the session being gone.
  defineRoute(app, "/api/account/connect", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (req, res) => {
        const input = parseBody(req, connectSchema);
        const claims = await verifyProviderToken(config, {
          linkType: input.link_type,
          idToken: input.firebase_id_token,
          email: input.email,
          purpose: "connect",
        });
        if (!claims.emailVerified) {
          const message = LINK_MESSAGES.connectEmailUnverified(providerLabel(input.link_type));
          throw new ApiError(422, message, { fields: { firebase_id_token: [message] } });
        }
        const link = await connectLink(db, clock, { userId: getAuth(res).user.id, linkType: input.link_type, claims });
        sendOk(res, link, LINK_MESSAGES.connected);
      }),
    ],
  });

  defineRoute(app, "/api/account/disconnect", {
    post: [
      requireAuth(ctx),
      asyncHandler(async (req, res) => {
        const input = parseBody(req, disconnectSchema);
        await disconnectLink(db, { userId: getAuth(res).user.id, linkId: input.link_id, linkType: input.link_type });
        sendOk(res, null, LINK_MESSAGES.disconnected);
      }),
    ],
  });
}
