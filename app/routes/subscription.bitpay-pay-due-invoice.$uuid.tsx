import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirectDocument } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { PaymentFrame } from "~/components/payment-frame";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import { TaxLines } from "~/features/tax/tax-lines";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { readFormData } from "~/utils/forms.server";
import { formatCents } from "~/utils/plans";
import { getSessionToken } from "~/utils/session.server";
import { pageMeta } from "~/utils/meta";

// The due crypto invoice of commerce §2: a renewal invoice emailed 3 days before a crypto plan ends
// (or a purchase not paid yet), paid on BitPay's page. Open to anyone holding the link; inside the
// menu layout for a signed-in visitor.

export const meta: MetaFunction = () => pageMeta("Secure Checkout | VPN Account", "Pay the due crypto invoice of your VPN plan through BitPay.");

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
  if (!paid.ok) return data({ error: paid.message || "Failed to create crypto payment" }, { status: paid.status >= 500 ? 503 : paid.status });
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
function invoiceTitle(title: string) {
  return title === "1 Year" ? `${title} (+2 Months Free)` : title;
}

function DueInvoice({ invoice }: { invoice: Invoice | null }) {
  const navigation = useNavigation();
  const actionData = useActionData<{ error?: string }>();
  const error = navigation.state === "idle" ? actionData?.error : undefined;
  if (navigation.state === "loading" && navigation.formMethod === undefined) return <p role="status">Loading invoice...</p>;
  if (!invoice) {
    return (
      <div className="checkout">
        <h1>Secure Checkout</h1>
        <p role="alert">No invoice data found</p>
        <Link to="/pricing">See the plans</Link>
      </div>
    );
  }
  const regular = invoice.regular_price_cents;
  const total = invoice.discounted_price_cents;
  const save = invoice.discount_percent;
  return (
    <div className="checkout">
      {error ? <Toasts toasts={[{ message: error, type: "error" }]} /> : null}
      <h1>Secure Checkout</h1>
      <div className="checkout-grid">
        <section className="card" aria-labelledby="due-title">
          <h2 id="due-title">Complete your BitPay Due Invoice</h2>
          {invoice.paid ? (
            <>
              <p role="status">This invoice is paid. Thank you! Your plan is active.</p>
              <Link to="/" className="button button--primary">
                Go to my account
              </Link>
            </>
          ) : (
            <>
              <p>
                You will be taken to BitPay, our crypto payment provider, to pay {formatCents(total)}. Crypto payments take 1 to 3
                hours to confirm; crypto plans do not renew automatically, so we email a renewal invoice 3 days before your plan ends.
              </p>
              <p className="muted">
                By paying you agree to the <Link to="/terms">Terms of Service</Link>. Payments are processed in USD; provider fees may
                apply.
              </p>
              {invoice.status === "expired" ? <p className="muted">The last crypto invoice expired before it was paid; a new one opens when you pay.</p> : null}
              {error ? (
                <p className="form-error" role="alert">
                  {error}
                </p>
              ) : null}
              <Form method="post">
                <input type="hidden" name="intent" value="pay" />
                <SubmitButton intent="pay">Pay with Crypto</SubmitButton>
              </Form>
            </>
          )}
        </section>
        <aside className="card order-summary" aria-labelledby="due-summary-title">
          <h2 id="due-summary-title">Order summary</h2>
          <dl>
            <div>
              <dt>Plan</dt>
              <dd>{invoiceTitle(invoice.title)}</dd>
            </div>
            <div>
              <dt>Regular price</dt>
              <dd>{formatCents(regular)}</dd>
            </div>
            {save > 0 ? (
              <div>
                <dt>
                  <span className="badge">Save {save}%</span>
                </dt>
                <dd>
                  <s>{formatCents(invoice.savings_cents)}</s>
                </dd>
              </div>
            ) : null}
            <TaxLines taxed={{ net_cents: invoice.net_cents, tax: invoice.tax, amount_cents: total }} />
            <div className="total">
              <dt>Total</dt>
              <dd>{formatCents(total)}</dd>
            </div>
          </dl>
        </aside>
      </div>
    </div>
  );
}
