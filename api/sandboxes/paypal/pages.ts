import { escapeHtml, sandboxPage } from "../../platform/html";
import { type Funding, type OrderRecord, type SubscriptionRecord, moneyValue } from "./model";

/*
 * The approval pages (the stand-in for PayPal's buyer pages): plain server HTML, no scripts, no
 * inline styles (the portal's Content-Security-Policy), every value escaped; one form whose
 * 'Approve' and 'Cancel' buttons post to the same URL, so that it works without JavaScript.
 */

export const STYLESHEET_PATH = "/dev/paypal/sandbox.css";
export const ORDER_PATH = "/dev/paypal/checkoutnow";
export const SUBSCRIPTION_PATH = "/dev/paypal/webapps/billing/subscriptions";
export const REVISION_PATH = "/dev/paypal/webapps/billing/subscriptions/update";

/** The funding choices, as the page labels them (README.md documents them). */
export const FUNDING_LABELS: Record<Funding, { label: string; explains: string }> = {
  balance: { label: "PayPal balance", explains: "Pays: the order's capture and every subscription payment succeed." },
  declined: {
    label: "Card that is declined",
    explains: "The order's capture is declined (INSTRUMENT_DECLINED); a subscription's first payment fails.",
  },
  fails_renewals: {
    label: "Card that fails renewals",
    explains: "The first payment succeeds; every later subscription payment fails (then the subscription is suspended).",
  },
};

const NOTICE = `<p class="notice" role="note"><strong>Sandbox:</strong> this is not PayPal. It is the development
stand-in for PayPal's approval page: no money moves. Choose how the buyer pays, then approve or cancel.</p>`;

const usd = (cents: number) => `$${moneyValue(cents)} USD`;

function fundingFieldset(choices: readonly Funding[]): string {
  const options = choices
    .map(
      (funding, i) => `<div class="choice">
<input type="radio" id="funding-${funding}" name="funding" value="${funding}"${i === 0 ? " checked" : ""} aria-describedby="funding-${funding}-explains">
<label for="funding-${funding}">${escapeHtml(FUNDING_LABELS[funding].label)}</label>
<p id="funding-${funding}-explains">${escapeHtml(FUNDING_LABELS[funding].explains)}</p>
</div>`,
    )
    .join("\n");
  return `<fieldset>
<legend>Funding</legend>
${options}
</fieldset>`;
}

function approvalForm(action: string, choices: readonly Funding[]): string {
  return `<form method="post" action="${escapeHtml(action)}">
${fundingFieldset(choices)}
<div class="buttons">
<button type="submit" name="action" value="approve">Approve</button>
<button type="submit" name="action" value="cancel" class="secondary">Cancel</button>
</div>
</form>`;
}

function facts(rows: readonly [string, string][]): string {
  return `<dl class="facts">
${rows.map(([term, value]) => `<div><dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd></div>`).join("\n")}
</dl>`;
}

function finalSection(message: string, back: string | undefined): string {
  return `<p class="outcome" role="status">${escapeHtml(message)}</p>
${back ? `<p><a href="${escapeHtml(back)}">Return to the merchant</a></p>` : ""}`;
}

export function orderPagePath(id: string): string {
  return `${ORDER_PATH}?token=${encodeURIComponent(id)}`;
}
export function subscriptionPagePath(baToken: string): string {
  return `${SUBSCRIPTION_PATH}?ba_token=${encodeURIComponent(baToken)}`;
}

export function renderOrderPage(order: OrderRecord): string {
  const title = "Pay with PayPal (sandbox)";
  const merchant = order.brand_name ?? "Sandbox merchant";
  const rows: [string, string][] = [
    ["Merchant", merchant],
    ["Amount", usd(order.amount_cents)],
    ["Approving", `A one-time payment${order.description ? `: ${order.description}` : ""}`],
    ["Order", order.id],
  ];
  const done =
    order.status === "APPROVED" && order.funding === "declined"
      ? `${finalSection("You approved this payment with the card that is declined: the merchant's capture is declined. Choose another way to pay.", order.return_url)}\n${approvalForm(orderPagePath(order.id), ["balance", "declined"])}`
      : order.status === "APPROVED" || order.status === "COMPLETED"
      ? finalSection("You approved this payment.", order.return_url)
      : order.outcome === "cancelled"
        ? `${finalSection("You cancelled this payment; nothing was charged.", order.cancel_url)}\n<h2>Changed your mind?</h2>\n${approvalForm(orderPagePath(order.id), ["balance", "declined"])}`
        : approvalForm(orderPagePath(order.id), ["balance", "declined"]);
  return sandboxPage(title, STYLESHEET_PATH, `<h1>${escapeHtml(title)}</h1>
${NOTICE}
<section aria-label="Payment">
<p class="amount">${escapeHtml(merchant)}: ${escapeHtml(usd(order.amount_cents))}</p>
${facts(rows)}
</section>
${done}`);
}

export function renderSubscriptionPage(sub: SubscriptionRecord, summary: { planName: string; firstPaymentCents: number | null; every: string }): string {
  const title = "Subscribe with PayPal (sandbox)";
  const merchant = sub.brand_name ?? "Sandbox merchant";
  const rows: [string, string][] = [
    ["Merchant", merchant],
    ["Plan", summary.planName],
    ["First payment", summary.firstPaymentCents === null ? "Free" : usd(summary.firstPaymentCents)],
    ["Billed", summary.every],
    ["Approving", "Automatic payments until you cancel"],
    ["Subscription", sub.id],
  ];
  const form = approvalForm(subscriptionPagePath(sub.ba_token), ["balance", "declined", "fails_renewals"]);
  const done =
    sub.status !== "APPROVAL_PENDING"
      ? finalSection("You approved this subscription.", sub.return_url)
      : sub.outcome === "cancelled"
        ? `${finalSection("You cancelled; nothing was charged.", sub.cancel_url)}\n<h2>Changed your mind?</h2>\n${form}`
        : form;
  return sandboxPage(title, STYLESHEET_PATH, `<h1>${escapeHtml(title)}</h1>
${NOTICE}
<section aria-label="Subscription">
<p class="amount">${escapeHtml(merchant)}: ${escapeHtml(summary.planName)}</p>
${facts(rows)}
</section>
${done}`);
}

export function revisionPagePath(subscriptionId: string, baToken: string): string {
  return `${REVISION_PATH}?subscription_id=${encodeURIComponent(subscriptionId)}&ba_token=${encodeURIComponent(baToken)}`;
}

/** The consent to a change of plan (revise): the plans before and after, and when the new price applies. */
export function renderRevisionPage(
  sub: SubscriptionRecord,
  revision: NonNullable<SubscriptionRecord["revision"]>,
  summary: { fromPlan: string; toPlan: string; nextPaymentCents: number | null; every: string; from: string | null },
): string {
  const title = "Change your subscription (sandbox)";
  const merchant = revision.brand_name ?? sub.brand_name ?? "Sandbox merchant";
  const rows: [string, string][] = [
    ["Merchant", merchant],
    ["Current plan", summary.fromPlan],
    ["New plan", summary.toPlan],
    ["Next payment", summary.nextPaymentCents === null ? "Free" : usd(summary.nextPaymentCents)],
    ["New plan starts", summary.from ?? "At the next billing"],
    ["Billed", summary.every],
    ["Subscription", sub.id],
  ];
  const action = revisionPagePath(sub.id, revision.ba_token);
  const form = `<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="funding" value="balance">
<div class="buttons"><button type="submit" name="action" value="approve">Approve</button> <button type="submit" name="action" value="cancel" class="secondary">Cancel</button></div>
</form>`;
  const done =
    revision.outcome === "approved"
      ? finalSection("You approved this change.", revision.return_url)
      : revision.outcome === "cancelled"
        ? `${finalSection("You cancelled; your plan stays as it was.", revision.cancel_url)}\n<h2>Changed your mind?</h2>\n${form}`
        : form;
  return sandboxPage(title, STYLESHEET_PATH, `<h1>${escapeHtml(title)}</h1>
${NOTICE}
<section aria-label="Subscription change">
<p class="amount">${escapeHtml(merchant)}: ${escapeHtml(summary.toPlan)}</p>
${facts(rows)}
</section>
${done}`);
}

export function renderMessagePage(title: string, message: string): string {
  return sandboxPage(title, STYLESHEET_PATH, `<h1>${escapeHtml(title)}</h1>
${NOTICE}
<p>${escapeHtml(message)}</p>`);
}

export const STYLESHEET = `*{box-sizing:border-box}
body{margin:0;padding:2rem 1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f5f7fa;color:#001c64}
.card{max-width:30rem;margin:0 auto;padding:2rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{margin:0 0 1rem;font-size:1.5rem;font-weight:600}
h2{margin:1.5rem 0 .5rem;font-size:1.125rem;font-weight:600}
.notice{margin:0 0 1rem;padding:.75rem;border:1px solid #f9ab00;border-radius:4px;background:#fef7e0;font-size:.875rem}
.amount{margin:0 0 1rem;font-size:1.25rem;font-weight:600}
.facts{margin:0 0 1rem}
.facts div{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}
.facts dt{color:#3d4d73}
.facts dd{margin:0;min-width:0;font-weight:500;overflow-wrap:anywhere;text-align:right}
fieldset{margin:0 0 1rem;padding:.75rem 1rem;border:1px solid #c6cddc;border-radius:4px}
legend{padding:0 .25rem;font-weight:600}
.choice{display:grid;grid-template-columns:auto 1fr;column-gap:.5rem;align-items:baseline;margin:0 0 .75rem}
.choice p{grid-column:2;margin:.125rem 0 0;font-size:.875rem;color:#3d4d73}
.buttons{display:flex;gap:1rem}
button{padding:.625rem 1.25rem;border:0;border-radius:999px;background:#003087;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button.secondary{background:#fff;color:#003087;border:2px solid #003087}
button:focus-visible,a:focus-visible,input:focus-visible{outline:2px solid #003087;outline-offset:2px}
.outcome{margin:0 0 1rem;font-weight:500}
a{color:#003087}
`;
