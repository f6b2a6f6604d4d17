import { useId } from "react";
import { useTranslation } from "react-i18next";
import { ModalDialog } from "~/components/modal-dialog";
import { Spinner } from "~/components/spinner";
import { Toasts } from "~/components/toasts";
import { WALLET_NAMES, type Wallet } from "~/utils/wallet-errors";
import { useFormatters } from "~/i18n/use-formatters";
import { type WalletOrder, intervalLabel } from "./wallet-request";

// The sandbox's stand-in for a wallet's payment sheet (Google Pay's and Apple Pay's own sheets are
// the browser's and cannot run offline): a real modal dialog with the amount, what renews, and buttons
// for what a buyer or a wallet can do. Shared by the checkout and /demo; JavaScript only, like the wallets.

/** `label`: a catalogue key. */
export type SheetOutcome = { id: string; label: string; primary?: boolean };

export function WalletSheet({
  wallet,
  order,
  outcomes,
  busy,
  note,
  onChoose,
  onCancel,
}: {
  wallet: Wallet;
  order: WalletOrder;
  outcomes: SheetOutcome[];
  busy: boolean;
  /** Already in the page's language. */
  note: string;
  onChoose: (id: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation("payments");
  const { money } = useFormatters();
  const titleId = useId();
  const recurring = wallet === "applepay" && order.interval && order.renewalCents !== null;
  // A real modal (showModal: focus moves to 'Approve', stays in the sheet, returns to the wallet's button);
  // Escape is the sheet's Cancel, except while the payment is under way.
  return (
    <ModalDialog labelledBy={titleId} onCancel={onCancel} cancelDisabled={busy} className="wallet-sheet">
      <div aria-busy={busy || undefined}>
        <h2 id={titleId}>{t("payments.sheet.title", { wallet: WALLET_NAMES[wallet] })}</h2>
        <p className="muted">{note}</p>
        <dl className="wallet-sheet__lines">
          <div>
            <dt>{t(order.label)}</dt>
            <dd>{money(order.cents)}</dd>
          </div>
          {recurring ? (
            <div>
              <dt>{t("payments.sheet.recurring")}</dt>
              <dd>{t("payments.sheet.recurringAmount", { amount: money(order.renewalCents!), interval: intervalLabel(order.interval!, t) })}</dd>
            </div>
          ) : null}
          <div className="wallet-sheet__total">
            <dt>{t("payments.sheet.payNow")}</dt>
            <dd>{money(order.cents)}</dd>
          </div>
        </dl>
        <div className="wallet-sheet__actions">
          {outcomes.map((outcome) => (
            <button
              key={outcome.id}
              type="button"
              className={`button ${outcome.primary ? "button--primary" : ""}`}
              disabled={busy}
              onClick={() => (outcome.id === "cancel" ? onCancel() : onChoose(outcome.id))}
            >
              {t(outcome.label)}
            </button>
          ))}
        </div>
        {busy ? <Spinner /> : null}
      </div>
    </ModalDialog>
  );
}

export type Feedback = { message: string; tone: "info" | "error" | "success"; id: number };

/** A wallet's message: inline in the panel (errors as alerts) and as a toast (commerce §4). */
export function WalletFeedback({ feedback }: { feedback: Feedback | null }) {
  const { t } = useTranslation("payments");
  if (!feedback) return null;
  const type = feedback.tone === "error" ? "error" : feedback.tone === "success" ? "success" : "info";
  return (
    <>
      {feedback.tone !== "info" ? (
        <p className={feedback.tone === "error" ? "form-error wallet-message" : "wallet-message wallet-message--success"} role={feedback.tone === "error" ? "alert" : "status"}>
          {/* A catalogue key, or a text already in the page's language (the server's): t passes it through. */}
          {t(feedback.message)}
        </p>
      ) : null}
      {/* Keyed by the message's id so that the same message shown twice animates again. */}
      <div key={feedback.id}>
        <Toasts toasts={[{ message: feedback.message, type }]} />
      </div>
    </>
  );
}
