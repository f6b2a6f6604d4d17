import { Elements, ExpressCheckoutElement, useElements, useStripe } from "@stripe/react-stripe-js";
import {
  type Stripe,
  type StripeExpressCheckoutElementClickEvent,
  type StripeExpressCheckoutElementConfirmEvent,
  type StripeExpressCheckoutElementOptions,
  type StripeExpressCheckoutElementReadyEvent,
  loadStripe,
} from "@stripe/stripe-js";
import { useCallback, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Spinner } from "~/components/spinner";
import { usePageLanguage } from "~/i18n/page-language";
import { useFormatters } from "~/i18n/use-formatters";
import {
  type Wallet,
  type WalletCause,
  WALLET_NAMES,
  appleLoadFailure,
  appleLoadMessage,
  appleUnavailableMessage,
  describeWalletFailure,
  expressCheckoutMessage,
  walletMessage,
} from "~/utils/wallet-errors";
import { completeWalletPayment, newIdempotencyKey, postWalletPayment, showPaymentSuccessful } from "./wallet-pay";
import { DEMO_ORDER, type WalletBodyProps, type WalletOrder, appleRecurringRequest } from "./wallet-request";
import { type Feedback, WalletFeedback } from "./wallet-sheet";

// Google Pay and Apple Pay with live Stripe: Stripe's Express Checkout Element (Stripe.js is loaded
// from Stripe, on the pages that use it, once the panel is opened). Stripe shows the wallet's own
// sheet and validates the Apple Pay merchant itself (the site's domain must be registered with
// Stripe). The wallet's card becomes a PaymentMethod in the browser (paymentMethodCreation manual)
// and only its id is posted to the portal, which pays through the API.

let stripePromise: Promise<Stripe | null> | null = null;
function stripeFor(publishableKey: string) {
  stripePromise ??= loadStripe(publishableKey);
  return stripePromise;
}

type PaymentMethodsKey = "applePay" | "googlePay";
const ELEMENT_KEY: Record<Wallet, PaymentMethodsKey> = { applepay: "applePay", googlepay: "googlePay" };

/** Only the wallets asked for: nothing else of the Express Checkout Element's methods. */
function onlyWallets(wallets: Wallet[]): StripeExpressCheckoutElementOptions["paymentMethods"] {
  return {
    applePay: wallets.includes("applepay") ? "always" : "never",
    googlePay: wallets.includes("googlepay") ? "always" : "never",
    link: "never",
    paypal: "never",
    amazonPay: "never",
    klarna: "never",
  };
}

function walletOf(event: { expressPaymentType: string }): Wallet | null {
  return event.expressPaymentType === "apple_pay" ? "applepay" : event.expressPaymentType === "google_pay" ? "googlepay" : null;
}

/** Why Apple Pay could not load, from what this browser reports (commerce §8 wallet load messages). */
function appleLoadProblem(): string {
  const session = (window as unknown as { ApplePaySession?: { canMakePayments?: () => boolean } }).ApplePaySession;
  let canMakePayments: boolean | undefined;
  try {
    canMakePayments = session?.canMakePayments?.();
  } catch {
    canMakePayments = undefined;
  }
  return appleLoadMessage(appleLoadFailure({ applePaySession: Boolean(session), canMakePayments }));
}

function elementsOptions(order: WalletOrder, language: ReturnType<typeof usePageLanguage>["language"]) {
  return {
    // Stripe's Express Checkout Element (and the wallet sheet it opens) in the page's language.
    locale: language,
    mode: order.interval ? ("subscription" as const) : ("payment" as const),
    amount: order.cents,
    currency: "usd",
    paymentMethodCreation: "manual" as const,
  };
}

function useFeedback() {
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const counter = useRef(0);
  const show = useCallback((message: string, tone: Feedback["tone"]) => setFeedback({ message, tone, id: ++counter.current }), []);
  return { feedback, show, clear: () => setFeedback(null) };
}

/** The checkout panel's body with live Stripe. */
export function LiveWalletPanel(props: WalletBodyProps) {
  const { language } = usePageLanguage();
  const options = useMemo(() => elementsOptions(props.order, language), [props.order, language]);
  return (
    <Elements stripe={stripeFor(props.gateway.publishable_key)} options={options}>
      <ExpressWallet {...props} />
    </Elements>
  );
}

function ExpressWallet({ wallet, planId, order, gateway }: WalletBodyProps) {
  const { t } = useTranslation("payments");
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const busy = useRef(false);
  const { feedback, show, clear } = useFeedback();

  const fail = (cause: WalletCause) => {
    busy.current = false;
    const described = describeWalletFailure(wallet, cause);
    show(described.message, described.tone);
  };

  function onReady(event: StripeExpressCheckoutElementReadyEvent) {
    if (event.availablePaymentMethods?.[ELEMENT_KEY[wallet]]) {
      setReady(true);
      return;
    }
    // commerce §2: on Android, or when the wallet is not reported available, a notice replaces the button.
    setNotice(wallet === "applepay" ? appleUnavailableMessage(gateway.device.os) : walletMessage("googlepay", "unavailable"));
  }

  function onLoadError() {
    setNotice(wallet === "applepay" ? appleLoadProblem() : walletMessage("googlepay", "unavailable"));
  }

  function onClick(event: StripeExpressCheckoutElementClickEvent) {
    if (busy.current) {
      event.reject();
      return;
    }
    busy.current = true;
    clear();
    const recurring = wallet === "applepay" ? appleRecurringRequest(order, `${window.location.origin}/billing`, t) : null;
    event.resolve(recurring ? { applePay: { recurringPaymentRequest: recurring } } : undefined);
  }

  async function onConfirm(event: StripeExpressCheckoutElementConfirmEvent) {
    if (!stripe || !elements) {
      event.paymentFailed({ reason: "fail" });
      fail({ type: "thrown", error: new Error("Stripe.js is not loaded") });
      return;
    }
    try {
      const submitted = await elements.submit();
      if (submitted.error) {
        event.paymentFailed({ reason: "invalid_payment_data" });
        fail({ type: "gateway", error: submitted.error });
        return;
      }
      const created = await stripe.createPaymentMethod({ elements });
      if (created.error || !created.paymentMethod) {
        event.paymentFailed({ reason: "fail" });
        fail({ type: "gateway", error: created.error });
        return;
      }
      const result = await postWalletPayment({
        planId,
        paymentTokenId: created.paymentMethod.id,
        paymentSource: wallet,
        idempotencyKey: newIdempotencyKey(),
      });
      if (result.ok) {
        showPaymentSuccessful();
        return;
      }
      if ("signedOut" in result) {
        window.location.assign(result.signedOut);
        return;
      }
      if ("requiresAction" in result) {
        // 3-D Secure: the bank's challenge, then the API finishes the attempt from what Stripe says
        // (failed or abandoned: nothing is charged, and the wallet may be used again at once).
        await stripe.handleNextAction({ clientSecret: result.requiresAction.clientSecret });
        const done = await completeWalletPayment(planId, result.requiresAction);
        if (done.ok) showPaymentSuccessful();
        else fail({ type: "answer", status: 402, message: done.message });
        return;
      }
      event.paymentFailed({ reason: "fail" });
      fail(result.cause);
    } catch (error) {
      event.paymentFailed({ reason: "fail" });
      fail({ type: "thrown", error });
    }
  }

  function onCancel() {
    fail({ type: "cancelled" });
  }

  const options = useMemo<StripeExpressCheckoutElementOptions>(
    () => ({
      paymentMethods: onlyWallets([wallet]),
      buttonType: order.interval ? { applePay: "subscribe", googlePay: "subscribe" } : { applePay: "buy", googlePay: "buy" },
    }),
    [wallet, order.interval],
  );

  if (notice) {
    return (
      <p className="notice wallet-notice" role="status">
        {t(notice)}
      </p>
    );
  }
  return (
    <div className="wallet-panel">
      {ready ? null : <Spinner />}
      <ExpressCheckoutElement options={options} onReady={onReady} onLoadError={onLoadError} onClick={onClick} onConfirm={onConfirm} onCancel={onCancel} />
      <p className="muted">{t("payments.wallet.opensOwnSheet", { wallet: WALLET_NAMES[wallet] })}</p>
      <WalletFeedback feedback={feedback} />
    </div>
  );
}

/** /demo with live Stripe: the Express Checkout Element for 5.99 USD monthly; a payment method is made, nothing is charged. */
export function LiveDemo({ gateway }: { gateway: WalletBodyProps["gateway"] }) {
  const { language } = usePageLanguage();
  const options = useMemo(() => elementsOptions(DEMO_ORDER, language), [language]);
  return (
    <Elements stripe={stripeFor(gateway.publishable_key)} options={options}>
      <DemoExpress deviceOs={gateway.device.os} />
    </Elements>
  );
}

function DemoExpress({ deviceOs }: { deviceOs: string | null }) {
  const { t } = useTranslation("payments");
  const { money } = useFormatters();
  const stripe = useStripe();
  const elements = useElements();
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [notices, setNotices] = useState<string[]>([]);
  const clicked = useRef<Wallet | null>(null);
  const { feedback, show, clear } = useFeedback();

  const options = useMemo<StripeExpressCheckoutElementOptions>(() => ({ paymentMethods: onlyWallets(["applepay", "googlepay"]) }), []);

  function onReady(event: StripeExpressCheckoutElementReadyEvent) {
    setReady(true);
    const available = event.availablePaymentMethods;
    const missing: string[] = [];
    if (!available?.applePay) missing.push(appleUnavailableMessage(deviceOs));
    if (!available?.googlePay) missing.push(walletMessage("googlepay", "unavailable"));
    setNotices(missing);
  }

  async function onConfirm(event: StripeExpressCheckoutElementConfirmEvent) {
    const wallet = walletOf(event);
    if (!stripe || !elements) {
      event.paymentFailed({ reason: "fail" });
      show(expressCheckoutMessage("other"), "error");
      return;
    }
    try {
      const submitted = await elements.submit();
      if (submitted.error) {
        event.paymentFailed({ reason: "invalid_payment_data" });
        show(expressCheckoutMessage("invalid_details"), "error");
        return;
      }
      const created = await stripe.createPaymentMethod({ elements });
      if (created.error || !created.paymentMethod) {
        event.paymentFailed({ reason: "fail" });
        show(expressCheckoutMessage("payment_method"), "error");
        return;
      }
      // A test page: the payment method is made, no PaymentIntent is confirmed, nothing is charged.
      const values = { amount: money(DEMO_ORDER.cents), paymentMethod: created.paymentMethod.id };
      show(wallet ? t("payments.demo.approved", { ...values, wallet: WALLET_NAMES[wallet] }) : t("payments.demo.approvedByWallet", values), "success");
    } catch {
      event.paymentFailed({ reason: "fail" });
      show(expressCheckoutMessage("other"), "error");
    }
  }

  if (failed) {
    return (
      <p className="form-error" role="alert">
        {t(expressCheckoutMessage("other"))}
      </p>
    );
  }
  return (
    <div className="wallet-demo">
      {ready ? null : <Spinner />}
      {notices.map((notice) => (
        <p key={notice} className="notice wallet-notice" role="status">
          {t(notice)}
        </p>
      ))}
      <ExpressCheckoutElement
        options={options}
        onReady={onReady}
        onLoadError={() => setFailed(true)}
        onClick={(event) => {
          clear();
          clicked.current = walletOf(event);
          const recurring = appleRecurringRequest(DEMO_ORDER, `${window.location.origin}/billing`, t);
          event.resolve(clicked.current === "applepay" && recurring ? { applePay: { recurringPaymentRequest: recurring } } : undefined);
        }}
        onConfirm={onConfirm}
        onCancel={() => {
          if (clicked.current) show(walletMessage(clicked.current, "cancelled"), "info");
        }}
      />
      <WalletFeedback feedback={feedback} />
    </div>
  );
}
