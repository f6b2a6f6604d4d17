import { createRequire } from "node:module";
import type { Language } from "../platform/i18n";
import PDFDocument from "pdfkit";

/*
 * The PDF of an invoice or a credit note (docs/decisions/060): pdfkit on A4, with DejaVu Sans
 * (regular and bold, from the dejavu-fonts-ttf package) embedded as a subset, so that a name or an
 * address in any Latin, Greek or Cyrillic script prints as typed. The document's dates are the
 * document's own (no clock), so the same document renders the same bytes.
 */

const require = createRequire(import.meta.url);
/** Resolved through the package, so the bundled server and the image (which copies node_modules) find them. */
const FONTS = {
  regular: require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans.ttf"),
  bold: require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf"),
};

export interface PdfParty {
  /** The first line, printed bold: a legal name, a person's name, or the account's email. */
  name: string;
  lines: readonly string[];
}

export interface PdfLineItem {
  description: string;
  /** A second, smaller line under the description (the period it covers). */
  detail?: string;
  net: string;
  vatRate: string;
  vat: string;
  total: string;
}

export interface BillingPdf {
  /** 'Invoice' or 'Credit note'. */
  title: string;
  /** The document info's title, e.g. 'Invoice INV-2026-000123'. */
  infoTitle: string;
  /** Label / value rows under the title: number, dates, the invoice a credit note corrects, payment method. */
  facts: readonly [string, string][];
  seller: PdfParty;
  buyer: PdfParty;
  items: readonly PdfLineItem[];
  /** Label / value rows of the totals (net, VAT, total). */
  totals: readonly [string, string][];
  /** Small print at the end (the VAT note, the currency). */
  notes: readonly string[];
  /** The document's date: its info's creation date, so that the file does not depend on the clock. */
  date: Date;
  /** The document's language (the account's, docs/decisions/064): its labels below are in it. */
  lang: Language;
  /** The headings and column labels, in `lang`. */
  labels: { seller: string; billTo: string; description: string; net: string; vatRate: string; vat: string; total: string };
}

const MARGIN = 56;
const A4_WIDTH = 595.28;
const CONTENT_WIDTH = A4_WIDTH - 2 * MARGIN;
const TEXT = "#111111";
const MUTED = "#555555";

/** Renders the document: one A4 page (pdfkit adds a page if the lines run over). */
export function renderBillingPdf(content: BillingPdf): Promise<Buffer> {
  const doc = new PDFDocument({
    size: "A4",
    margin: MARGIN,
    info: { Title: content.infoTitle, Producer: "VPN Account", Creator: "VPN Account", CreationDate: content.date, ModDate: content.date },
    lang: content.lang,
    displayTitle: true,
    pdfVersion: "1.7",
  });
  doc.registerFont("regular", FONTS.regular);
  doc.registerFont("bold", FONTS.bold);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });

  doc.fillColor(TEXT).font("bold").fontSize(22).text(content.title, MARGIN, MARGIN);
  doc.moveDown(0.6);

  // Facts (left) and the seller (right), side by side.
  const top = doc.y;
  const half = CONTENT_WIDTH / 2;
  doc.fontSize(10);
  for (const [label, value] of content.facts) {
    const y = doc.y;
    doc.font("regular").fillColor(MUTED).text(label, MARGIN, y, { width: 110 });
    doc.font("regular").fillColor(TEXT).text(value, MARGIN + 110, y, { width: half - 110 });
  }
  const factsBottom = doc.y;
  doc.y = top;
  party(doc, content.labels.seller, content.seller, MARGIN + half + 10, half - 10);
  doc.y = Math.max(doc.y, factsBottom) + 18;

  party(doc, content.labels.billTo, content.buyer, MARGIN, CONTENT_WIDTH);
  doc.moveDown(1.2);

  // The lines: description, net, VAT rate, VAT, total.
  const { labels } = content;
  const columns = [
    { key: "description", label: labels.description, width: CONTENT_WIDTH - 4 * 72, align: "left" },
    { key: "net", label: labels.net, width: 72, align: "right" },
    { key: "vatRate", label: labels.vatRate, width: 72, align: "right" },
    { key: "vat", label: labels.vat, width: 72, align: "right" },
    { key: "total", label: labels.total, width: 72, align: "right" },
  ] as const;
  let x = MARGIN;
  const headerY = doc.y;
  doc.font("bold").fontSize(9.5).fillColor(TEXT);
  for (const column of columns) {
    doc.text(column.label, x, headerY, { width: column.width, align: column.align });
    x += column.width;
  }
  doc.y = headerY + 16;
  rule(doc);
  for (const item of content.items) {
    const rowY = doc.y + 6;
    x = MARGIN;
    doc.font("regular").fontSize(10).fillColor(TEXT);
    for (const column of columns) {
      doc.text(item[column.key], x, rowY, { width: column.width - (column.key === "description" ? 8 : 0), align: column.align });
      x += column.width;
    }
    if (item.detail) doc.fontSize(9).fillColor(MUTED).text(item.detail, MARGIN, doc.y + 2, { width: columns[0].width - 8 });
    doc.y += 6;
    rule(doc);
  }

  // The totals, right-aligned under the amounts.
  doc.moveDown(0.6);
  const labelX = MARGIN + CONTENT_WIDTH - 260;
  for (const [index, [label, value]] of content.totals.entries()) {
    const last = index === content.totals.length - 1;
    const y = doc.y;
    doc.font(last ? "bold" : "regular").fontSize(last ? 11 : 10).fillColor(TEXT);
    doc.text(label, labelX, y, { width: 160 });
    doc.text(value, labelX + 160, y, { width: 100, align: "right" });
    doc.y += 3;
  }

  doc.moveDown(1.5);
  doc.font("regular").fontSize(9).fillColor(MUTED);
  for (const note of content.notes) doc.text(note, MARGIN, doc.y, { width: CONTENT_WIDTH }).moveDown(0.3);

  doc.end();
  return done;
}

function party(doc: PDFKit.PDFDocument, heading: string, who: PdfParty, x: number, width: number) {
  doc.font("bold").fontSize(9).fillColor(MUTED).text(heading.toUpperCase(), x, doc.y, { width, characterSpacing: 0.5 });
  doc.font("bold").fontSize(10.5).fillColor(TEXT).text(who.name, x, doc.y + 2, { width });
  doc.font("regular").fontSize(10);
  for (const line of who.lines) doc.text(line, x, doc.y, { width });
}

function rule(doc: PDFKit.PDFDocument) {
  doc.moveTo(MARGIN, doc.y).lineTo(MARGIN + CONTENT_WIDTH, doc.y).lineWidth(0.5).strokeColor("#bbbbbb").stroke();
}
