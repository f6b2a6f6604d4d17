import { renderEmail } from "../platform/email-template";
import { DEFAULT_LANGUAGE, asLanguage, text, translatorFor } from "../platform/i18n";
import { DomainError } from "../platform/errors";
import { MailUnavailableError } from "../platform/mailer";
import { minutesOf, tryAgainIn } from "../platform/rate-limit";
import type { PlatformServices } from "../platform/services";
import { stripControlCharacters } from "../platform/text";

/*
 * The contact form of /help (issue 21): a message goes to the support address from the configuration
 * (SUPPORT_EMAIL) with its sender as Reply-To. Anyone may send one, so every request counts against the
 * client address and the sender's address before anything is sent (a parallel burst sends no more than a
 * sequence would). A copy with the text goes back only to an address that has proved itself: the
 * signed-in account's own (review issue 30: a copy to any typed address made the form a relay for anyone's
 * text, 20 addresses an hour; docs/decisions/043). The message is plain text: the API refuses control and
 * bidirectional characters other than its line breaks and tabs, and the HTML body escapes it.
 */

export const SUPPORT_MESSAGE_MAX = 5000;

export const SUPPORT_TOPICS = ["question", "refund"] as const;
export type SupportTopic = (typeof SUPPORT_TOPICS)[number];

export const SUPPORT_MESSAGES = {
  sent: "Your message has been sent. We have emailed you a copy and will reply to that address.",
  /** Sent, without a copy: the address typed is not the signed-in account's (or no one is signed in). */
  sentWithoutCopy: "Your message has been sent. We will reply to the email address you gave.",
  unavailable: "The contact form is unavailable.",
  emailRequired: "Please enter your email address.",
  messageRequired: "Please write your message.",
  messageTooLong: `Your message is too long: at most ${SUPPORT_MESSAGE_MAX} characters.`,
  messageControls: "Remove the control characters from your message.",
  mailFailed: "Your message could not be sent. Please try again in a moment.",
} as const;

/** 'Too many messages were sent. Please try again in N minutes.' */
export function tooManySupportMessages(retryAfterSeconds: number): string {
  return `Too many messages were sent. ${tryAgainIn(retryAfterSeconds)}`;
}

/**
 * A message as it is sent: lines end in \n and the blanks around it are gone. The route has refused any
 * other control character already (platform/text.ts); the same rule strips them here for any other caller.
 */
export function cleanMessage(message: string): string {
  return stripControlCharacters(message, { multiline: true });
}

export interface SupportMessage {
  /** The sender's address, already checked (an email: no line breaks, so safe as Reply-To and in a subject). */
  email: string;
  message: string;
  topic: SupportTopic;
  /** The signed-in account that sent it, if any: support sees who it is, and its own address gets a copy. */
  account: { id: number; email: string; /** Its language (users.language): the copy is written in it. */ language?: string } | null;
  /** The client address's rate-limit key (clientAddressKey). */
  addressKey: string;
}

const SUBJECTS: Record<SupportTopic, string> = {
  question: "Support request",
  refund: "Refund request",
};

/**
 * Sends the message to support, and its copy to the sender when the sender is the signed-in account
 * (`copied`), or throws (404 off, 429, 502 mail down).
 */
export async function sendSupportMessage(
  deps: Pick<PlatformServices, "config" | "limiter" | "mail">,
  input: SupportMessage,
): Promise<{ copied: boolean }> {
  const { email: supportEmail, maxPerEmail, maxPerIp, windowSeconds } = deps.config.support;
  // Off outside sandbox mode without SUPPORT_EMAIL: no stand-in address, the form says it is unavailable.
  if (!supportEmail) throw new DomainError("not_found", SUPPORT_MESSAGES.unavailable);

  const reserved = await deps.limiter.reserveAll(
    [
      [`support:ip:${input.addressKey}`, maxPerIp],
      [`support:email:${input.email.toLowerCase()}`, maxPerEmail],
    ],
    windowSeconds,
  );
  if ("retryAfterSeconds" in reserved) {
    const wait = reserved.retryAfterSeconds;
    throw new DomainError("rate_limited", tooManySupportMessages(wait), {
      headers: { "Retry-After": String(wait) },
      text: text("messages:support.tooMany", { count: minutesOf(wait) }),
    });
  }

  try {
    await deps.mail.ensureAvailable();
  } catch (error) {
    if (error instanceof MailUnavailableError) {
      // Nothing went out: the try is given back.
      await deps.limiter.release(reserved.reservations);
      throw new DomainError("mail_unavailable", SUPPORT_MESSAGES.mailFailed);
    }
    throw error;
  }

  const message = cleanMessage(input.message);
  const subject = `${SUBJECTS[input.topic]} from ${input.email}`;
  const who = input.account
    ? `Signed in as account ${input.account.id} (${input.account.email}).`
    : "Not signed in: the sender's address is not verified.";
  await deps.mail.deliver({
    // To staff: in English, whatever the sender's language.
    ...renderEmail(supportEmail, subject, {
      lng: DEFAULT_LANGUAGE,
      paragraphs: [
        { text: `A message from the contact form of the help page. Reply to this email to answer ${input.email}.` },
        { text: `From: ${input.email}\nTopic: ${input.topic}\n${who}` },
        { text: message },
      ],
    }),
    replyTo: input.email,
  });
  // A visitor's address (or another one typed by a signed-in customer) has proved nothing: no mail with
  // someone's text goes to it, the page says the message was sent. Support's reply goes there all the same.
  const copied = input.account !== null && input.account.email.toLowerCase() === input.email.toLowerCase();
  if (copied) {
    // In the account's language (docs/decisions/064).
    const lng = asLanguage(input.account?.language);
    const t = translatorFor(lng);
    await deps.mail.deliver(
      renderEmail(input.email, t("emails:support.subject"), {
        lng,
        paragraphs: [{ text: t("emails:support.body") }, { text: message }, { text: t("emails:support.ignore") }],
      }),
    );
  }
  return { copied };
}
