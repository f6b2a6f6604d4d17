import { useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { Spinner } from "./spinner";

/**
 * A form's main button. While its form is being sent it shows a spinner and refuses a second
 * submit (identity §2: submitting while loading is blocked). `intent` tells it which form is its.
 */
export function SubmitButton({ intent, children, className = "button button--primary button--block" }: { intent: string; children: ReactNode; className?: string }) {
  const navigation = useNavigation();
  // Busy from the submit until the page it leads to has loaded (a redirect's load keeps formData), so
  // a second click in between cannot send the form again.
  const pending = navigation.state !== "idle" && navigation.formData?.get("intent") === intent;
  return (
    <button type="submit" className={className} disabled={pending} aria-busy={pending || undefined}>
      {pending ? <Spinner /> : null}
      {children}
    </button>
  );
}
