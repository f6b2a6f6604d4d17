export type ToastView = { message: string; type: "info" | "success" | "error" | "warning" };

/**
 * Toasts at the top centre (identity §9: product toasts use top-center, close after 5000 ms).
 * They are plain server-rendered HTML; the 5 s close is a CSS animation, so it needs no JavaScript.
 */
export function Toasts({ toasts }: { toasts: ToastView[] }) {
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((toast, index) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: toasts have no id, and the same message may come twice
          key={`${toast.type}-${index}-${toast.message}`}
          className={`toast toast--${toast.type}`}
          role={toast.type === "error" || toast.type === "warning" ? "alert" : "status"}
        >
          {toast.message}
        </div>
      ))}
    </div>
  );
}
