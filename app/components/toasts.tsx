import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";

/** `echo`: the page shows the same words by the form they are about (issue 21), so this toast is only their visual echo. */
export type ToastView = { message: string; type: "info" | "success" | "error" | "warning"; echo?: boolean };

/** identity §9: product toasts close after 5000 ms. */
const TOAST_MS = 5000;

/**
 * Toasts at the top centre (identity §9: product toasts use top-center, close after 5000 ms).
 * They are plain server-rendered HTML; the 5 s close is a CSS animation, so it needs no JavaScript.
 */
export function Toasts({ toasts }: { toasts: ToastView[] }) {
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((toast, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: toasts have no id, and the same message may come twice
        <Toast key={`${toast.type}-${index}-${toast.message}`} toast={toast} />
      ))}
    </div>
  );
}

function Toast({ toast }: { toast: ToastView }) {
  const { t } = useTranslation();
  // With JavaScript the toast also leaves the page after its 5 s (a timer, which a test clock can move).
  const [closed, setClosed] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setClosed(true), TOAST_MS + 300);
    return () => clearTimeout(timer);
  }, []);
  if (closed) return null;
  // An echo is hidden from assistive technology: the page's own alert by the form announces it once.
  const role = toast.echo ? undefined : toast.type === "error" || toast.type === "warning" ? "alert" : "status";
  return (
    <div className={`toast toast--${toast.type}`} role={role} aria-hidden={toast.echo ? true : undefined}>
      {/* A catalogue key, or a text already in the page's language (the API's): t passes a text through. */}
      {t(toast.message)}
    </div>
  );
}
