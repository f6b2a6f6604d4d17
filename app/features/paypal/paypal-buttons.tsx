import { PayPalButtons, PayPalScriptProvider, usePayPalScriptReducer } from "@paypal/react-paypal-js";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { usePageLanguage } from "~/i18n/page-language";

// PayPal's own buttons (live gateway, JavaScript on), loaded by the checkout's PayPal panel with a
// dynamic import only when the API gives a client id: in sandbox mode PayPal's script cannot load
// (it talks to PayPal, not to the stand-in), so the 'Continue to PayPal' redirect stays there. The
// buttons open PayPal's popup for the order or subscription the portal's /payments/paypal opens; on
// approval or cancellation the page goes to the same return URL PayPal's redirect uses, where the
// checkout's loader captures, confirms or releases it (one code path for both flows).

export type PayPalButtonsProps = {
  clientId: string;
  planId: number;
  /** Recurring plans are PayPal subscriptions, the 5-year plan a one-time order. */
  recurring: boolean;
  /** The page's payment key: a double click opens one order. */
  idempotencyKey: string;
  /** The checkout's path (the return URL's). */
  returnPath: string;
  /** What the page shows when PayPal's script does not load: the redirect form. */
  fallback: ReactNode;
};

/** A catalogue key (the portal's /payments/paypal answers its message in the page's language). */
const FAILED = "payments.paypal.failed";

/** PayPal's buttons in the page's language (its script takes a locale such as de_DE). */
const PAYPAL_LOCALES = { en: "en_US", de: "de_DE", fr: "fr_FR", es: "es_ES" } as const;

export function PayPalCheckoutButtons(props: PayPalButtonsProps) {
  const { clientId, recurring } = props;
  const { language } = usePageLanguage();
  return (
    <PayPalScriptProvider
      options={{
        clientId,
        locale: PAYPAL_LOCALES[language],
        currency: "USD",
        components: "buttons",
        ...(recurring ? { intent: "subscription", vault: true } : { intent: "capture" }),
      }}
    >
      <Buttons {...props} />
    </PayPalScriptProvider>
  );
}

function returnHref(path: string, outcome: "return" | "cancel", ids: { token?: string; subscription_id?: string }) {
  const query = new URLSearchParams({ paypal: outcome });
  if (ids.subscription_id) query.set("subscription_id", ids.subscription_id);
  if (ids.token) query.set("token", ids.token);
  return `${path}?${query}`;
}

function Buttons({ planId, recurring, idempotencyKey, returnPath, fallback }: PayPalButtonsProps) {
  const { t } = useTranslation("payments");
  const [{ isRejected }] = usePayPalScriptReducer();
  const [error, setError] = useState<string | null>(null);
  if (isRejected) return <>{fallback}</>;

  /** Opens the order or subscription through the portal; PayPal's popup then shows it. */
  const open = async (): Promise<string> => {
    setError(null);
    const response = await fetch("/payments/paypal", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ planId, return_path: returnPath, idempotency_key: idempotencyKey }),
    });
    const body = (await response.json().catch(() => ({}))) as { ok?: boolean; id?: string; message?: string };
    if (!body.ok || !body.id) {
      const message = body.message || FAILED;
      setError(message);
      throw new Error(message);
    }
    return body.id;
  };
  const go = (href: string) => window.location.assign(href);

  return (
    <>
      <PayPalButtons
        style={{ layout: "vertical", label: recurring ? "subscribe" : "pay" }}
        forceReRender={[planId, idempotencyKey]}
        {...(recurring ? { createSubscription: () => open() } : { createOrder: () => open() })}
        onApprove={async (data) =>
          go(returnHref(returnPath, "return", data.subscriptionID ? { subscription_id: data.subscriptionID } : { token: data.orderID }))
        }
        onCancel={(data) => {
          const id = typeof data.orderID === "string" ? data.orderID : undefined;
          const subscription = typeof data.subscriptionID === "string" ? data.subscriptionID : undefined;
          go(returnHref(returnPath, "cancel", subscription ? { subscription_id: subscription } : { token: id }));
        }}
        onError={() => setError((current) => current ?? FAILED)}
      />
      <p className="form-error" role={error ? "alert" : undefined}>
        {error ? t(error) : ""}
      </p>
    </>
  );
}
