import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { type ComponentType, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { PaymentFrame } from "~/components/payment-frame";
import { Spinner } from "~/components/spinner";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { getSessionToken } from "~/utils/session.server";
import type { WalletBodyProps } from "~/features/wallets/wallet-request";
import { pageMeta } from "~/utils/meta";
import { useFormatters } from "~/i18n/use-formatters";
import { DEMO_ORDER } from "~/features/wallets/wallet-request";

// The standalone express-checkout test page (commerce §2, §9): Apple Pay and Google Pay for a fixed
// 5.99 USD (599 cents), asked as a monthly recurring payment (Apple Pay's interval: 1 month). Live:
// Stripe's Express Checkout Element; sandbox: the stand-in wallet sheet. It never charges: a wallet's
// approval makes a payment method and the page says so. Wallets need JavaScript (DESIGN §3); without
// it the page says that. Signed in: inside the menu layout (the authenticated guard); else bare.

type Gateway = WalletBodyProps["gateway"];

export const meta: MetaFunction = (args) => pageMeta(args, "payments.meta.demo.title", "payments.meta.demo.description");

// Personal when signed in (the menu shows the account's email): never stored by a shared cache.
export const headers = () => ({ "Cache-Control": "private, no-store" });

export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = await getSessionToken(request);
  const api = createApiClient(request, context, token);
  const [gateway, me] = await Promise.all([api.get("/api/payments/config"), token ? api.get("/api/me") : Promise.resolve(null)]);
  if (!gateway.ok) throw serviceUnavailable();
  return { gateway: gateway.data, email: me?.ok ? me.data.email : null };
}

export default function DemoPage() {
  const { gateway, email } = useLoaderData<typeof loader>();
  return (
    <PaymentFrame email={email}>
      <ExpressCheckoutTest gateway={gateway} />
    </PaymentFrame>
  );
}

function ExpressCheckoutTest({ gateway }: { gateway: Gateway }) {
  const { t } = useTranslation("payments");
  const { money } = useFormatters();
  const [Wallets, setWallets] = useState<ComponentType<{ gateway: Gateway }> | null>(null);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setHydrated(true);
    let live = true;
    const loading =
      gateway.mode === "live"
        ? import("~/features/wallets/wallet-live").then((m) => m.LiveDemo)
        : import("~/features/wallets/wallet-sandbox").then((m) => m.SandboxDemo);
    void loading.then((component) => {
      if (live) setWallets(() => component);
    });
    return () => {
      live = false;
    };
  }, [gateway.mode]);

  return (
    <section className="card wallet-demo-page" aria-labelledby="demo-title">
      <h1 id="demo-title">{t("payments.demo.title")}</h1>
      <p>
        <Trans
          t={t}
          i18nKey="payments.demo.intro"
          values={{ amount: money(DEMO_ORDER.cents), cents: DEMO_ORDER.cents }}
          components={{ strong: <strong /> }}
        />
      </p>
      {gateway.mode === "sandbox" ? <p className="muted">{t("payments.demo.sandbox")}</p> : null}
      {!hydrated ? (
        <p className="notice" role="status">
          <Trans t={t} i18nKey="payments.demo.needsJavaScript" components={{ pricing: <Link to="/pricing" /> }} />
        </p>
      ) : Wallets ? (
        <Wallets gateway={gateway} />
      ) : (
        <Spinner />
      )}
    </section>
  );
}
