import { useCallback, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useFormatters } from "~/i18n/use-formatters";
import {
  type Wallet,
  type WalletCause,
  WALLET_NAMES,
  appleLoadMessage,
  describeWalletFailure,
  expressCheckoutMessage,
  walletMessage,
} from "~/utils/wallet-errors";
import { AuthenticationChallenge } from "~/features/card-entry/authentication-dialog";
import { type WalletChallenge, completeWalletPayment, newIdempotencyKey, postWalletPayment, sandboxPaymentMethod, showPaymentSuccessful } from "./wallet-pay";
import { DEMO_ORDER, type WalletBodyProps } from "./wallet-request";
import { type Feedback, type SheetOutcome, WalletFeedback, WalletSheet } from "./wallet-sheet";

// Google Pay and Apple Pay in sandbox mode (no Stripe keys): the stand-in sheet instead of the
// wallet's own. Approve pays with the test card 4242 4242 4242 4242 (made into a PaymentMethod by the
// Stripe sandbox's tokenizer, as Stripe.js would), Decline with 4000 0000 0000 0002 (the bank
// declines it when charged). The other outcomes reproduce what a wallet can report: a card it could
// not authorize (an expired card, refused by the tokenizer), a lost connection. `?wallet=unavailable`
// (and for Apple Pay `android`, `no-active-card`, `unsupported-browser`, `not-set-up`, `load-error`)
// shows the wallet as a device without it would.

const GOOD_CARD = "4242 4242 4242 4242";
const DECLINED_CARD = "4000 0000 0000 0002";
/** Asks for 3-D Secure (the sandbox's 3155). */
const AUTHENTICATION_CARD = "4000 0025 0000 3155";
/** Not a test card: the sandbox's tokenizer refuses it (the stand-in for a wallet card Stripe.js cannot use). */
const UNUSABLE_CARD = "4000 0000 0000 0000";

const CHECKOUT_OUTCOMES: SheetOutcome[] = [
  { id: "approve", label: "payments.sheet.approve", primary: true },
  { id: "cancel", label: "payments.sheet.cancel" },
  { id: "decline", label: "payments.sheet.decline" },
  { id: "not_authorized", label: "payments.sheet.notAuthorized" },
  { id: "authenticate", label: "payments.sheet.authenticate" },
  { id: "network", label: "payments.sheet.network" },
];

/**
 * The notice that replaces the button when the wallet is "not on this device" (the `wallet` query flag,
 * or Android as the API read this browser: `deviceOs`, the payment config's `device.os`).
 */
export function sandboxUnavailable(wallet: Wallet, flag: string | null, deviceOs: string | null): string | null {
  if (wallet === "googlepay") return flag === "unavailable" ? walletMessage("googlepay", "unavailable") : null;
  switch (flag ?? (deviceOs === "Android" ? "android" : null)) {
    case "unavailable":
      return walletMessage("applepay", "unavailable");
    case "android":
      return walletMessage("applepay", "android");
    case "no-active-card":
      return appleLoadMessage("no_active_card");
    case "unsupported-browser":
      return appleLoadMessage("unsupported_browser");
    case "not-set-up":
      return appleLoadMessage("not_set_up");
    case "load-error":
      return appleLoadMessage("unknown");
    default:
      return null;
  }
}

function simulatedNetworkFailure(): never {
  throw new TypeError("Failed to fetch (sandbox: a simulated lost connection)");
}

function useFeedback() {
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const counter = useRef(0);
  const show = useCallback((message: string, tone: Feedback["tone"]) => setFeedback({ message, tone, id: ++counter.current }), []);
  return { feedback, show, clear: () => setFeedback(null) };
}

/** The checkout panel's body: 'Pay with Google Pay' / 'Pay with Apple Pay' and the stand-in sheet. */
export function SandboxWalletPanel({ wallet, planId, order, gateway }: WalletBodyProps) {
  const { t } = useTranslation("payments");
  const name = WALLET_NAMES[wallet];
  const unavailable = useMemo(
    () => sandboxUnavailable(wallet, new URLSearchParams(window.location.search).get("wallet"), gateway.device.os),
    [wallet, gateway.device.os],
  );
  const [sheetKey, setSheetKey] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [challenge, setChallenge] = useState<WalletChallenge | null>(null);
  const { feedback, show, clear } = useFeedback();

  async function finishChallenge(done: WalletChallenge) {
    const finished = await completeWalletPayment(planId, done);
    setChallenge(null);
    if (finished.ok) return showPaymentSuccessful();
    setBusy(false);
    show(finished.message, "error");
  }

  const fail = (cause: WalletCause) => {
    const described = describeWalletFailure(wallet, cause);
    show(described.message, described.tone);
  };
  const cancel = useCallback(() => {
    setSheetKey(null);
    setBusy(false);
    show(walletMessage(wallet, "cancelled"), "info");
  }, [show, wallet]);

  async function choose(outcome: string) {
    if (!sheetKey || busy) return;
    setBusy(true);
    let leaving = false;
    try {
      if (outcome === "network") simulatedNetworkFailure();
      const card =
        outcome === "decline"
          ? { number: DECLINED_CARD }
          : outcome === "not_authorized"
            ? { number: GOOD_CARD, expMonth: 1, expYear: new Date().getUTCFullYear() - 1 }
            : outcome === "authenticate"
              ? { number: AUTHENTICATION_CARD }
              : { number: GOOD_CARD };
      const made = await sandboxPaymentMethod(gateway.publishable_key, card);
      if ("error" in made) {
        setSheetKey(null);
        fail({ type: "gateway", error: made.error });
        return;
      }
      const result = await postWalletPayment({ planId, paymentTokenId: made.id, paymentSource: wallet, idempotencyKey: sheetKey });
      if (result.ok) {
        leaving = true;
        showPaymentSuccessful();
        return;
      }
      if ("signedOut" in result) {
        leaving = true;
        window.location.assign(result.signedOut);
        return;
      }
      setSheetKey(null);
      if ("requiresAction" in result) {
        // 3-D Secure: the sandbox's challenge in the page's dialog, then the API finishes the attempt.
        leaving = true;
        setChallenge(result.requiresAction);
        return;
      }
      fail(result.cause);
    } catch (error) {
      setSheetKey(null);
      fail({ type: "thrown", error });
    } finally {
      if (!leaving) setBusy(false);
    }
  }

  if (unavailable) {
    return (
      <p className="notice wallet-notice" role="status">
        {t(unavailable)}
      </p>
    );
  }
  return (
    <div className="wallet-panel">
      <button
        type="button"
        className={`button button--block wallet-button wallet-button--${wallet}`}
        disabled={busy}
        aria-busy={busy || undefined}
        onClick={() => {
          clear();
          setSheetKey(newIdempotencyKey());
        }}
      >
        {t("payments.wallet.payWith", { wallet: name })}
      </button>
      {sheetKey ? (
        <WalletSheet
          wallet={wallet}
          order={order}
          outcomes={CHECKOUT_OUTCOMES}
          busy={busy}
          note={t("payments.sheet.checkoutNote", { goodCard: GOOD_CARD, declinedCard: DECLINED_CARD })}
          onChoose={choose}
          onCancel={cancel}
        />
      ) : null}
      {challenge ? (
        <AuthenticationChallenge key={challenge.paymentIntent} challenge={challenge} gateway={gateway} onDone={() => void finishChallenge(challenge)} />
      ) : null}
      <WalletFeedback feedback={feedback} />
    </div>
  );
}

const DEMO_OUTCOMES: SheetOutcome[] = [
  { id: "approve", label: "payments.sheet.approve", primary: true },
  { id: "cancel", label: "payments.sheet.cancel" },
  { id: "decline", label: "payments.sheet.decline" },
  { id: "payment_method", label: "payments.sheet.paymentMethodError" },
  { id: "network", label: "payments.sheet.network" },
];

/** /demo in sandbox mode: both wallets, 5.99 USD monthly, no payment taken. */
export function SandboxDemo({ gateway }: { gateway: WalletBodyProps["gateway"] }) {
  const { t } = useTranslation("payments");
  const { money } = useFormatters();
  const [open, setOpen] = useState<Wallet | null>(null);
  const [busy, setBusy] = useState(false);
  const { feedback, show, clear } = useFeedback();
  const cancel = useCallback(() => {
    if (open) show(walletMessage(open, "cancelled"), "info");
    setOpen(null);
    setBusy(false);
  }, [open, show]);

  async function choose(outcome: string) {
    const wallet = open;
    if (!wallet || busy) return;
    setBusy(true);
    try {
      // The wallet refused the details it was given (Stripe: elements.submit() fails).
      if (outcome === "decline") {
        show(expressCheckoutMessage("invalid_details"), "error");
        return;
      }
      if (outcome === "network") simulatedNetworkFailure();
      const made = await sandboxPaymentMethod(gateway.publishable_key, { number: outcome === "payment_method" ? UNUSABLE_CARD : GOOD_CARD });
      if ("error" in made) {
        show(expressCheckoutMessage("payment_method"), "error");
        return;
      }
      show(t("payments.demo.approved", { wallet: WALLET_NAMES[wallet], amount: money(DEMO_ORDER.cents), paymentMethod: made.id }), "success");
    } catch {
      show(expressCheckoutMessage("other"), "error");
    } finally {
      setOpen(null);
      setBusy(false);
    }
  }

  return (
    <div className="wallet-demo">
      <div className="wallet-demo__buttons">
        {(["applepay", "googlepay"] as const).map((wallet) => (
          <button
            key={wallet}
            type="button"
            className={`button button--block wallet-button wallet-button--${wallet}`}
            disabled={busy}
            onClick={() => {
              clear();
              setOpen(wallet);
            }}
          >
            {t("payments.wallet.payWith", { wallet: WALLET_NAMES[wallet] })}
          </button>
        ))}
      </div>
      {open ? (
        <WalletSheet
          wallet={open}
          order={DEMO_ORDER}
          outcomes={DEMO_OUTCOMES}
          busy={busy}
          note={t("payments.sheet.demoNote", { goodCard: GOOD_CARD })}
          onChoose={choose}
          onCancel={cancel}
        />
      ) : null}
      <WalletFeedback feedback={feedback} />
    </div>
  );
}
