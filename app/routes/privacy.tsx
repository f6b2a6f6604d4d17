import type { MetaFunction } from "@remix-run/node";
import { StaticPage, staticPageHeaders } from "~/components/static-page";

export const meta: MetaFunction = () => [{ title: "Privacy Policy | VPN Account" }];
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
