import type { MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { Logo } from "~/components/logo";
import { pageMeta } from "~/utils/meta";

// After the link in 'Your email address was changed' did its work (app/routes/email-revert.$token.tsx).

export const meta: MetaFunction = () => pageMeta("Email address restored | VPN Account", "Your previous email address is back.");

export default function EmailRevertDonePage() {
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">Your email address is back</h1>
        <p role="status">Your previous email address is back, and every device has been signed out. Please sign in again.</p>
        <p className="muted">If someone else changed it, also change your password after you sign in.</p>
        <Link to="/login" className="button button--primary">
          Sign in
        </Link>
      </main>
    </div>
  );
}
