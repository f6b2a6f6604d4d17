import type { ReactNode } from "react";
import { Logo } from "./logo";
import { MenuShell } from "./menu-shell";

/**
 * The frame of the payment pages (checkout, due invoice, /demo): commerce §2 wraps them in the
 * signed-in layout when the visitor is signed in, and shows them bare otherwise.
 */
export function PaymentFrame({ email, children }: { email: string | null; children: ReactNode }) {
  if (email) return <MenuShell email={email}>{children}</MenuShell>;
  return (
    <div className="auth-page checkout-bare">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="page page--wide">{children}</main>
    </div>
  );
}
