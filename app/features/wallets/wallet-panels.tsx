import { Link } from "@remix-run/react";
import { type ComponentType, useEffect, useState } from "react";
import { Spinner } from "~/components/spinner";
import { formatMoney } from "~/utils/plans";
import { type WalletBodyProps, intervalLabel, toCents, walletOrder } from "./wallet-request";

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
  plan: { id: number; title: string; slug: string; billing_type: "recurring" | "single"; discounted_price: number };
  /** What is paid now (the order summary's total, the coupon included). */
  total: number;
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

/** The plan's terms as this wallet pays them (renewal, or a one-time payment). */
function walletTerms(name: string, plan: WalletPanelsProps["plan"], total: number, order: ReturnType<typeof walletOrder>): string {
  if (!order.interval) return `With ${name} you pay ${formatMoney(total)} once; this plan never renews.`;
  return `With ${name} you pay ${formatMoney(total)} today; the plan then renews ${intervalLabel(order.interval)} at ${formatMoney(plan.discounted_price)} by auto-renewal, which you can turn off at least 24 hours before a billing cycle ends.`;
}

function WalletPanel({ wallet, name, plan, total, gateway, signedIn }: WalletPanelsProps & { wallet: Wallet; name: string }) {
  const [opened, setOpened] = useState(false);
  const [Body, setBody] = useState<ComponentType<WalletBodyProps> | null>(null);
  const order = walletOrder(plan, toCents(total));

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
      <p>{walletTerms(name, plan, total, order)}</p>
      <p className="muted">
        30-Day Money-Back Guarantee. Payments are processed in USD; provider fees may apply. By paying you agree to the{" "}
        <Link to="/terms">Terms of Service</Link> and <Link to="/privacy">Privacy Policy</Link>.
      </p>
      {!signedIn ? (
        <p className="muted">Enter and verify your email above to pay with {name}.</p>
      ) : Body ? (
        <Body wallet={wallet} planId={plan.id} order={order} gateway={gateway} />
      ) : opened ? (
        <Spinner />
      ) : null}
    </details>
  );
}
