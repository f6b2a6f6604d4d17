import { z } from "zod";
import { route } from "../contract/route";
import { body } from "../validation";

export const EMAIL_NOT_VALID_FOR_SUBSCRIPTION = "Email is not valid for subscription.";

const MESSAGE = EMAIL_NOT_VALID_FOR_SUBSCRIPTION;
const schema = body({
  email: z
    .string({ error: MESSAGE })
    .trim()
    .min(1, { error: MESSAGE, abort: true })
    .max(254, { error: MESSAGE, abort: true })
    .toLowerCase()
    .pipe(z.email({ error: MESSAGE }))
    .meta({
      description: `Trimmed and lower-cased. Missing, malformed or over 254 characters: '${MESSAGE}'.`,
      override: { type: "string", format: "email", maxLength: 254, minLength: undefined },
    }),
}).meta({ id: "SubscriptionEmailRequest" });

export const anonymousRoutes = [
  // The spec's "does this email exist" check, asked by an anonymous visitor (e.g. at checkout). It
  // must not reveal whether an account exists (DESIGN §4), so it only says whether the email can
  // be used: any syntactically valid email of at most 254 characters is accepted. Checkout then
  // proves ownership with an emailed code (temp-signup), which handles existing accounts privately
  // by email. See api/README.md.
  route({
    method: "post",
    path: "/api/anonymous/subscription/email-is-exists",
    operationId: "emailIsExists",
    tags: ["Public"],
    summary: "Whether an email can be used for a subscription",
    description:
      "Does not reveal whether an account exists (DESIGN §4): any syntactically valid email of at most 254 characters is accepted. Checkout proves ownership of the email with a code (temp-signup) instead.",
    auth: false,
    body: schema,
    success: { description: "Accepted", data: z.strictObject({ accepted: z.literal(true) }) },
    errors: { 422: `'${MESSAGE}' (missing, malformed or over 254 characters)` },
    handler: () => ({ data: { accepted: true as const }, message: "Email accepted." }),
  }),
];
