import { escapeHtml, sandboxPage } from "../../platform/html";
import { TEST_CARDS, groupedNumber } from "./cards";

/*
 * The sandbox's browser pages: the hosted Checkout stand-in and the hosted invoice. Plain server
 * HTML (no scripts, no inline styles: the portal's Content-Security-Policy forbids them), every input
 * with a visible label, every value escaped.
 */

export const STYLESHEET_PATH = "/dev/stripe/sandbox.css";

export type CardField = "card_number" | "card_expiry" | "card_cvc" | "billing_name" | "billing_postal_code";

/** The card form's fields, in order, with their labels. */
const CARD_FIELDS: readonly {
  name: CardField;
  label: string;
  attributes: string;
  /** Typed values are kept on a re-shown form, except the card number and CVC. */
  keep: boolean;
}[] = [
  { name: "card_number", label: "Card number", attributes: 'inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="4242 4242 4242 4242"', keep: false },
  { name: "card_expiry", label: "Expiry (MM / YY)", attributes: 'inputmode="numeric" autocomplete="cc-exp" maxlength="9" placeholder="MM / YY"', keep: true },
  { name: "card_cvc", label: "CVC", attributes: 'inputmode="numeric" autocomplete="cc-csc" maxlength="4"', keep: false },
  { name: "billing_name", label: "Cardholder name", attributes: 'autocomplete="cc-name" maxlength="100"', keep: true },
  { name: "billing_postal_code", label: "Postal code", attributes: 'autocomplete="postal-code" maxlength="12"', keep: true },
];

export interface CardFormState {
  values: Partial<Record<CardField, string>>;
  fieldErrors: Partial<Record<CardField, string>>;
  /** A refusal of the whole payment (a decline), shown above the form. */
  formError: string | null;
}

export const EMPTY_FORM: CardFormState = { values: {}, fieldErrors: {}, formError: null };


const SANDBOX_NOTICE = `<p class="notice" role="note"><strong>Sandbox:</strong> this is not Stripe. It is the development
stand-in for Stripe's payment pages: no card is charged and nothing you enter leaves this server.</p>`;

function testCardsNote(): string {
  const items = TEST_CARDS.map(
    (card) => `<li><code>${escapeHtml(groupedNumber(card))}</code> ${escapeHtml(card.description)}</li>`,
  ).join("\n");
  return `<section class="test-cards" aria-labelledby="test-cards-title">
<h2 id="test-cards-title">Test cards</h2>
<p>Only these test card numbers are accepted, with any future expiry date and any CVC:</p>
<ul>
${items}
</ul>
</section>`;
}

function cardFields(state: CardFormState): string {
  return CARD_FIELDS.map((field) => {
    const error = state.fieldErrors[field.name];
    const value = field.keep ? (state.values[field.name] ?? "") : "";
    const invalid = error ? ` aria-invalid="true" aria-describedby="${field.name}-error"` : "";
    return `<div class="field field-${field.name}">
<label for="${field.name}">${escapeHtml(field.label)}</label>
<input id="${field.name}" name="${field.name}" type="text" required ${field.attributes} value="${escapeHtml(value)}"${invalid}>
${error ? `<p class="error" id="${field.name}-error">${escapeHtml(error)}</p>` : ""}
</div>`;
  }).join("\n");
}

function formAlert(state: CardFormState): string {
  return state.formError ? `<div class="alert" role="alert"><p>${escapeHtml(state.formError)}</p></div>` : "";
}

export interface SummaryRow {
  label: string;
  amount: string;
}

function summary(rows: readonly SummaryRow[], total: SummaryRow): string {
  const lines = rows.map((row) => `<tr><th scope="row">${escapeHtml(row.label)}</th><td>${escapeHtml(row.amount)}</td></tr>`);
  return `<table class="summary">
<tbody>
${lines.join("\n")}
</tbody>
<tfoot>
<tr><th scope="row">${escapeHtml(total.label)}</th><td>${escapeHtml(total.amount)}</td></tr>
</tfoot>
</table>`;
}

export interface CheckoutPageView {
  action: string;
  /** The item bought ("VPN 1 Year") and how it bills ("$119.76 / year"), when there is one. */
  item: { name: string; quantity: number; price: string } | null;
  rows: SummaryRow[];
  total: SummaryRow;
  email: string | null;
  submitLabel: string;
  cancelUrl: string | null;
  form: CardFormState;
}

export function renderCheckoutPage(view: CheckoutPageView): string {
  const title = "Secure payment (sandbox)";
  const item = view.item
    ? `<p class="item"><span class="item-name">${escapeHtml(view.item.name)}</span>${view.item.quantity > 1 ? ` × ${view.item.quantity}` : ""}
<span class="item-price">${escapeHtml(view.item.price)}</span></p>`
    : `<p class="item">Save a card for later payments.</p>`;
  const body = `<h1>${escapeHtml(title)}</h1>
${SANDBOX_NOTICE}
<section class="order" aria-label="Order summary">
${item}
${summary(view.rows, view.total)}
${view.email ? `<p class="email">Email: <strong>${escapeHtml(view.email)}</strong></p>` : ""}
</section>
${formAlert(view.form)}
<form method="post" action="${escapeHtml(view.action)}" novalidate>
${cardFields(view.form)}
<div class="actions">
<button type="submit">${escapeHtml(view.submitLabel)}</button>
${view.cancelUrl ? `<a class="secondary" href="${escapeHtml(view.cancelUrl)}">Cancel</a>` : ""}
</div>
</form>
${testCardsNote()}`;
  return sandboxPage(title, STYLESHEET_PATH, body);
}

export interface MessagePageView {
  title: string;
  message: string;
  link: { href: string; text: string } | null;
}

/** A session already paid or expired, an unknown page. */
export function renderMessagePage(view: MessagePageView): string {
  const body = `<h1>${escapeHtml(view.title)}</h1>
${SANDBOX_NOTICE}
<p>${escapeHtml(view.message)}</p>
${view.link ? `<p><a href="${escapeHtml(view.link.href)}">${escapeHtml(view.link.text)}</a></p>` : ""}`;
  return sandboxPage(view.title, STYLESHEET_PATH, body);
}

export interface ChallengePageView {
  action: string;
  /** "Pay $9.99" or "Save card". */
  what: string;
  card: string;
}

/** The 3-D Secure challenge: two plain forms, one per answer (no scripts, so it works with JavaScript off). */
export function renderChallengePage(view: ChallengePageView): string {
  const title = "Authenticate your payment (sandbox)";
  const button = (result: "complete" | "fail", text: string) =>
    `<form method="post" action="${escapeHtml(view.action)}"><input type="hidden" name="result" value="${result}"><button type="submit">${escapeHtml(text)}</button></form>`;
  const body = `<h1>${escapeHtml(title)}</h1>
${SANDBOX_NOTICE}
<p>Your bank asks you to confirm: ${escapeHtml(view.what)} with ${escapeHtml(view.card)}. This stands in for 3-D Secure.</p>
<div class="challenge">
${button("complete", "Complete authentication")}
${button("fail", "Fail authentication")}
</div>`;
  // With JavaScript it is shown in a frame of the checkout's dialog, on a page with a main of its own.
  return sandboxPage(title, STYLESHEET_PATH, body, { mainLabel: "Bank authentication (sandbox)" });
}

export interface InvoicePageView {
  number: string;
  date: string;
  email: string | null;
  status: string;
  rows: SummaryRow[];
  total: SummaryRow;
  /** The pay form, while the invoice is open. */
  pay: { action: string; submitLabel: string; form: CardFormState } | null;
  /** The account's public website (the way back to the merchant after paying). */
  businessUrl?: string;
}

export function renderInvoicePage(view: InvoicePageView): string {
  const title = `Invoice ${view.number} (sandbox)`;
  const pay = view.pay
    ? `<h2>Pay this invoice</h2>
${formAlert(view.pay.form)}
<form method="post" action="${escapeHtml(view.pay.action)}" novalidate>
${cardFields(view.pay.form)}
<div class="actions">
<button type="submit">${escapeHtml(view.pay.submitLabel)}</button>
</div>
</form>
${testCardsNote()}`
    : "";
  const body = `<h1>${escapeHtml(title)}</h1>
${SANDBOX_NOTICE}
<dl class="facts">
<div><dt>Invoice number</dt><dd>${escapeHtml(view.number)}</dd></div>
<div><dt>Date</dt><dd>${escapeHtml(view.date)}</dd></div>
${view.email ? `<div><dt>Billed to</dt><dd>${escapeHtml(view.email)}</dd></div>` : ""}
<div><dt>Status</dt><dd class="status">${escapeHtml(view.status)}</dd></div>
</dl>
${summary(view.rows, view.total)}
${pay}
${view.businessUrl ? `<p class="email"><a href="${escapeHtml(view.businessUrl)}">Return to the merchant's site</a></p>` : ""}`;
  return sandboxPage(title, STYLESHEET_PATH, body);
}

export const STYLESHEET = `*{box-sizing:border-box}
body{margin:0;padding:2rem 1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f6f8fa;color:#1a1f36}
.card{max-width:30rem;margin:0 auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{margin:0 0 1rem;font-size:1.5rem;font-weight:600}
h2{margin:1.5rem 0 .5rem;font-size:1.125rem;font-weight:600}
.notice{margin:0 0 1rem;padding:.75rem;border:1px solid #f9ab00;border-radius:4px;background:#fef7e0;font-size:.875rem}
.item{display:flex;justify-content:space-between;gap:1rem;margin:0 0 .5rem;font-weight:500}
.summary{width:100%;margin:0 0 1rem;border-collapse:collapse}
.summary th{text-align:left;font-weight:400;padding:.25rem 0}
.summary td{text-align:right;padding:.25rem 0}
.summary tfoot th,.summary tfoot td{font-weight:600;border-top:1px solid #e3e8ee;padding-top:.5rem}
.email{margin:0 0 1rem;color:#4f566b;overflow-wrap:anywhere}
.alert{margin:0 0 1rem;padding:.75rem;border:1px solid #df1b41;border-radius:4px;background:#fff5f7;color:#a41c4e}
.alert p{margin:0}
form{display:grid;grid-template-columns:1fr 1fr;gap:0 1rem}
.field{grid-column:1/-1;margin-bottom:1rem}
.field-card_expiry{grid-column:1}
.field-card_cvc{grid-column:2}
label{display:block;margin-bottom:.25rem;font-weight:500}
input{width:100%;padding:.625rem .75rem;border:1px solid #8792a2;border-radius:4px;font:inherit}
input[aria-invalid="true"]{border-color:#df1b41}
.error{margin:.25rem 0 0;color:#df1b41;font-size:.875rem}
.actions{grid-column:1/-1;display:flex;align-items:center;gap:1rem;margin-top:.5rem}
button{padding:.75rem 1.5rem;border:0;border-radius:4px;background:#635bff;color:#fff;font:inherit;font-weight:600;cursor:pointer}
a.secondary{color:#635bff}
button:focus-visible,input:focus-visible,a:focus-visible{outline:2px solid #635bff;outline-offset:2px}
.test-cards{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #e3e8ee;font-size:.875rem;color:#4f566b}
.test-cards ul{margin:.5rem 0 0;padding-left:1.25rem}
.facts{margin:0 0 1rem}
.facts div{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}
.facts dt{color:#4f566b}
.facts dd{margin:0;font-weight:500}
code{font-size:.95em}
.challenge{display:flex;gap:1rem;flex-wrap:wrap}
.challenge form{display:block}
`;
