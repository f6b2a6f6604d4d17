import { Link, NavLink } from "@remix-run/react";
import type { ReactNode } from "react";
import { cancelPath } from "./cancel-footer";
import { Logo } from "./logo";

const NAV_ITEMS = [
  { to: "/pricing", label: "Pricing" },
  { to: "/help", label: "Help" },
];

const FOOTER_ITEMS = [
  { to: "/pricing", label: "Pricing" },
  { to: "/help", label: "Help" },
  { to: "/terms", label: "Terms" },
  { to: "/privacy", label: "Privacy" },
];

type PublicShellProps = {
  children: ReactNode;
  /** What the header offers on its right (the pricing page's 'Already have an account? Log in'); by default a link to sign in, or home. */
  account?: ReactNode;
  /**
   * The visitor is signed in: 'My Account' instead of 'Sign in'. Only for a page that already knows it and is
   * not cached publicly (a public page is the same for everyone: docs/decisions/018).
   */
  signedIn?: boolean;
};

/**
 * The frame of the public pages (pricing, help, terms, privacy, not found): the logo, the product's navigation
 * and a footer with the links a visitor looks for (issue 21: a visitor sent to /login found no way to the plans).
 * Each page brings its own <main>.
 */
export function PublicShell({ children, account, signedIn = false }: PublicShellProps) {
  const home = signedIn ? { to: "/", label: "My Account" } : { to: "/login", label: "Sign in" };
  return (
    <div className="public-page">
      <header className="public-header">
        <Logo />
        <nav aria-label="Main" className="public-nav">
          <ul>
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} prefetch="intent">
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="public-header__account">
          {account ?? (
            <Link to={home.to} className="button">
              {home.label}
            </Link>
          )}
        </div>
      </header>
      {children}
      <footer className="public-footer">
        <nav aria-label="Footer">
          <ul>
            {/* Ending a renewal (issue 22, §312k BGB): without signing in, or Billing's control when signed in. */}
            {[...FOOTER_ITEMS, { to: cancelPath(signedIn), label: "Cancel subscription" }, home].map((item) => (
              <li key={item.label}>
                <Link to={item.to}>{item.label}</Link>
              </li>
            ))}
          </ul>
        </nav>
      </footer>
    </div>
  );
}
