import { Form, Link, useActionData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { ModalDialog } from "~/components/modal-dialog";
import { SubmitButton } from "~/components/submit-button";
import { NextCharge } from "~/features/next-charge/next-charge";
import { REFUND_ADDRESS_PATTERN, REFUND_FORM, refundHref } from "~/features/refunds/refund-form";
import type { HistoryState, RenewalRow, TransactionRow, TransactionStatus } from "./history.server";
import type { RefundActionData } from "./refund.server";

// The 'Payment History' tab: the transactions, pagination links (?page=N), and the subscription's
// auto-renewal row, and the money-back guarantee's 'Request refund' link with its server-rendered step
// (?refund={id}). Everything is links and plain forms, so it works without JavaScript.

/** A transaction's status as the table words it. */
const STATUS_KEYS: Record<TransactionStatus, string> = {
  paid: "billing.history.status.paid",
  failed: "billing.history.status.failed",
  refunded: REFUND_FORM.refunded,
  requested: REFUND_FORM.requested,
};

function pageHref(page: number): string {
  return page > 1 ? `/billing?page=${page}` : "/billing";
}

/**
 * `pastDueUntil`: a renewal failed and is unpaid (the banner above says so) and the plan lasts until this
 * day (the grace end). Auto-renewal can still be turned off (Stripe's retries stop, the plan ends then) or on.
 */
export function PaymentHistoryTab({ state, pastDueUntil = null }: { state: HistoryState; pastDueUntil?: string | null }) {
  const { t } = useTranslation("billing");
  const pastDue = pastDueUntil !== null;
  const { transactions, pagination, renewal, pendingChange, confirm, refund, nextCharge } = state;
  return (
    <div className="billing-history">
      {/* id: where 'Cancel subscription' takes a signed-in customer (components/cancel-footer.tsx). */}
      <section className="billing-card" aria-labelledby="billing-subscription-title" id="auto-renewal">
        <h2 id="billing-subscription-title">{t("billing.subscription.title")}</h2>
        <RenewalSection renewal={renewal} page={pagination.current_page} />
        {pendingChange ? <PendingChange sentence={pendingChange} page={pagination.current_page} /> : null}
        {/* While a renewal is unpaid, the banner says what is due instead. */}
        {pastDue ? null : <NextCharge view={nextCharge} />}
      </section>

      <section className="billing-card" aria-labelledby="billing-history-title">
        <h2 id="billing-history-title">{t("billing.history.title")}</h2>
        {transactions.length === 0 ? (
          <p className="billing-empty">{t("billing.history.empty")}</p>
        ) : (
          // On a narrow screen the table scrolls sideways in its own box: the keyboard must be able to reach it too.
          // biome-ignore lint/a11y/useSemanticElements: a scroll box around a table, not a section of the page's outline
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable to scroll by keyboard
          <div className="billing-table-wrap" role="region" aria-label={t("billing.history.tableLabel")} tabIndex={0}>
            <table className="billing-table">
              <thead>
                <tr>
                  <th scope="col">{t("billing.history.column.date")}</th>
                  <th scope="col">{t("billing.history.column.plan")}</th>
                  <th scope="col">{t("billing.history.column.method")}</th>
                  <th scope="col">{t("billing.history.column.amount")}</th>
                  <th scope="col">{t("billing.history.column.status")}</th>
                  <th scope="col">{t("billing.history.column.invoice")}</th>
                  <th scope="col">{t("billing.history.column.refund")}</th>
                </tr>
              </thead>
              <tbody>
                {transactions.map((row) => (
                  <tr key={row.id}>
                    <td data-label={t("billing.history.column.date")}>{row.date}</td>
                    <td data-label={t("billing.history.column.plan")}>{row.title}</td>
                    <td data-label={t("billing.history.column.method")}>{row.method}</td>
                    <td data-label={t("billing.history.column.amount")}>
                      {row.amount}
                      {row.tax ? <span className="billing-tax"> {row.tax}</span> : null}
                    </td>
                    <td data-label={t("billing.history.column.status")}>
                      <span className={`billing-status ${statusClass(row.status)}`}>{t(STATUS_KEYS[row.status])}</span>
                      {row.attempts ? <span className="billing-attempts"> {row.attempts}</span> : null}
                      {row.underpaid ? <Underpaid {...row.underpaid} /> : null}
                    </td>
                    <td data-label={t("billing.history.column.invoice")}>
                      {row.invoice === null ? (
                        <span className="muted">—</span>
                      ) : (
                        <a href={row.invoice.href} download={`invoice_${row.id}.pdf`} className="billing-invoice-link">
                          {t("billing.history.downloadInvoice")}
                        </a>
                      )}
                      {row.creditNote ? (
                        <>
                          <br />
                          <a href={row.creditNote.href} download={`credit_note_${row.id}.pdf`} className="billing-invoice-link">
                            {t("billing.history.downloadCreditNote")}
                          </a>
                        </>
                      ) : null}
                    </td>
                    <td data-label={t("billing.history.column.refund")}>
                      {row.refundable ? (
                        <Link to={refundHref(pagination.current_page, row.id)} className="billing-refund-link">
                          {t(REFUND_FORM.link)}
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
          <nav className="billing-pagination" aria-label={t("billing.history.pagesLabel")}>
            {pagination.current_page > 1 ? (
              <Link to={pageHref(pagination.current_page - 1)} rel="prev">
                {t("billing.pagination.previous")}
              </Link>
            ) : null}
            {Array.from({ length: pagination.last_page }, (_, i) => i + 1).map((n) =>
              n === pagination.current_page ? (
                <span key={n} aria-current="page" className="billing-page billing-page--current">
                  {n}
                </span>
              ) : (
                <Link key={n} to={pageHref(n)} className="billing-page" aria-label={t("billing.pagination.page", { page: n })}>
                  {n}
                </Link>
              ),
            )}
            {pagination.current_page < pagination.last_page ? (
              <Link to={pageHref(pagination.current_page + 1)} rel="next">
                {t("billing.pagination.next")}
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
  const { t } = useTranslation("billing");
  // Trans puts the catalogue's words inside the links.
  // biome-ignore lint/a11y/useAnchorContent: Trans fills the link with its text
  const refund = <a href={refundHref} />;
  // biome-ignore lint/a11y/useAnchorContent: Trans fills the link with its text
  const pay = payUrl ? <a href={payUrl} /> : null;
  return (
    <p className="billing-underpaid">
      {text}{" "}
      {pay ? (
        <Trans t={t} i18nKey="billing.history.underpaidPayOrRefund" components={{ pay, refund }} />
      ) : (
        <Trans t={t} i18nKey="billing.history.underpaidClosed" components={{ refund }} />
      )}
    </p>
  );
}

function statusClass(status: TransactionStatus): string {
  if (status === "paid") return "billing-status--paid";
  if (status === "failed") return "billing-status--failed";
  return "billing-status--refunded";
}

/** The refund step: what happens, then 'Refund my payment' (crypto: with the address to send it to). */
function RefundDialog({ transaction, page }: { transaction: TransactionRow; page: number }) {
  const { t } = useTranslation("billing");
  const actionData = useActionData<RefundActionData>();
  const addressError = actionData?.refundForm === transaction.id ? actionData.errors.refund_address : undefined;
  return (
    <ModalDialog labelledBy="refund-title" cancelTo={pageHref(page)}>
        <header className="dialog-header">
          <h2 id="refund-title">{t(REFUND_FORM.title)}</h2>
          <Link to={pageHref(page)} className="button button--link" aria-label={t("billing.dialog.close")} replace>
            ×
          </Link>
        </header>
        <p>{t("billing.refund.intro", { amount: transaction.amount, plan: transaction.title, date: transaction.date })}</p>
        <ul>
          <li>
            {transaction.crypto
              ? t("billing.refund.returnedToCrypto")
              : transaction.paypal
                ? t("billing.refund.returnedToPayPal")
                : t("billing.refund.returnedToCard")}
          </li>
          <li>{t("billing.refund.subscriptionEnds")}</li>
          <li>{t("billing.refund.accountFree")}</li>
        </ul>
        <p>{t("billing.refund.oncePerAccount")}</p>
        {transaction.crypto ? <p>{t("billing.refund.cryptoManual")}</p> : null}
        <Form method="post" action={refundHref(page, transaction.id)} className="billing-dialog-form">
          <input type="hidden" name="intent" value={REFUND_FORM.intent} />
          <input type="hidden" name="transactionId" value={transaction.id} />
          {transaction.crypto ? (
            <div className="field">
              <label htmlFor="refund-address">{t(REFUND_FORM.addressLabel)}</label>
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
                {/* A schema's message is a key; the API's comes in the page's language already. */}
                {addressError ? t(addressError) : ""}
              </p>
            </div>
          ) : null}
          <div className="billing-dialog-actions">
            <Link to={pageHref(page)} className="button" replace>
              {t("billing.dialog.goBack")}
            </Link>
            <button type="submit" className="button button--primary">
              {t(REFUND_FORM.submit)}
            </button>
          </div>
        </Form>
    </ModalDialog>
  );
}

function RenewalSection({ renewal, page }: { renewal: RenewalRow; page: number }) {
  const { t } = useTranslation("billing");
  if (renewal.kind === "none") {
    if (renewal.endedOn === null) return <p className="muted">{t("billing.subscription.none")}</p>;
    // A plan that ended says when, and the way back (docs/decisions/050).
    return (
      <p className="billing-ended">
        {t("billing.subscription.ended", { date: renewal.endedOn })} <Link to="/pricing">{t("billing.subscription.seePlans")}</Link>
      </p>
    );
  }
  return (
    <dl className="billing-subscription">
      <div className="billing-subscription-row">
        <dt>{t("billing.subscription.plan")}</dt>
        <dd>{renewal.title}</dd>
      </div>
      <div className="billing-subscription-row">
        <dt>{t("billing.subscription.autoRenewal")}</dt>
        <dd>
          {renewal.kind === "one-time" ? (
            t("billing.subscription.oneTime")
          ) : renewal.kind === "crypto" ? (
            <span>{t("billing.subscription.cryptoNoRenewal")}</span>
          ) : (
            // A div: the form inside is flow content, which a span may not hold.
            <div className="billing-renewal">
              <strong className={renewal.on ? "billing-on" : "billing-off"}>{renewal.on ? t("billing.renewal.on") : t("billing.renewal.off")}</strong>
              <Form method="get" action="/billing" className="billing-inline-form">
                {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
                <input type="hidden" name="confirm" value="auto-renewal" />
                <button type="submit" className="button">
                  {renewal.on ? t("billing.renewal.cancel") : t("billing.renewal.activate")}
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
  const { t } = useTranslation("billing");
  return (
    <div className="billing-pending-change">
      <p>{sentence}</p>
      <Form method="post" action="/billing" className="billing-inline-form">
        <input type="hidden" name="intent" value="keep-plan" />
        {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
        <SubmitButton intent="keep-plan" className="button">
          {t("billing.pendingChange.keep")}
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
  const { t } = useTranslation("billing");
  const title = renewal.on ? t("billing.renewal.dialog.cancelTitle") : t("billing.renewal.dialog.enableTitle");
  const values = { plan: renewal.title, date: pastDueUntil ?? renewal.renewsOn };
  return (
    <ModalDialog labelledBy="auto-renewal-title" cancelTo={pageHref(page)}>
        <header className="dialog-header">
          <h2 id="auto-renewal-title">{title}</h2>
          <Link to={pageHref(page)} className="button button--link" aria-label={t("billing.dialog.close")} replace>
            ×
          </Link>
        </header>
        <p>
          {/* Past due, the renewal date has passed: off, the plan ends at the grace end; on, the failed payment is retried. */}
          {pastDueUntil !== null
            ? renewal.on
              ? t("billing.renewal.dialog.pastDueOff", values)
              : t("billing.renewal.dialog.pastDueOn", values)
            : renewal.on
              ? t("billing.renewal.dialog.off", values)
              : t("billing.renewal.dialog.on", values)}
        </p>
        {!renewal.on && renewal.lastDay && pastDueUntil === null ? (
          <p className="billing-warning">
            {t("billing.renewal.dialog.lastDay")}
          </p>
        ) : null}
        <Form method="post" action="/billing" className="billing-dialog-actions">
          <input type="hidden" name="intent" value="auto-renewal" />
          <input type="hidden" name="type" value={renewal.on ? "disable" : "enable"} />
          <input type="hidden" name="subscriptionId" value={renewal.subscriptionId} />
          {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
          <Link to={pageHref(page)} className="button" replace>
            {t("billing.dialog.goBack")}
          </Link>
          <button type="submit" className="button button--primary">
            {t("billing.dialog.confirm")}
          </button>
        </Form>
    </ModalDialog>
  );
}
