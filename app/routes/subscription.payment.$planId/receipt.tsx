import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { NET_TERM } from "~/features/tax/tax-lines";
import type { AppDownload, Receipt } from "./receipt.server";

// The checkout once paid (issue 21): the receipt and the next step, server-rendered (the same page with
// and without JavaScript). No payment form: what was just bought is not offered again.

/** The query of the receipt with 'Payment Successful!' closed: no countdown, no redirect (server and browser). */
export const RECEIPT_PARAM = "receipt";

export function ReceiptPage({ receipt }: { receipt: Receipt }) {
  const { t } = useTranslation("checkout");
  return (
    <div className="receipt-grid">
      <section aria-labelledby="receipt-heading" className="card receipt">
        <h2 id="receipt-heading">{t("checkout.receipt.title")}</h2>
        <dl className="receipt-lines">
          <div>
            <dt>{t("checkout.receipt.plan")}</dt>
            <dd>{receipt.plan}</dd>
          </div>
          <div>
            <dt>{t("checkout.receipt.length")}</dt>
            <dd>{receipt.buys}</dd>
          </div>
          {receipt.discount ? (
            <>
              <div>
                <dt>{t("checkout.receipt.price")}</dt>
                <dd>{receipt.discount.price}</dd>
              </div>
              <div>
                <dt>{t("checkout.receipt.coupon")}</dt>
                <dd>{receipt.discount.amount}</dd>
              </div>
            </>
          ) : null}
          {receipt.tax ? (
            <>
              <div>
                <dt>{t(NET_TERM)}</dt>
                <dd>{receipt.tax.net}</dd>
              </div>
              <div>
                <dt>{receipt.tax.label}</dt>
                <dd>{receipt.tax.amount}</dd>
              </div>
            </>
          ) : null}
          <div className="receipt-total">
            <dt>{t("checkout.receipt.charged")}</dt>
            <dd>{receipt.charged}</dd>
          </div>
          {receipt.paidOn ? (
            <div>
              <dt>{t("checkout.receipt.paidOn")}</dt>
              <dd>{receipt.paidOn}</dd>
            </div>
          ) : null}
          <div>
            <dt>{t("checkout.receipt.termEnds")}</dt>
            <dd>{receipt.termEndsOn}</dd>
          </div>
          <div>
            <dt>{t("checkout.receipt.renewal")}</dt>
            <dd>{receipt.renewal}</dd>
          </div>
        </dl>
        <p className="receipt-links">
          {receipt.invoice === null ? (
            <Trans t={t} i18nKey="checkout.receipt.invoiceLater" components={{ billing: <Link to="/billing" /> }} />
          ) : (
            <a href={receipt.invoice.href} download className="button">
              {t("checkout.receipt.downloadInvoice")}
            </a>
          )}{" "}
          <Link to="/billing">{t("checkout.receipt.allPayments")}</Link>
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
  const { t } = useTranslation("checkout");
  const email = { email: receipt.email };
  const strong = { strong: <strong className="email-address" /> };
  return (
    <section aria-labelledby="apps-heading" className="card receipt-apps">
      <h2 id="apps-heading">{t("checkout.receipt.nextApp")}</h2>
      {here ? (
        <div className="receipt-this-device">
          <p>{t("checkout.receipt.thisDevice", { platform: here.platform })}</p>
          <AppLink app={here} primary />
        </div>
      ) : device === "Linux" ? (
        <p>{t("checkout.receipt.noLinuxApp")}</p>
      ) : null}
      <p>{here ? t("checkout.receipt.otherDevices") : t("checkout.receipt.chooseDevice")}</p>
      <ul className="download-grid receipt-downloads">
        {others.map((app) => (
          <li key={app.platform}>
            <AppLink app={app} />
          </li>
        ))}
      </ul>
      <h3>{t("checkout.receipt.signInTitle")}</h3>
      <ol className="receipt-steps">
        <li>{t("checkout.receipt.install")}</li>
        <li>
          {receipt.hasPassword ? (
            <Trans t={t} i18nKey="checkout.receipt.signInPassword" values={email} components={strong} />
          ) : (
            <Trans t={t} i18nKey="checkout.receipt.signInSocial" values={email} components={strong} />
          )}
        </li>
        {desktop || !device ? (
          <li>{t("checkout.receipt.onComputer")}</li>
        ) : null}
        <li>{t("checkout.receipt.connect")}</li>
      </ol>
      <Link to="/" className="button button--primary">
        {t("checkout.goToAccount")}
      </Link>
    </section>
  );
}

function AppLink({ app, primary = false }: { app: AppDownload; primary?: boolean }) {
  const { t } = useTranslation("checkout");
  if (!app.href) return <span aria-disabled="true">{t("checkout.receipt.linkMissing", { platform: app.platform })}</span>;
  return (
    <a href={app.href} rel="noopener noreferrer" target="_blank" className={primary ? "button button--primary" : undefined}>
      {primary ? t(app.from) : t("checkout.receipt.appFrom", { platform: app.platform, from: t(app.from) })}
    </a>
  );
}
