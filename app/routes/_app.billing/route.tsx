import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { PageAlert } from "~/components/form-alert";
import { Toasts } from "~/components/toasts";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { PaymentFailedBanner } from "~/features/dunning/payment-failed-banner";
import { loadPaymentFailed } from "~/features/dunning/payment-failed.server";
import { readFormData } from "~/utils/forms.server";
import { paymentMethodsAction, paymentMethodsState } from "~/features/payment-methods/payment-methods.server";
import { PaymentMethodsTab } from "~/features/payment-methods/payment-methods-tab";
import { PaymentHistoryTab } from "./history";
import { historyAction, historyState } from "./history.server";
import { pageMeta } from "~/utils/meta";
import { languageOf } from "~/i18n/i18n.server";
import { billingDetailsAction, billingDetailsState } from "~/features/billing-details/billing-details.server";
import { BillingDetailsTab } from "~/features/billing-details/billing-details-tab";

// Billing (commerce §2): tabs as links, 'Payment History' (?tab=history, the default), 'Payment Method'
// (?tab=payment-method) and 'Billing details' (?tab=billing-details, issue 35: what invoices are made out
// to). Only the open tab's data is loaded. The action offers each intent to the Payment Method tab
// first, then to the history tab (auto-renewal), then to the billing details.

export const meta: MetaFunction = (args) => pageMeta(args, "billing.meta.title", "billing.meta.description");

export const headers = () => ({ "Cache-Control": "private, no-store" });

type Tab = "history" | "payment-method" | "billing-details";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const url = new URL(request.url);
  const asked = url.searchParams.get("tab");
  const tab: Tab = asked === "payment-method" || asked === "billing-details" ? asked : "history";
  // Either tab shows 'Your last payment failed.' while a renewal is unpaid.
  const paymentFailed = loadPaymentFailed(createApiClient(request, context, token), languageOf(request));
  if (tab === "payment-method") {
    const [paymentMethods, failed] = await Promise.all([paymentMethodsState(request, context, url), paymentFailed]);
    return { tab, paymentMethods, history: null, billingDetails: null, paymentFailed: failed };
  }
  if (tab === "billing-details") {
    const [billingDetails, failed] = await Promise.all([billingDetailsState(request, context), paymentFailed]);
    return { tab, paymentMethods: null, history: null, billingDetails, paymentFailed: failed };
  }
  const [history, failed] = await Promise.all([historyState(request, context, url), paymentFailed]);
  return { tab, paymentMethods: null, history, billingDetails: null, paymentFailed: failed };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireToken(request);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");
  const theirs = await paymentMethodsAction(intent, { request, context, formData });
  if (theirs !== null) return theirs;
  const ours = await historyAction(intent, { request, context, formData });
  if (ours !== null) return ours;
  const details = await billingDetailsAction(intent, { request, context, formData });
  if (details !== null) return details;
  return redirect("/billing");
}

/** `name`: the tab's catalogue key. */
const TABS: { id: Tab; name: string; href: string }[] = [
  { id: "history", name: "billing.tabs.history", href: "/billing" },
  { id: "payment-method", name: "billing.tabs.paymentMethod", href: "/billing?tab=payment-method" },
  { id: "billing-details", name: "billing.tabs.billingDetails", href: "/billing?tab=billing-details" },
];

export default function BillingPage() {
  const { tab, history, paymentMethods, billingDetails, paymentFailed } = useLoaderData<typeof loader>();
  const { t } = useTranslation("billing");
  const current = TABS.find((item) => item.id === tab)!;
  return (
    <section className="page">
      <Toasts toasts={history?.notices ?? []} />
      <h1>{t("billing.title")}</h1>
      {/* A refused refund, auto-renewal or card change stays here after its toast has closed (issue 21). */}
      <PageAlert />
      {paymentFailed ? <PaymentFailedBanner failed={paymentFailed} /> : null}
      <div role="tablist" aria-label={t("billing.title")} className="tabs billing-tabs">
        {TABS.map((item) => (
          <Link key={item.id} role="tab" aria-selected={item.id === tab} to={item.href} className="tab" id={`billing-tab-${item.id}`}>
            {t(item.name)}
          </Link>
        ))}
      </div>
      {/* A div, not a section: a tab panel has no heading of its own, the active tab names it. */}
      <div role="tabpanel" aria-labelledby={`billing-tab-${current.id}`} className="billing-panel">
        {history ? <PaymentHistoryTab state={history} pastDueUntil={paymentFailed?.graceUntil ?? null} /> : null}
        {paymentMethods ? <PaymentMethodsTab state={paymentMethods} /> : null}
        {billingDetails ? <BillingDetailsTab state={billingDetails} /> : null}
      </div>
    </section>
  );
}
