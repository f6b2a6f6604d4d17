import { Form, Link, useActionData } from "@remix-run/react";
import { ModalDialog } from "~/components/modal-dialog";
import { SubmitButton } from "~/components/submit-button";
import { NextCharge } from "~/features/next-charge/next-charge";
import { REFUND_ADDRESS_PATTERN, REFUND_FORM, refundHref } from "~/features/refunds/refund-form";
import type { HistoryState, RenewalRow, TransactionRow } from "./history.server";
import type { RefundActionData } from "./refund.server";

// The 'Payment History' tab: the transactions, pagination links (?page=N), and the subscription's
// auto-renewal row, and the money-back guarantee's 'Request refund' link with its server-rendered step
// (?refund={id}). Everything is links and plain forms, so it works without JavaScript.

function pageHref(page: number): string {
  return page > 1 ? `/billing?page=${page}` : "/billing";
}

/**
 * `pastDueUntil`: a renewal failed and is unpaid (the banner above says so) and the plan lasts until this
 * day (the grace end). Auto-renewal can still be turned off (Stripe's retries stop, the plan ends then) or on.
 */
export function PaymentHistoryTab({ state, pastDueUntil = null }: { state: HistoryState; pastDueUntil?: string | null }) {
  const pastDue = pastDueUntil !== null;
  const { transactions, pagination, renewal, pendingChange, confirm, refund, nextCharge } = state;
  return (
    <div className="billing-history">
      {/* id: where 'Cancel subscription' takes a signed-in customer (components/cancel-footer.tsx). */}
      <section className="billing-card" aria-labelledby="billing-subscription-title" id="auto-renewal">
        <h2 id="billing-subscription-title">Subscription</h2>
        <RenewalSection renewal={renewal} page={pagination.current_page} />
        {pendingChange ? <PendingChange sentence={pendingChange} page={pagination.current_page} /> : null}
        {/* While a renewal is unpaid, the banner says what is due instead. */}
        {pastDue ? null : <NextCharge view={nextCharge} />}
      </section>

      <section className="billing-card" aria-labelledby="billing-history-title">
        <h2 id="billing-history-title">Payment History</h2>
        {transactions.length === 0 ? (
          <p className="billing-empty">No payment history available</p>
        ) : (
          // On a narrow screen the table scrolls sideways in its own box: the keyboard must be able to reach it too.
          // biome-ignore lint/a11y/useSemanticElements: a scroll box around a table, not a section of the page's outline
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard
          <div className="billing-table-wrap" role="region" aria-label="Payment history table" tabIndex={0}>
            <table className="billing-table">
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Payment method</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Status</th>
                  <th scope="col">Invoice</th>
                  <th scope="col">Refund</th>
                </tr>
              </thead>
              <tbody>
                {transactions.map((t) => (
                  <tr key={t.id}>
                    <td data-label="Date">{t.date}</td>
                    <td data-label="Plan">{t.title}</td>
                    <td data-label="Payment method">{t.method}</td>
                    <td data-label="Amount">
                      {t.amount}
                      {t.tax ? <span className="billing-tax"> {t.tax}</span> : null}
                    </td>
                    <td data-label="Status">
                      <span className={`billing-status ${statusClass(t.status)}`}>{t.status}</span>
                      {t.attempts ? <span className="billing-attempts"> {t.attempts}</span> : null}
                      {t.underpaid ? <Underpaid {...t.underpaid} /> : null}
                    </td>
                    <td data-label="Invoice">
                      {t.invoice === null ? (
                        <span className="muted">—</span>
                      ) : (
                        <a href={t.invoice.href} download={`invoice_${t.id}.pdf`} className="billing-invoice-link">
                          Download invoice
                        </a>
                      )}
                      {t.creditNote ? (
                        <>
                          <br />
                          <a href={t.creditNote.href} download={`credit_note_${t.id}.pdf`} className="billing-invoice-link">
                            Download credit note
                          </a>
                        </>
                      ) : null}
                    </td>
                    <td data-label="Refund">
                      {t.refundable ? (
                        <Link to={refundHref(pagination.current_page, t.id)} className="billing-refund-link">
                          {REFUND_FORM.link}
                        </Link>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {pagination.last_page > 1 ? (
          <nav className="billing-pagination" aria-label="Payment history pages">
            {pagination.current_page > 1 ? (
              <Link to={pageHref(pagination.current_page - 1)} rel="prev">
                Previous
              </Link>
            ) : null}
            {Array.from({ length: pagination.last_page }, (_, i) => i + 1).map((n) =>
              n === pagination.current_page ? (
                <span key={n} aria-current="page" className="billing-page billing-page--current">
                  {n}
                </span>
              ) : (
                <Link key={n} to={pageHref(n)} className="billing-page" aria-label={`Page ${n}`}>
                  {n}
                </Link>
              ),
            )}
            {pagination.current_page < pagination.last_page ? (
              <Link to={pageHref(pagination.current_page + 1)} rel="next">
                Next
              </Link>
            ) : null}
          </nav>
        ) : null}
      </section>

      {confirm && renewal.kind === "toggle" ? <RenewalDialog renewal={renewal} page={pagination.current_page} pastDueUntil={pastDueUntil} /> : null}
      {refund ? <RefundDialog transaction={refund} page={pagination.current_page} /> : null}
    </div>
  );
}

/** A short crypto payment: what arrived and what is missing, then paying the rest (while its invoice is open) or a refund. */
function Underpaid({ text, payUrl, refundHref }: NonNullable<TransactionRow["underpaid"]>) {
  return (
    <p className="billing-underpaid">
      {text}{" "}
      {payUrl ? (
        <>
          <a href={payUrl}>Pay the rest</a> or{" "}
        </>
      ) : (
        "Its invoice has closed. "
      )}
      <a href={refundHref}>Ask for your money back</a>
    </p>
  );
}

function statusClass(status: TransactionRow["status"]): string {
  if (status === "Paid") return "billing-status--paid";
  if (status === "Payment failed") return "billing-status--failed";
  return "billing-status--refunded";
}

/** The refund step: what happens, then 'Refund my payment' (crypto: with the address to send it to). */
function RefundDialog({ transaction, page }: { transaction: TransactionRow; page: number }) {
  const actionData = useActionData<RefundActionData>();
  const addressError = actionData?.refundForm === transaction.id ? actionData.errors.refund_address : undefined;
  return (
    <ModalDialog labelledBy="refund-title" cancelTo={pageHref(page)}>
        <header className="dialog-header">
          <h2 id="refund-title">{REFUND_FORM.title}</h2>
          <Link to={pageHref(page)} className="button button--link" aria-label="Close" replace>
            ×
          </Link>
        </header>
        <p>
          Under our 30-day money-back guarantee, your payment of {transaction.amount} for {transaction.title} on {transaction.date} is
          returned in full.
        </p>
        <ul>
          <li>
            The payment is returned in full
            {transaction.crypto ? " to the crypto address you enter below" : transaction.paypal ? " to the PayPal account that paid" : " to the card or wallet that paid"}.
          </li>
          <li>Your subscription ends now.</li>
          <li>Your account goes Free.</li>
        </ul>
        <p>The guarantee can be used once per account.</p>
        {transaction.crypto ? (
          <p>Crypto payments cannot be returned automatically: we record your request and send the refund to your address ourselves.</p>
        ) : null}
        <Form method="post" action={refundHref(page, transaction.id)} className="billing-dialog-form">
          <input type="hidden" name="intent" value={REFUND_FORM.intent} />
          <input type="hidden" name="transactionId" value={transaction.id} />
          {transaction.crypto ? (
            <div className="field">
              <label htmlFor="refund-address">{REFUND_FORM.addressLabel}</label>
              <input
                id="refund-address"
                name="refund_address"
                required
                pattern={REFUND_ADDRESS_PATTERN}
                autoComplete="off"
                spellCheck={false}
                aria-invalid={addressError ? true : undefined}
                aria-describedby="refund-address-error"
              />
              <p id="refund-address-error" className="field-error" aria-live="polite">
                {addressError ?? ""}
              </p>
            </div>
          ) : null}
          <div className="billing-dialog-actions">
            <Link to={pageHref(page)} className="button" replace>
              Go back
            </Link>
            <button type="submit" className="button button--primary">
              {REFUND_FORM.submit}
            </button>
          </div>
        </Form>
    </ModalDialog>
  );
}

function RenewalSection({ renewal, page }: { renewal: RenewalRow; page: number }) {
  if (renewal.kind === "none") {
    if (renewal.endedOn === null) return <p className="muted">You have no active subscription.</p>;
    // A plan that ended says when, and the way back (docs/decisions/050).
    return (
      <p className="billing-ended">
        Your plan ended on {renewal.endedOn}. <Link to="/pricing">See plans</Link>
      </p>
    );
  }
  return (
    <dl className="billing-subscription">
      <div className="billing-subscription-row">
        <dt>Plan</dt>
        <dd>{renewal.title}</dd>
      </div>
      <div className="billing-subscription-row">
        <dt>Auto-renewal</dt>
        <dd>
          {renewal.kind === "one-time" ? (
            "One-time Payment"
          ) : renewal.kind === "crypto" ? (
            <span>Crypto plans do not renew automatically: we email you a renewal invoice 3 days before your plan ends, and paying it renews the plan.</span>
          ) : (
            // A div: the form inside is flow content, which a span may not hold.
            <div className="billing-renewal">
              <strong className={renewal.on ? "billing-on" : "billing-off"}>{renewal.on ? "ON" : "OFF"}</strong>
              <Form method="get" action="/billing" className="billing-inline-form">
                {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
                <input type="hidden" name="confirm" value="auto-renewal" />
                <button type="submit" className="button">
                  {renewal.on ? "Cancel auto-renewal" : "Active auto-renewal"}
                </button>
              </Form>
            </div>
          )}
        </dd>
      </div>
    </dl>
  );
}

/** A change to a shorter plan waiting for the renewal, and 'Keep current plan' (a plain form). */
function PendingChange({ sentence, page }: { sentence: string; page: number }) {
  return (
    <div className="billing-pending-change">
      <p>{sentence}</p>
      <Form method="post" action="/billing" className="billing-inline-form">
        <input type="hidden" name="intent" value="keep-plan" />
        {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
        <SubmitButton intent="keep-plan" className="button">
          Keep current plan
        </SubmitButton>
      </Form>
    </div>
  );
}

function RenewalDialog({
  renewal,
  page,
  pastDueUntil,
}: {
  renewal: Extract<RenewalRow, { kind: "toggle" }>;
  page: number;
  pastDueUntil: string | null;
}) {
  const title = renewal.on ? "Cancel auto-renewal?" : "Turn on auto-renewal?";
  return (
    <ModalDialog labelledBy="auto-renewal-title" cancelTo={pageHref(page)}>
        <header className="dialog-header">
          <h2 id="auto-renewal-title">{title}</h2>
          <Link to={pageHref(page)} className="button button--link" aria-label="Close" replace>
            ×
          </Link>
        </header>
        <p>
          {/* Past due, the renewal date has passed: off, the plan ends at the grace end; on, the failed payment is retried. */}
          {pastDueUntil !== null
            ? renewal.on
              ? `Your ${renewal.title} plan will not renew and ends on ${pastDueUntil}.`
              : `Your ${renewal.title} plan will renew automatically when the failed payment is retried.`
            : renewal.on
              ? `Your ${renewal.title} plan will not renew and ends on ${renewal.renewsOn}. Auto-renewal must be turned off at least 24 hours before the end of the billing cycle.`
              : `Your ${renewal.title} plan will renew automatically on ${renewal.renewsOn}.`}
        </p>
        {!renewal.on && renewal.lastDay && pastDueUntil === null ? (
          <p className="billing-warning">
            Your billing cycle ends in less than 24 hours: once turned on, auto-renewal cannot be turned off again before this renewal.
          </p>
        ) : null}
        <Form method="post" action="/billing" className="billing-dialog-actions">
          <input type="hidden" name="intent" value="auto-renewal" />
          <input type="hidden" name="type" value={renewal.on ? "disable" : "enable"} />
          <input type="hidden" name="subscriptionId" value={renewal.subscriptionId} />
          {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
          <Link to={pageHref(page)} className="button" replace>
            Go back
          </Link>
          <button type="submit" className="button button--primary">
            Confirm
          </button>
        </Form>
    </ModalDialog>
  );
}
