import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { requireUser } from "~/utils/auth.server";
import { pageMeta } from "~/utils/meta";
import { loadPasskeys } from "./passkeys.server";
import { PasskeysSection } from "./passkeys";

// 'Security' (issue 22, docs/decisions/035): the account's recent security events, the sign-in
// alerts setting, links to two-factor and connected devices, and the passkeys.

export const meta: MetaFunction = () => pageMeta("Security | VPN Account", "Your account's recent security activity, sign-in alerts and passkeys.");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const passkeys = await loadPasskeys(request);
  return data({ passkeys }, { headers: NO_STORE });
}

export default function SecurityPage() {
  const { passkeys } = useLoaderData<typeof loader>();
  return (
    <section className="page security-page">
      <header className="page-header">
        <h1>Security</h1>
      </header>
      <section aria-labelledby="activity-heading" className="card security-section">
        <h2 id="activity-heading">Recent activity</h2>
        <p className="muted">Security events are kept for 90 days.</p>
      </section>
      <section aria-labelledby="alerts-heading" className="card security-section">
        <h2 id="alerts-heading">Sign-in alerts</h2>
      </section>
      <nav aria-label="More security settings" className="card security-section">
        <ul>
          <li>
            <Link to="/account/two-factor">Two-factor authentication</Link>
          </li>
          <li>
            <Link to="/connected-devices">Connected Devices</Link>
          </li>
        </ul>
      </nav>
      <PasskeysSection passkeys={passkeys} />
    </section>
  );
}
