import { useNavigate } from "@remix-run/react";
import { type ReactNode, useEffect, useLayoutEffect, useRef } from "react";

// useLayoutEffect warns when rendered on the server; the effect only matters in the browser.
const useBrowserLayoutEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

type ModalDialogProps = {
  /** The id of the dialog's heading, which names it. */
  labelledBy: string;
  /** Where Escape goes: the same place as the dialog's own close or 'Go back' link (a URL without the dialog's state). */
  cancelTo?: string;
  /** Or what Escape does, for a dialog that is not a URL state. */
  onCancel?: () => void;
  /** Where focus goes when the dialog closes and what opened it is gone (a CSS selector). */
  returnFocusTo?: string;
  /** While true, Escape does nothing (work the dialog started is under way). */
  cancelDisabled?: boolean;
  className?: string;
  children: ReactNode;
};

/**
 * A dialog that the server renders open, so it works without JavaScript as a page state, and that
 * becomes a real modal once React runs: `showModal()` puts it in the top layer with the page behind
 * inert, focus moves into it and stays there, Escape cancels, and focus goes back to what opened it.
 */
export function ModalDialog({ labelledBy, cancelTo, onCancel, returnFocusTo, cancelDisabled = false, className, children }: ModalDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const navigate = useNavigate();
  const mounted = useRef(false);
  const cancel = useRef<() => void>(() => undefined);
  cancel.current = () => {
    if (onCancel) onCancel();
    else if (cancelTo !== undefined) navigate(cancelTo, { replace: true, preventScrollReset: true });
  };

  useBrowserLayoutEffect(() => {
    const element = dialog.current;
    if (!element) return;
    mounted.current = true;
    // What had focus when the dialog appeared opened it (the link or button that led here).
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    if (!element.matches(":modal")) {
      // The server rendered it open but not modal; close() fires a 'close' event later, which onClose
      // ignores because the dialog is open again by then.
      if (element.open) element.close();
      element.showModal();
    }
    return () => {
      mounted.current = false;
      if (element.open) element.close();
      const target = opener?.isConnected ? opener : returnFocusTo ? document.querySelector<HTMLElement>(returnFocusTo) : null;
      target?.focus({ preventScroll: true });
    };
  }, []);

  return (
    <div className="dialog-backdrop">
      <dialog
        ref={dialog}
        open
        aria-labelledby={labelledBy}
        className={className ? `dialog ${className}` : "dialog"}
        onKeyDown={(event) => {
          // The browser would let Tab leave the last control for its own toolbar; keep it cycling in here.
          if (event.key !== "Tab" || !dialog.current) return;
          const controls = focusableIn(dialog.current);
          const first = controls[0];
          const last = controls[controls.length - 1];
          if (!first || !last) return;
          if (event.shiftKey && document.activeElement === first) {
            event.preventDefault();
            last.focus();
          } else if (!event.shiftKey && document.activeElement === last) {
            event.preventDefault();
            first.focus();
          }
        }}
        onCancel={(event) => {
          if (cancelDisabled) event.preventDefault();
        }}
        onClose={() => {
          // Escape closes a modal <dialog> (its 'cancel' then 'close'); the URL or the owner decides what follows.
          if (mounted.current && !dialog.current?.open) cancel.current();
        }}
      >
        {children}
      </dialog>
    </div>
  );
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), iframe, [tabindex]:not([tabindex="-1"])';

function focusableIn(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => element.getClientRects().length > 0);
}
