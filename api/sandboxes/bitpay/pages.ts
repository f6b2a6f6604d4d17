import { escapeHtml, sandboxPage } from "../../platform/html";
import { type SandboxAction, type SandboxInvoice, centsOfSats } from "./invoices";

/*
 * The invoice page (the stand-in for BitPay's hosted checkout). Plain server HTML: no scripts, no
 * inline styles (the portal's Content-Security-Policy forbids them), every value escaped, one form
 * per simulated outcome so that it works without JavaScript.
 */

export const STYLESHEET_PATH = "/dev/bitpay/sandbox.css";
const TITLE = "Pay with crypto (sandbox)";

export function invoicePath(id: string): string {
  return `/dev/bitpay/invoice/${encodeURIComponent(id)}`;
}

const SANDBOX_NOTICE = `<p class="notice" role="note"><strong>Sandbox:</strong> this is not BitPay. It is the development
stand-in for BitPay's invoice page: no cryptocurrency moves. Choose what the buyer's wallet does.</p>`;

const BUTTONS: readonly { action: SandboxAction; label: string; explains: string }[] = [
  { action: "pay", label: "Mark as paid", explains: "The full amount arrives and is confirmed at once; you return to the site." },
  { action: "expire", label: "Let it expire", explains: "Nothing is paid and the invoice expires; you return to the checkout." },
  { action: "pay_short", label: "Pay short", explains: "Half the amount arrives; the invoice expires underpaid (paidPartial)." },
  { action: "pay_late", label: "Pay late", explains: "The full amount arrives after expiry; BitPay confirms it flagged paidLate." },
];

const money = (cents: number) =>
  `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} USD`;

/** 2026-11-21 14:20 UTC */
const utcText = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

const STATUS_LABELS: Record<SandboxInvoice["status"], string> = { new: "New", confirmed: "Confirmed", expired: "Expired" };

function statusText(invoice: SandboxInvoice): string {
  if (invoice.exceptionStatus === "paidLate") return `${STATUS_LABELS[invoice.status]} (paid late)`;
  if (invoice.exceptionStatus === "paidPartial") return `${STATUS_LABELS[invoice.status]} (paid partially)`;
  return STATUS_LABELS[invoice.status];
}

/** Where the buyer goes once the invoice is final: back to the site, paid or not. */
export function returnUrl(invoice: SandboxInvoice): string | null {
  return (invoice.status === "confirmed" ? invoice.redirectURL : invoice.closeURL) ?? null;
}

function outcomeText(invoice: SandboxInvoice): string {
  const paid = money(centsOfSats(invoice.amountPaid));
  if (invoice.status === "confirmed") return `This invoice is paid: ${paid} arrived and is confirmed.`;
  if (invoice.exceptionStatus === "paidPartial") {
    return `This invoice expired underpaid: only ${paid} of ${money(Math.round(invoice.price * 100))} arrived (BitPay refunds it).`;
  }
  return "This invoice expired before it was paid.";
}

function actions(invoice: SandboxInvoice): string {
  const target = escapeHtml(invoicePath(invoice.id));
  const forms = BUTTONS.map(
    (button) => `<li>
<form method="post" action="${target}">
<input type="hidden" name="action" value="${button.action}">
<button type="submit" aria-describedby="explains-${button.action}">${escapeHtml(button.label)}</button>
</form>
<p id="explains-${button.action}">${escapeHtml(button.explains)}</p>
</li>`,
  ).join("\n");
  return `<h2>Simulate the buyer's wallet</h2>
<ul class="actions">
${forms}
</ul>`;
}

function finalSection(invoice: SandboxInvoice): string {
  const back = returnUrl(invoice);
  return `<p class="outcome" role="status">${escapeHtml(outcomeText(invoice))}</p>
${back ? `<p><a href="${escapeHtml(back)}">Return to the site</a></p>` : ""}`;
}

export function renderInvoicePage(invoice: SandboxInvoice): string {
  const due = money(Math.round(invoice.price * 100));
  const body = `<h1>${escapeHtml(TITLE)}</h1>
${SANDBOX_NOTICE}
<section class="invoice" aria-label="Invoice">
${invoice.itemDesc ? `<p class="item">${escapeHtml(invoice.itemDesc)}</p>` : ""}
<p class="amount">Amount due: ${escapeHtml(due)}</p>
<dl class="facts">
<div><dt>Status</dt><dd class="status">${escapeHtml(statusText(invoice))}</dd></div>
<div><dt>Expires</dt><dd><time datetime="${new Date(invoice.expirationTime).toISOString()}">${escapeHtml(utcText(invoice.expirationTime))}</time></dd></div>
${invoice.buyer.email ? `<div><dt>Buyer</dt><dd>${escapeHtml(invoice.buyer.email)}</dd></div>` : ""}
<div><dt>Invoice</dt><dd><code>${escapeHtml(invoice.id)}</code></dd></div>
</dl>
</section>
${invoice.status === "new" ? actions(invoice) : finalSection(invoice)}`;
  return sandboxPage(TITLE, STYLESHEET_PATH, body);
}

/** An unknown invoice, a bad request, a failure. */
export function renderMessagePage(title: string, message: string): string {
  return sandboxPage(title, STYLESHEET_PATH, `<h1>${escapeHtml(title)}</h1>
${SANDBOX_NOTICE}
<p>${escapeHtml(message)}</p>`);
}

export const STYLESHEET = `*{box-sizing:border-box}
body{margin:0;padding:2rem 1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f6fb;color:#1a1f36}
.card{max-width:30rem;margin:0 auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{margin:0 0 1rem;font-size:1.5rem;font-weight:600}
h2{margin:1.5rem 0 .5rem;font-size:1.125rem;font-weight:600}
.notice{margin:0 0 1rem;padding:.75rem;border:1px solid #f9ab00;border-radius:4px;background:#fef7e0;font-size:.875rem}
.item{margin:0 0 .25rem;font-weight:500}
.amount{margin:0 0 1rem;font-size:1.25rem;font-weight:600}
.facts{margin:0 0 1rem}
.facts div{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}
.facts dt{color:#4f566b}
.facts dd{margin:0;min-width:0;font-weight:500;overflow-wrap:anywhere}
.actions{list-style:none;margin:0;padding:0}
.actions li{margin:0 0 1rem}
.actions p{margin:.25rem 0 0;font-size:.875rem;color:#4f566b}
button{padding:.625rem 1.25rem;border:0;border-radius:4px;background:#1a3b8b;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button:focus-visible,a:focus-visible{outline:2px solid #1a3b8b;outline-offset:2px}
.outcome{margin:0 0 1rem;font-weight:500}
a{color:#1a3b8b}
code{font-size:.95em}
`;
