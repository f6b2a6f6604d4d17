import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import { authenticate } from "../../identity/sessions";
import { bearerToken } from "../../platform/tokens";
import { clientAddressKey } from "../../platform/trust-proxy";
import { SUPPORT_MESSAGE_MAX, SUPPORT_MESSAGES, SUPPORT_TOPICS, sendSupportMessage } from "../../support/messages";
import { INVALID_EMAIL, body, emailField, withoutControlCharacters } from "../validation";

const supportMessageRequest = body({
  email: emailField({ required: SUPPORT_MESSAGES.emailRequired }).meta({
    description: `The sender: the Reply-To of the message to support; a copy goes there only when it is the signed-in account's own address. Trimmed and lower-cased. Missing: '${SUPPORT_MESSAGES.emailRequired}'; malformed or over 254 characters: '${INVALID_EMAIL}'.`,
  }),
  message: z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? SUPPORT_MESSAGES.messageRequired : "The message field must be text.") })
    .trim()
    .min(1, { error: SUPPORT_MESSAGES.messageRequired, abort: true })
    .max(SUPPORT_MESSAGE_MAX, { error: SUPPORT_MESSAGES.messageTooLong, abort: true })
    .refine(...withoutControlCharacters("message", { multiline: true, message: SUPPORT_MESSAGES.messageControls }))
    .meta({
      description: `Plain text, trimmed; line breaks and tabs are kept. Blank: '${SUPPORT_MESSAGES.messageRequired}'; over ${SUPPORT_MESSAGE_MAX} characters: '${SUPPORT_MESSAGES.messageTooLong}'; any other control character, or a bidirectional mark, embedding, override or isolate (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, U+061C), or U+2028/U+2029: '${SUPPORT_MESSAGES.messageControls}'.`,
      override: { minLength: undefined, maxLength: SUPPORT_MESSAGE_MAX },
    }),
  topic: z
    .union([z.enum(SUPPORT_TOPICS), z.literal("")], { error: `The topic must be one of: ${SUPPORT_TOPICS.join(", ")}.` })
    .nullish()
    .transform((topic) => topic || "question")
    .meta({
      description: "What the message is about: the subject of the email to support. Missing or blank: question.",
      override: { anyOf: undefined, type: ["string", "null"], enum: [...SUPPORT_TOPICS, "", null], default: "question" },
    }),
}).meta({ id: "SupportMessageRequest" });

export const supportRoutes = [
  route({
    method: "post",
    path: "/api/support/messages",
    operationId: "sendSupportMessage",
    tags: ["Public"],
    summary: "Send a message to support (the help page's contact form)",
    description:
      "Emails the message to the support address (SUPPORT_EMAIL; in sandbox mode without it support@example.com) with Reply-To the sender. Anyone may send one; with a bearer token the email to support names the signed-in account (an unknown token is ignored), and when `email` is that account's own address the sender gets a copy of the message (`copied`: true). Any other address has not proved that it is the sender's, so it gets nothing (`copied`: false): the form must not relay anyone's text to any address. Every request counts against the client address and the sender's address before anything is sent (SUPPORT_MAX_PER_IP_PER_HOUR, default 20; SUPPORT_MAX_PER_EMAIL_PER_HOUR, default 5). Outside sandbox mode without SUPPORT_EMAIL the form is off: 404.",
    auth: false,
    body: supportMessageRequest,
    success: {
      description: `'${SUPPORT_MESSAGES.sent}' (copied) or '${SUPPORT_MESSAGES.sentWithoutCopy}'`,
      data: z.strictObject({
        sent: z.literal(true),
        copied: z.boolean().meta({ description: "Whether a copy went to `email` (the signed-in account's own address only)." }),
      }),
    },
    errors: {
      404: `'${SUPPORT_MESSAGES.unavailable}' (no SUPPORT_EMAIL outside sandbox mode)`,
      422: "Validation, under errors.fields (email, message, topic)",
      429: rateLimited("'Too many messages were sent. Please try again in N minutes.'"),
      502: `'${SUPPORT_MESSAGES.mailFailed}' (the mail server did not take a session; nothing was sent)`,
    },
    async handler({ ctx, req, body: input }) {
      const auth = await authenticate(ctx, bearerToken(req.headers.authorization));
      const { copied } = await sendSupportMessage(ctx, {
        email: input.email,
        message: input.message,
        topic: input.topic,
        account: auth ? { id: Number(auth.user.id), email: auth.user.email, language: auth.user.language ?? undefined } : null,
        addressKey: clientAddressKey(req.ip),
      });
      return { data: { sent: true as const, copied }, message: copied ? SUPPORT_MESSAGES.sent : SUPPORT_MESSAGES.sentWithoutCopy };
    },
  }),
];
