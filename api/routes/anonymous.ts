import type { Express } from "express";
import { z } from "zod";
import type { ApiContext } from "../context";
import { parseBody, sendOk } from "../lib/http";
import { defineRoute } from "../lib/routing";
import { body } from "../lib/validation";

export const EMAIL_NOT_VALID_FOR_SUBSCRIPTION = "Email is not valid for subscription.";

const MESSAGE = EMAIL_NOT_VALID_FOR_SUBSCRIPTION;
const schema = body({
  email: z
    .string({ error: MESSAGE })
    .trim()
    .min(1, { error: MESSAGE, abort: true })
    .max(254, { error: MESSAGE, abort: true })
    .toLowerCase()
    .pipe(z.email({ error: MESSAGE })),
});

export function registerAnonymousRoutes(app: Express, _ctx: ApiContext): void {
  // The spec's "does this email exist" check, asked by an anonymous visitor (e.g. at checkout). It
  // must not reveal whether an account exists (DESIGN §4), so it only says whether the email can
  // be used: any syntactically valid email of at most 254 characters is accepted. Checkout then
  // proves ownership with an emailed code (temp-signup), which handles existing accounts privately
  // by email. See api/README.md.
  defineRoute(app, "/api/anonymous/subscription/email-is-exists", {
    post: (req, res) => {
      parseBody(req, schema);
      sendOk(res, { accepted: true }, "Email accepted.");
    },
  });
}
