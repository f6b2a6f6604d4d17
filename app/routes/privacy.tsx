import type { HeadersFunction, MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { Logo } from "~/components/logo";

export const meta: MetaFunction = () => [{ title: "Privacy Policy | VPN Account" }];
export const headers: HeadersFunction = () => ({ "Cache-Control": "public, max-age=300, s-maxage=3600" });

export default function PrivacyPage() {
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="page prose">
        <h1>Privacy Policy</h1>
        <p>
          We keep what we need to run your account: your email, your consent choices with their time, your subscription and
          payment records, and the devices signed in to your account. We do not log the sites you visit through the VPN.
          Marketing emails are sent only if you opted in, and you can opt out at any time.
        </p>
        <Link to="/login?tab=signup">Back to sign up</Link>
      </main>
    </div>
  );
}
