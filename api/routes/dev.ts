import type { Express, Response } from "express";
import type { ApiContext } from "../context";
import { escapeHtml } from "../lib/html";
import { asyncHandler } from "../lib/http";
import { listOutbox } from "../lib/mailer";
import { defineRoute } from "../lib/routing";

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

/**
 * The mail sandbox (registered only while SMTP_URL is unset): the outbox as a page and as JSON.
 * Plain HTML without scripts or inline styles (the portal's CSP applies).
 */
export function registerDevMailRoutes(app: Express, ctx: ApiContext): void {
  defineRoute(app, "/dev/mailbox.json", {
    get: asyncHandler(async (req, res) => {
      noStore(res);
      const emails = await listOutbox(ctx.db, { to: queryEmail(req.query.to), limit: MAILBOX_LIMIT });
      res.status(200).json(emails);
    }),
  });

  defineRoute(app, "/dev/mailbox", {
    get: asyncHandler(async (req, res) => {
      noStore(res);
      const to = queryEmail(req.query.to);
      const emails = await listOutbox(ctx.db, { to, limit: MAILBOX_LIMIT });
      const items = emails
        .map(
          (m) =>
            `<li><article><h2>${escapeHtml(m.subject)}</h2>` +
            `<p>To: ${escapeHtml(m.to)}<br>Sent: <time datetime="${escapeHtml(m.sentAt)}">${escapeHtml(m.sentAt)}</time></p>` +
            `<pre>${escapeHtml(m.text)}</pre></article></li>`,
        )
        .join("\n");
      const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>Mailbox (sandbox)</title></head>
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
    }),
  });
}
