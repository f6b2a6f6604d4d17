import nodemailer, { type Transporter } from "nodemailer";
import { z } from "zod";
import type { ApiConfig } from "./config";
import type { Logger } from "./logger";
import type { Database } from "./db";
import type { Clock } from "./clock";

/** Every email has a plain-text and an HTML body. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Where a reply goes instead of From (a contact-form message: its sender). A checked address, never raw input. */
  replyTo?: string;
}

export interface Mailer {
  /** Resolves once the mail is stored (sandbox) or accepted by the SMTP server (live). */
  send(mail: Mail): Promise<void>;
  /** Resolves when the mail server takes a session (connects, greets, signs in); rejects otherwise. */
  verify?(): Promise<void>;
  close?(): Promise<void>;
}

/** The mail server did not take the session: nothing was sent. */
export class MailUnavailableError extends Error {
  constructor(reason: string) {
    super(`The mail server is unavailable: ${reason}`);
    this.name = "MailUnavailableError";
  }
}

/**
 * The mail sandbox (SMTP_URL unset): every email goes to the mail_outbox table, so that every
 * instance sharing the database sees it (GET /dev/mailbox, /dev/mailbox.json).
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  async send(mail: Mail): Promise<void> {
    await this.db
      .insertInto("mail_outbox")
      .values({
        to_address: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        reply_to: mail.replyTo ?? null,
        sent_at: this.clock.now().toISOString(),
      })
      .execute();
  }
}

/** An email of the sandbox outbox, as /dev/mailbox.json lists it. */
export const MailboxEntrySchema = z
  .strictObject({
    to: z.string(),
    subject: z.string(),
    text: z
      .string()
      .meta({ description: "Plain-text body. In an email that carries a code, the code is the only run of six digits." }),
    sentAt: z.string().meta({ format: "date-time" }),
    replyTo: z.string().optional().meta({ description: "The Reply-To header, when the email has one (a contact-form message)." }),
  })
  .meta({ id: "MailboxEntry" });

export type OutboxEntry = z.infer<typeof MailboxEntrySchema>;

/** The outbox, newest first, optionally only the emails to one address (matched without regard to case). */
export async function listOutbox(db: Database, opts: { to?: string; limit?: number } = {}): Promise<OutboxEntry[]> {
  let query = db
    .selectFrom("mail_outbox")
    .select(["to_address", "subject", "text", "sent_at", "reply_to"])
    .orderBy("id", "desc")
    .limit(opts.limit ?? 200);
  if (opts.to) query = query.where((eb) => eb(eb.fn("lower", ["to_address"]), "=", opts.to!.trim().toLowerCase()));
  const rows = await query.execute();
  return rows.map((r) => ({
    to: r.to_address,
    subject: r.subject,
    text: r.text,
    sentAt: r.sent_at,
    ...(r.reply_to ? { replyTo: r.reply_to } : {}),
  }));
}

/** Live mail: SMTP through nodemailer, from SMTP_URL (smtp:// or smtps://, credentials in the URL). */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // Options given in the URL (e.g. ?pool=true) win over these timeouts.
    this.transport = nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  }

  async send(mail: Mail): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    });
  }

  async verify(): Promise<void> {
    await this.transport.verify();
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

export function createMailer(config: ApiConfig, deps: { db: Database; clock: Clock }): Mailer {
  const url = config.credentials.smtpUrl;
  if (config.integrations.mail === "live" && url) return new SmtpMailer(url, config.mailFrom);
  return new OutboxMailer(deps.db, deps.clock);
}

/**
 * What routes send mail through. It logs only the recipient and the subject (never a body: they
 * carry codes and links). With live SMTP the send runs in the background (failures are logged): the
 * answer then takes the same time whether or not an email was sent, which would otherwise tell
 * which emails have accounts. The sandbox outbox is written before the answer, so that a client
 * (or a test) can read the code as soon as the request returns.
 */
export class MailService {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly mailer: Mailer,
    private readonly opts: { background: boolean; logger: Logger },
  ) {}

  /** Sends (live: in the background; `onLost` runs when that send fails) or stores (sandbox) an email. */
  async deliver(mail: Mail, onLost?: () => Promise<void>): Promise<void> {
    const { logger } = this.opts;
    logger.info(`Mail to ${mail.to}: ${mail.subject}`);
    if (!this.opts.background) {
      await this.mailer.send(mail);
      return;
    }
    const task: Promise<void> = this.mailer
      .send(mail)
      .catch(async (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        logger.error(`Mail to ${mail.to} (${mail.subject}) could not be sent: ${reason}`);
        await onLost?.().catch((undoError: unknown) => {
          logger.error(`Undoing the lost mail to ${mail.to} failed: ${undoError instanceof Error ? undoError.message : String(undoError)}`);
        });
      })
      .finally(() => {
        this.pending.delete(task);
      });
    this.pending.add(task);
  }

  /**
   * Checks that the mail server takes a session before a request that a visitor waits on (an emailed
   * code): the same check whether or not an email will go out, so that neither the answer nor its
   * time tells which emails have accounts. Throws MailUnavailableError. The sandbox outbox is
   * always available.
   */
  async ensureAvailable(): Promise<void> {
    if (!this.mailer.verify) return;
    try {
      await this.mailer.verify();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.opts.logger.error(`The mail server is unavailable: ${reason}`);
      throw new MailUnavailableError(reason);
    }
  }

  /** Waits for background sends, then closes the transport. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    await this.mailer.close?.();
  }
}
