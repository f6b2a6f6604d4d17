import type { MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { Logo } from "~/components/logo";
import { publicCache } from "~/utils/cache-headers";

export const meta: MetaFunction = () => [{ title: "Pricing | VPN Account" }];

// Public and the same for everyone, so a CDN may cache it (DESIGN §5).
export const headers = publicCache("public, max-age=60, s-maxage=300");

// The plans, toggle and checkout arrive with the pricing issue.
export default function PricingPage() {
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="page">
        <h1>Buy VPN Plan that fits you</h1>
        <p className="muted">Plans and checkout are on their way.</p>
        <Link to="/">Back to my account</Link>
      </main>
    </div>
  );
}
