import type { MetaFunction } from "@remix-run/node";
import { StaticPage, staticPageHeaders } from "~/components/static-page";
import { pageMeta } from "~/utils/meta";

export const meta: MetaFunction = () => pageMeta("Privacy Policy | VPN Account", "How the VPN handles your account data and what it never logs.");
export const headers = staticPageHeaders;

export default function PrivacyPage() {
  return (
    <StaticPage title="Privacy Policy">
      <p>
        We keep what we need to run your account: your email, your consent choices with their time, your subscription and
        payment records, and the devices signed in to your account. We do not log the sites you visit through the VPN.
        Marketing emails are sent only if you opted in, and you can opt out at any time.
      </p>
    </StaticPage>
  );
}
