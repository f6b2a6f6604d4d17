import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/**
 * A labelled input with its error underneath. The error slot always takes its space, so a message
 * appearing on blur never moves the button below it.
 */
export function Field({
  label,
  errorId,
  errors,
  children,
}: {
  label: ReactNode;
  errorId: string;
  errors?: string[];
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const message = errors?.[0];
  return (
    <div className="field">
      {label}
      {children}
      <p className="field-error" id={errorId}>
        {/* A schema's message is a catalogue key; the API's comes in the page's language already. */}
        {message ? t(message) : ""}
      </p>
    </div>
  );
}
