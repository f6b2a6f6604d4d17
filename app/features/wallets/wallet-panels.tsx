import { type ComponentType, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Spinner } from "~/components/spinner";
import { useFormatters } from "~/i18n/use-formatters";
import { type Translate, type WalletBodyProps, type WalletOrder, intervalLabel, walletOrder } from "./wallet-request";

/** The API's quote of a payment (POST /api/checkout/quote), as far as a wallet needs it. */
type Quote = { amount_cents: number; renewal: { amount_cents: number; interval_months: number } | null };

// The 'Apple Pay' and 'Google Pay' panels of the checkout's payment-method accordion (commerce §2).
// JavaScript-only (DESIGN §3): nothing is rendered on the server or before hydration, and the wallet
// code itself (the sandbox's stand-in sheet, or Stripe's Express Checkout Element with Stripe.js) is
// loaded only when a panel is opened.

type Wallet = WalletBodyProps["wallet"];

const WALLETS: ReadonlyArray<{ wallet: Wallet; name: string }> = [
  { wallet: "applepay", name: "Apple Pay" },
  { wallet: "googlepay", name: "Google Pay" },
];

export type WalletPanelsProps = {
  plan: { id: number; title: string };
  /** The API's quote for wallets: what is paid now (the coupon included) and what renews. */
  quote: Quote;
  gateway: WalletBodyProps["gateway"];
  /** Wallets pay for a signed-in account: visitors verify their email first, as for the card. */
  signedIn: boolean;
};

export function WalletPanels(props: WalletPanelsProps) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  if (!hydrated) return null;
  return (
    <>
      {WALLETS.map(({ wallet, name }) => (
        <WalletPanel key={wallet} wallet={wallet} name={name} {...props} />
      ))}
    </>
  );
}

/** The plan's terms as this wallet pays them (renewal, or a one-time payment), from the quote. */
function walletTerms(name: string, order: WalletOrder, t: Translate, money: (cents: number) => string): string {
  if (!order.interval || order.renewalCents === null) return t("payments.wallet.terms.once", { wallet: name, amount: money(order.cents) });
  return t("payments.wallet.terms.renews", {
    wallet: name,
    amount: money(order.cents),
    interval: intervalLabel(order.interval, t),
    renewal: money(order.renewalCents),
  });
}

function WalletPanel({ wallet, name, plan, quote, gateway, signedIn }: WalletPanelsProps & { wallet: Wallet; name: string }) {
  const { t } = useTranslation("payments");
  const { money } = useFormatters();
  const [opened, setOpened] = useState(false);
  const [Body, setBody] = useState<ComponentType<WalletBodyProps> | null>(null);
  const order = walletOrder(plan, quote);

  useEffect(() => {
    if (!opened || !signedIn || Body) return;
    let live = true;
    const loading =
      gateway.mode === "live"
        ? import("./wallet-live").then((m) => m.LiveWalletPanel)
        : import("./wallet-sandbox").then((m) => m.SandboxWalletPanel);
    void loading.then((component) => {
      if (live) setBody(() => component);
    });
    return () => {
      live = false;
    };
  }, [opened, signedIn, Body, gateway.mode]);

  return (
    <details
      name="payment-method"
      className="accordion-item wallet-accordion"
      onToggle={(event) => {
        if (event.currentTarget.open) setOpened(true);
      }}
    >
      <summary>{name}</summary>
      <p>{walletTerms(name, order, t, money)}</p>
      {!signedIn ? (
        <p className="muted">{t("payments.wallet.verifyEmailFirst", { wallet: name })}</p>
      ) : Body ? (
        <Body wallet={wallet} planId={plan.id} order={order} gateway={gateway} />
      ) : opened ? (
        <Spinner />
      ) : null}
    </details>
  );
}
