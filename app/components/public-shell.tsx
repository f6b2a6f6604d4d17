import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { cancelPath } from "./cancel-footer";
import { Logo } from "./logo";
import { NavItem } from "./nav-item";

// `label`: a catalogue key.
const NAV_ITEMS = [
  { to: "/pricing", label: "common.publicShell.pricing" },
  { to: "/help", label: "common.publicShell.help" },
];

const FOOTER_ITEMS = [
  { to: "/pricing", label: "common.publicShell.pricing" },
  { to: "/help", label: "common.publicShell.help" },
  { to: "/terms", label: "common.publicShell.terms" },
  { to: "/privacy", label: "common.publicShell.privacy" },
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
  const { t } = useTranslation();
  const home = signedIn ? { to: "/", label: "common.publicShell.myAccount" } : { to: "/login", label: "common.publicShell.signIn" };
  return (
    <div className="public-page">
      <header className="public-header">
        <Logo />
        <nav aria-label={t("common.publicShell.main")} className="public-nav">
          <ul>
            {NAV_ITEMS.map((item) => (
              <li key={item.to}>
                <NavItem to={item.to}>{t(item.label)}</NavItem>
              </li>
            ))}
          </ul>
        </nav>
        <div className="public-header__account">
          {account ?? (
            <Link to={home.to} className="button">
              {t(home.label)}
            </Link>
          )}
        </div>
      </header>
      {children}
      <footer className="public-footer">
        <nav aria-label={t("common.publicShell.footer")}>
          <ul>
            {/* Ending a renewal (issue 22, §312k BGB): without signing in, or Billing's control when signed in. */}
            {[...FOOTER_ITEMS, { to: cancelPath(signedIn), label: "common.publicShell.cancelSubscription" }, home].map((item) => (
              <li key={item.label}>
                <Link to={item.to}>{t(item.label)}</Link>
              </li>
            ))}
          </ul>
        </nav>
      </footer>
    </div>
  );
}
