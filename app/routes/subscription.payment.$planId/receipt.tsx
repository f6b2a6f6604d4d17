import { Link } from "@remix-run/react";
import { NET_TERM } from "~/features/tax/tax-lines";
import type { AppDownload, Receipt } from "./receipt.server";

// The checkout once paid (issue 21): the receipt and the next step, server-rendered (the same page with
// and without JavaScript). No payment form: what was just bought is not offered again.

/** The query of the receipt with 'Payment Successful!' closed: no countdown, no redirect (server and browser). */
export const RECEIPT_PARAM = "receipt";

export function ReceiptPage({ receipt }: { receipt: Receipt }) {
  return (
    <div className="receipt-grid">
      <section aria-labelledby="receipt-heading" className="card receipt">
        <h2 id="receipt-heading">Receipt</h2>
        <dl className="receipt-lines">
          <div>
            <dt>Plan</dt>
            <dd>{receipt.plan}</dd>
          </div>
          <div>
            <dt>Length</dt>
            <dd>{receipt.buys}</dd>
          </div>
          {receipt.discount ? (
            <>
              <div>
                <dt>Price</dt>
                <dd>{receipt.discount.price}</dd>
              </div>
              <div>
                <dt>Coupon</dt>
                <dd>{receipt.discount.amount}</dd>
              </div>
            </>
          ) : null}
          {receipt.tax ? (
            <>
              <div>
                <dt>{NET_TERM}</dt>
                <dd>{receipt.tax.net}</dd>
              </div>
              <div>
                <dt>{receipt.tax.label}</dt>
                <dd>{receipt.tax.amount}</dd>
              </div>
            </>
          ) : null}
          <div className="receipt-total">
            <dt>Amount charged</dt>
            <dd>{receipt.charged}</dd>
          </div>
          {receipt.paidOn ? (
            <div>
              <dt>Paid on</dt>
              <dd>{receipt.paidOn}</dd>
            </div>
          ) : null}
          <div>
            <dt>First term ends</dt>
            <dd>{receipt.termEndsOn}</dd>
          </div>
          <div>
            <dt>Renewal</dt>
            <dd>{receipt.renewal}</dd>
          </div>
        </dl>
        <p className="receipt-links">
          {receipt.invoice === null ? (
            <>
              Your invoice will be in <Link to="/billing">Billing</Link>.
            </>
          ) : (
            <a href={receipt.invoice.href} download className="button">
              Download invoice
            </a>
          )}{" "}
          <Link to="/billing">All payments in Billing</Link>
        </p>
      </section>
      <NextStep receipt={receipt} />
    </div>
  );
}

/** The apps, this device's first, and how to sign in to them. */
function NextStep({ receipt }: { receipt: Receipt }) {
  const { device, apps } = receipt;
  const here = device ? apps.find((app) => app.platform === device) : undefined;
  const others = here ? apps.filter((app) => app !== here) : apps;
  const desktop = device === "Windows" || device === "macOS";
  return (
    <section aria-labelledby="apps-heading" className="card receipt-apps">
      <h2 id="apps-heading">Next: get the app</h2>
      {here ? (
        <div className="receipt-this-device">
          <p>For this device ({here.platform}):</p>
          <AppLink app={here} primary />
        </div>
      ) : device === "Linux" ? (
        <p>There is no app for Linux yet: install the app on your other devices.</p>
      ) : null}
      <p>{here ? "For your other devices:" : "Choose your device:"}</p>
      <ul className="download-grid receipt-downloads">
        {others.map((app) => (
          <li key={app.platform}>
            <AppLink app={app} />
          </li>
        ))}
      </ul>
      <h3>Sign in to the app</h3>
      <ol className="receipt-steps">
        <li>Install the app and open it.</li>
        <li>
          {receipt.hasPassword ? (
            <>
              Sign in with <strong className="email-address">{receipt.email}</strong> and the password you chose. If you use Google or Apple to sign in here, choose the
              same in the app.
            </>
          ) : (
            <>
              Your account <strong className="email-address">{receipt.email}</strong> signs in with Google or Apple: choose the same in the app.
            </>
          )}
        </li>
        {desktop || !device ? (
          <li>
            On a computer, signing in with Google or Apple opens this site in your browser; once you are signed in, the browser takes you
            back to the app (if it does not, type the code the page shows into the app).
          </li>
        ) : null}
        <li>Connect: your plan is already on your account.</li>
      </ol>
      <Link to="/" className="button button--primary">
        Go to my account
      </Link>
    </section>
  );
}

function AppLink({ app, primary = false }: { app: AppDownload; primary?: boolean }) {
  if (!app.href) {
    return (
      <span aria-disabled="true">
        {app.platform}: the download link could not be loaded; it is on My Account
      </span>
    );
  }
  return (
    <a href={app.href} rel="noopener noreferrer" target="_blank" className={primary ? "button button--primary" : undefined}>
      {primary ? app.from : `${app.platform}: ${app.from}`}
    </a>
  );
}
