import { useActionData, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { CancelFooter } from "./cancel-footer";
import { Logo } from "./logo";
import { Toasts } from "./toasts";

/**
 * The frame of the signed-out pages: logo, one card, and the toast of the last refused submission
 * (an action's `serverError`), shown until the next navigation; its form shows it too (issue 21).
 */
export function AuthPage({ title, children, className = "auth-card" }: { title?: ReactNode; children: ReactNode; className?: string }) {
  const { t } = useTranslation("auth");
  const actionData = useActionData<{ serverError?: string | null; serverErrorInPage?: boolean } | undefined>();
  const navigation = useNavigation();
  const serverError = navigation.state === "idle" ? actionData?.serverError : null;
  return (
    <div className="auth-page">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : []} />
      <header className="auth-header">
        <Logo />
      </header>
      <main className={className}>
        {/* A title given as a string may be a catalogue key; a translated one passes through t as it is. */}
        {title ? <h1 className="auth-title">{typeof title === "string" ? t(title) : title}</h1> : null}
        {children}
      </main>
      <CancelFooter />
    </div>
  );
}
