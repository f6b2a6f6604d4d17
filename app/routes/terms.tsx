import type { HeadersFunction, MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { Logo } from "~/components/logo";

export const meta: MetaFunction = () => [{ title: "Terms of Service | VPN Account" }];
export const headers: HeadersFunction = () => ({ "Cache-Control": "public, max-age=300, s-maxage=3600" });

export default function TermsPage() {
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="page prose">
        <h1>Terms of Service</h1>
        <p>
          By creating an account you agree to use the service lawfully and not to share your account. Subscriptions renew
          automatically unless auto-renewal is switched off at least 24 hours before the end of the billing cycle; the 5-year
          plan is a one-time payment. Every plan has a 30-day money-back guarantee: contact us within 30 days of payment.
        </p>
        <Link to="/login?tab=signup">Back to sign up</Link>
      </main>
    </div>
  );
}
