import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirectDocument } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { PaymentFrame } from "~/components/payment-frame";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import { TaxLines } from "~/features/tax/tax-lines";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { readFormData } from "~/utils/forms.server";
import { useFormatters } from "~/i18n/use-formatters";
import { getSessionToken } from "~/utils/session.server";
import { pageMeta } from "~/utils/meta";

// The due crypto invoice of commerce §2: a renewal invoice emailed 3 days before a crypto plan ends
// (or a purchase not paid yet), paid on BitPay's page. Open to anyone holding the link; inside the
// menu layout for a signed-in visitor.

export const meta: MetaFunction = (args) => pageMeta(args, "payments.meta.bitpay.title", "payments.meta.bitpay.description");

export const headers = () => ({ "Cache-Control": "private, no-store" });

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const token = await getSessionToken(request);
  const api = createApiClient(request, context, token);
  const id = params.uuid ?? "";
  const [invoice, me] = await Promise.all([
    api.get("/api/payments/crypto/due-invoice/{id}", { params: { path: { id } } }),
    token ? api.get("/api/me") : Promise.resolve(null),
  ]);
  if (!invoice.ok && invoice.status >= 500) throw serviceUnavailable();
  const accountEmail = me?.ok ? me.data.email : null;
  if (!invoice.ok) return data({ invoice: null, accountEmail }, { status: 404 });
  return { invoice: invoice.data, accountEmail };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await readFormData(request);
  const api = createApiClient(request, context, await getSessionToken(request));
  const paid = await api.post("/api/payments/crypto/due-invoice/pay", { body: { current_invoice_id: params.uuid ?? "" } });
  // A catalogue key, translated where it is shown; the API's message is in the page's language already.
  if (!paid.ok) return data({ error: paid.message || "payments.bitpay.failed" }, { status: paid.status >= 500 ? 503 : paid.status });
  // BitPay's page is not one of the portal's routes: the browser loads it as a document.
  return redirectDocument(paid.data.invoiceUrl);
}

export default function DueInvoicePage() {
  const { invoice, accountEmail } = useLoaderData<typeof loader>();
  return (
    <PaymentFrame email={accountEmail}>
      <DueInvoice invoice={invoice} />
    </PaymentFrame>
  );
}

type Invoice = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["invoice"]>;

/** '1 Year' is shown with its free months (commerce §2). */
function invoiceTitle(title: string, t: (key: string, values: { title: string }) => string) {
  return title === "1 Year" ? t("payments.bitpay.withFreeMonths", { title }) : title;
}

function DueInvoice({ invoice }: { invoice: Invoice | null }) {
  const { t } = useTranslation("payments");
  const { money } = useFormatters();
  const navigation = useNavigation();
  const actionData = useActionData<{ error?: string }>();
  const error = navigation.state === "idle" ? actionData?.error : undefined;
  if (navigation.state === "loading" && navigation.formMethod === undefined) return <p role="status">{t("payments.bitpay.loading")}</p>;
  if (!invoice) {
    return (
      <div className="checkout">
        <h1>{t("payments.bitpay.title")}</h1>
        <p role="alert">{t("payments.bitpay.notFound")}</p>
        <Link to="/pricing">{t("payments.bitpay.seePlans")}</Link>
      </div>
    );
  }
  const regular = invoice.regular_price_cents;
  const total = invoice.discounted_price_cents;
  const save = invoice.discount_percent;
  return (
    <div className="checkout">
      {error ? <Toasts toasts={[{ message: error, type: "error" }]} /> : null}
      <h1>{t("payments.bitpay.title")}</h1>
      <div className="checkout-grid">
        <section className="card" aria-labelledby="due-title">
          <h2 id="due-title">{t("payments.bitpay.heading")}</h2>
          {invoice.paid ? (
            <>
              <p role="status">{t("payments.bitpay.paid")}</p>
              <Link to="/" className="button button--primary">
                {t("payments.bitpay.goToAccount")}
              </Link>
            </>
          ) : (
            <>
              <p>{t("payments.bitpay.explanation", { amount: money(total) })}</p>
              <p className="muted">
                <Trans t={t} i18nKey="payments.bitpay.legal" components={{ terms: <Link to="/terms" /> }} />
              </p>
              {invoice.status === "expired" ? <p className="muted">{t("payments.bitpay.expired")}</p> : null}
              {error ? (
                <p className="form-error" role="alert">
                  {t(error)}
                </p>
              ) : null}
              <Form method="post">
                <input type="hidden" name="intent" value="pay" />
                <SubmitButton intent="pay">{t("payments.bitpay.pay")}</SubmitButton>
              </Form>
            </>
          )}
        </section>
        <aside className="card order-summary" aria-labelledby="due-summary-title">
          <h2 id="due-summary-title">{t("payments.bitpay.summary")}</h2>
          <dl>
            <div>
              <dt>{t("payments.bitpay.plan")}</dt>
              <dd>{invoiceTitle(invoice.title, t)}</dd>
            </div>
            <div>
              <dt>{t("payments.bitpay.regularPrice")}</dt>
              <dd>{money(regular)}</dd>
            </div>
            {save > 0 ? (
              <div>
                <dt>
                  <span className="badge">{t("payments.bitpay.save", { percent: save })}</span>
                </dt>
                <dd>
                  <s>{money(invoice.savings_cents)}</s>
                </dd>
              </div>
            ) : null}
            <TaxLines taxed={{ net_cents: invoice.net_cents, tax: invoice.tax, amount_cents: total }} />
            <div className="total">
              <dt>{t("payments.bitpay.total")}</dt>
              <dd>{money(total)}</dd>
            </div>
          </dl>
        </aside>
      </div>
    </div>
  );
}
