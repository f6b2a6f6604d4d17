import type { Response } from "express";
import { z } from "zod";
import { route } from "../contract/route";
import { isMovable } from "../../platform/clock";
import { escapeHtml } from "../../platform/html";
import { MailboxEntrySchema, listOutbox } from "../../platform/mailer";

/** How many emails the mailbox shows. */
const MAILBOX_LIMIT = 200;

function noStore(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
}

function queryEmail(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" && first.trim() ? first.trim().slice(0, 254) : undefined;
}

/** `to`: any value is taken (the first of several; blank is none), so this query never fails. */
const mailboxQuery = (format?: "email") =>
  z.object({
    to: z
      .unknown()
      .optional()
      .transform(queryEmail)
      .meta({
        description: format ? "An email: any text is taken (trimmed, compared without regard to case)." : undefined,
        override: { type: "string" },
      }),
  });

const SANDBOX_ONLY = "Exists only while mail is a sandbox (SMTP_URL unset); otherwise the path is not the API's.";

const MAILBOX_STYLESHEET_PATH = "/dev/mailbox.css";
// Long links and lines in an email wrap inside the page, so that it fits a phone (320 px and up).
const MAILBOX_STYLESHEET = `*{box-sizing:border-box}
body{margin:0;padding:1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:anywhere}
main{max-width:48rem;margin:0 auto}
ol{padding-left:1.25rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:.875rem}
input{max-width:100%}
`;

/**
 * The mail sandbox (registered only while SMTP_URL is unset): the outbox as a page and as JSON.
 * Plain HTML without scripts or inline styles (the portal's CSP applies).
 */
export const devMailRoutes = [
  route({
    method: "get",
    path: "/dev/mailbox.json",
    operationId: "devMailboxJson",
    tags: ["Sandbox"],
    summary: "The mail sandbox's outbox as JSON",
    description: `A bare JSON array (not the envelope), newest first, at most ${MAILBOX_LIMIT} emails. \`to\` matches the recipient without regard to case. ${SANDBOX_ONLY}`,
    auth: false,
    query: mailboxQuery("email"),
    success: {
      description: "The emails",
      raw: { mediaType: "application/json", schema: z.array(MailboxEntrySchema) },
    },
    errors: { 422: null },
    async handler({ ctx, res, query }) {
      noStore(res);
      const emails = await listOutbox(ctx.db, { to: query.to, limit: MAILBOX_LIMIT });
      res.status(200).json(emails);
    },
  }),

  route({
    method: "get",
    path: "/dev/mailbox",
    operationId: "devMailbox",
    tags: ["Sandbox"],
    summary: "The mail sandbox's outbox as a page",
    description: `Every email sent, newest first: recipient, subject, sent time and text body. Optional query \`to\` filters by recipient (case-insensitive). Plain HTML. ${SANDBOX_ONLY}`,
    auth: false,
    query: mailboxQuery(),
    success: { description: "An HTML page", raw: { mediaType: "text/html", schema: z.string() } },
    errors: { 422: null },
    async handler({ ctx, res, query }) {
      noStore(res);
      const { to } = query;
      const emails = await listOutbox(ctx.db, { to, limit: MAILBOX_LIMIT });
      const items = emails
        .map(
          (m) =>
            `<li><article><h2>${escapeHtml(m.subject)}</h2>` +
            `<p>To: ${escapeHtml(m.to)}<br>${m.replyTo ? `Reply-To: ${escapeHtml(m.replyTo)}<br>` : ""}Sent: <time datetime="${escapeHtml(m.sentAt)}">${escapeHtml(m.sentAt)}</time></p>` +
            `<pre>${escapeHtml(m.text)}</pre></article></li>`,
        )
        .join("\n");
      const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Mailbox (sandbox)</title><link rel="stylesheet" href="${MAILBOX_STYLESHEET_PATH}"></head>
<body>
<main>
<h1>Mailbox (sandbox)</h1>
<p>Every email the product sent while mail is a sandbox (SMTP_URL is not set), newest first${to ? `, to ${escapeHtml(to)}` : ""}.</p>
<form method="get" action="/dev/mailbox"><label for="to">Recipient</label> <input id="to" name="to" type="email" value="${escapeHtml(to ?? "")}"> <button type="submit">Filter</button></form>
${emails.length ? `<ol>\n${items}\n</ol>` : "<p>No emails yet.</p>"}
</main>
</body>
</html>`;
      res.status(200).type("html").send(html);
    },
  }),
  route({
    method: "get",
    path: MAILBOX_STYLESHEET_PATH,
    operationId: "devMailboxStylesheet",
    tags: ["Sandbox"],
    summary: "The mailbox page's stylesheet",
    description: SANDBOX_ONLY,
    auth: false,
    success: { description: "CSS", raw: { mediaType: "text/css", schema: z.string() } },
    async handler({ res }) {
      res.setHeader("Cache-Control", "public, max-age=300");
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.status(200).type("css").send(MAILBOX_STYLESHEET);
    },
  }),
];

const clockRequest = z
  .object({
    days: z
      .string({ error: "Enter a number of days." })
      .trim()
      .regex(/^\d{1,4}$/, { error: "Enter a number of days from 1 to 3650." })
      .transform(Number)
      .refine((n) => n >= 1 && n <= 3650, { error: "Enter a number of days from 1 to 3650." })
      .meta({ override: { type: "string", pattern: "^\\d{1,4}$" }, description: "Days to move the clock forward (1 to 3650)." }),
  })
  .meta({ id: "ClockRequest" });

const CLOCK_ONLY = "Exists only in sandbox mode (every integration a sandbox).";

/** Where to go back to after moving the clock: the page that asked, if it is ours. */
function backTo(referer: string | undefined, host: string | undefined): string {
  if (!referer) return "/dev/clock";
  try {
    const url = new URL(referer);
    return url.host === host ? `${url.pathname}${url.search}` : "/dev/clock";
  } catch {
    return "/dev/clock";
  }
}

/**
 * The test clock (DESIGN §2, like Stripe's test clocks): the product's business time, moved forward
 * by whole days; everything that comes due (renewals with their webhooks, expiries) runs before the
 * answer. Token and session lifetimes follow the real clock, so moving it signs nobody out.
 */
export const devClockRoutes = [
  route({
    method: "get",
    path: "/dev/clock",
    operationId: "devClock",
    tags: ["Sandbox"],
    summary: "The test clock: the product's current time, and a form to move it",
    description: CLOCK_ONLY,
    auth: false,
    success: { description: "An HTML page", raw: { mediaType: "text/html", schema: z.string() } },
    handler({ ctx, res }) {
      noStore(res);
      const now = ctx.clock.now().toISOString();
      res
        .status(200)
        .type("html")
        .send(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Test clock (sandbox)</title></head>
<body>
<main>
<h1>Test clock (sandbox)</h1>
<p>The product's time is <time datetime="${escapeHtml(now)}">${escapeHtml(now)}</time>.</p>
<form method="post" action="/dev/clock"><label for="days">Days</label> <input id="days" name="days" type="number" min="1" max="3650" value="1" required> <button type="submit">Advance</button></form>
<p>Advancing runs everything that has come due: renewals (with the card gateway's webhooks) and expiries.</p>
</main>
</body>
</html>`);
    },
  }),

  route({
    method: "post",
    path: "/dev/clock",
    operationId: "advanceDevClock",
    tags: ["Sandbox"],
    summary: "Move the test clock forward by N days",
    description: `Form field \`days\`. Runs everything that came due before answering, then redirects back (303) to the page that posted (or /dev/clock). Needs no Origin header. ${CLOCK_ONLY}`,
    auth: false,
    body: clockRequest,
    success: {
      description: "Back to the page that posted (or /dev/clock)",
      status: 303,
      headers: z.object({ Location: z.string().meta({ description: "A path of this origin" }) }),
    },
    async handler({ ctx, req, res, body: input }) {
      if (!isMovable(ctx.clock)) throw new Error("The test clock needs a movable clock");
      await ctx.clock.advanceDays(input.days);
      await ctx.runDueJobs();
      res.redirect(303, backTo(req.headers.referer, req.headers.host));
    },
  }),
];
