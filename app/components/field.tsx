import type { ReactNode } from "react";

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
  return (
    <div className="field">
      {label}
      {children}
      <p className="field-error" id={errorId}>
        {errors?.[0] ?? ""}
      </p>
    </div>
  );
}
