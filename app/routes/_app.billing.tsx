import type { MetaFunction } from "@remix-run/node";

export const meta: MetaFunction = () => [{ title: "Billing | VPN Account" }];

// Payment history, saved cards and auto-renewal arrive with the billing issue.
export default function BillingPage() {
  return (
    <section className="page">
      <h1>Billing</h1>
      <p className="muted">Your payment history, saved cards and auto-renewal settings will appear here.</p>
    </section>
  );
}
