import { z } from "zod";
import { type Language, asLanguage } from "../../platform/i18n";
import { responses } from "../contract/responses";
import { type AnyRoute, route } from "../contract/route";
import { type EmailCodePurpose, sendCode } from "../../identity/codes";
import type { Mail } from "../../platform/mailer";
import { DomainError } from "../../platform/errors";
import { clientAddressKey } from "../../platform/trust-proxy";

/**
 * The emailed code that confirms a setting for an account without a password (deleting it, turning
 * two-factor on): the code machinery and limits of every emailed code, under a purpose of its own.
 * Accounts with a password confirm with it instead (409).
 */
export function confirmationCodeRoute(opts: {
  path: string;
  operationId: string;
  summary: string;
  /** The email's subject, for the description. */
  subject: string;
  purpose: EmailCodePurpose;
  messages: { sent: string; notSent: string; hasPassword: string };
  compose(to: string, code: string, lng: Language): Mail;
}): AnyRoute {
  const { messages } = opts;
  return route({
    method: "post",
    path: opts.path,
    operationId: opts.operationId,
    tags: ["Account"],
    summary: opts.summary,
    description: `No request body. Emails a 6-digit code (subject '${opts.subject}') to the account's email, with the limits of every emailed code (30 s between sends, hourly caps). Accounts with a password confirm with it instead: 409.`,
    auth: true,
    success: { description: `'${messages.sent}'`, data: z.null() },
    errors: {
      409: `'${messages.hasPassword}'`,
      429: responses.CodeRequestLimited,
      502: `'${messages.notSent}' (the mail server is unavailable; nothing was stored)`,
    },
    async handler({ ctx, req, auth }) {
      if (auth.user.password_hash) throw new DomainError("password_already_set", messages.hasPassword);
      const email = auth.user.email;
      await sendCode(ctx, {
        email,
        purpose: opts.purpose,
        addressKey: clientAddressKey(req.ip),
        failureMessage: messages.notSent,
        compose: (code) => opts.compose(email, code, asLanguage(auth.user.language)),
      });
      return { data: null, message: messages.sent };
    },
  });
}
