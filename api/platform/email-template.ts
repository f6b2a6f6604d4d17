import { escapeHtml } from "./html";
import { type Language, translatorFor } from "./i18n";
import type { Mail } from "./mailer";

/*
 * The one layout of the product's emails, whichever domain sends them: a text and an HTML body;
 * interpolated values are HTML-escaped. An email that carries a code has no other run of six
 * digits in its text (no links, no address, no numbers but the code), so that clients and tests
 * can take the code with /\b\d{6}\b/. Written in the recipient's language (the account's, docs/decisions/064):
 * the callers give their texts in it, the layout its sign-off and the HTML's lang.
 */

const PRODUCT = "VPN";

export interface EmailParagraph {
  text: string;
  /** A link shown after the text (href = the URL, also written out in the text body). */
  link?: string;
}

export function renderEmail(to: string, subject: string, opts: { code?: string; paragraphs: EmailParagraph[]; lng: Language }): Mail {
  const signOff = translatorFor(opts.lng)("emails:layout.signOff", { product: PRODUCT });
  const textParts: string[] = [];
  const htmlParts: string[] = [];
  if (opts.code) {
    textParts.push(opts.code);
    htmlParts.push(`<p><strong>${escapeHtml(opts.code)}</strong></p>`);
  }
  for (const p of opts.paragraphs) {
    textParts.push(p.link ? `${p.text}\n${p.link}` : p.text);
    htmlParts.push(
      p.link
        ? `<p>${escapeHtml(p.text)}<br><a href="${escapeHtml(p.link)}">${escapeHtml(p.link)}</a></p>`
        : // A paragraph's own line breaks (a customer's message) stay line breaks.
          `<p>${escapeHtml(p.text).replace(/\n/g, "<br>")}</p>`,
    );
  }
  textParts.push(signOff);
  htmlParts.push(`<p>${escapeHtml(signOff)}</p>`);
  const html =
    `<!doctype html><html lang="${opts.lng}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>` +
    `<body>${htmlParts.join("")}</body></html>`;
  return { to, subject, text: `${textParts.join("\n\n")}\n`, html };
}
