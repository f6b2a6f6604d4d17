import type { MetaFunction } from "@remix-run/node";
import { StaticPage, staticPageHeaders } from "~/components/static-page";
import { pageMeta } from "~/utils/meta";

export const meta: MetaFunction = () => pageMeta("Terms of Service | VPN Account", "The terms of service of the VPN: accounts, renewals and the 30-day money-back guarantee.");
export const headers = staticPageHeaders;

export default function TermsPage() {
  return (
    <StaticPage title="Terms of Service">
      <p>
        By creating an account you agree to use the service lawfully and not to share your account. Subscriptions renew
        automatically unless auto-renewal is switched off at least 24 hours before the end of the billing cycle; the 5-year
        plan is a one-time payment. Every plan has a 30-day money-back guarantee: contact us within 30 days of payment.
      </p>
    </StaticPage>
  );
}
