import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Toasts, type ToastView } from "~/components/toasts";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { daysLeft, formatLongDate } from "~/utils/dates.server";

export const meta: MetaFunction = () => [{ title: "My Account | VPN Account" }];

// Fixed store links (identity §2); the desktop links come from the API.
const IOS_APP_URL = "https://apps.apple.com/app/id6450000000";
const ANDROID_APP_URL = "https://play.google.com/store/apps/details?id=com.example.vpn";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);
  // Independent calls run together; one that fails shows its spec toast while the rest renders.
  const [subscriptionResult, linksResult, downloadsResult] = await Promise.all([
    api.activeSubscription(),
    api.accountLinks(),
    api.downloadLinks(),
  ]);
  const notices: ToastView[] = [];

  let status: { plan: "Free" } | { plan: "Premium"; daysLeft: number; activatedOn: string; expiresOn: string } = {
    plan: "Free",
  };
  if (subscriptionResult.ok) {
    const subscription = subscriptionResult.data.subscription;
    // The API owns the product's time (its test clock can move it), so days are counted from its "now".
    const now = subscriptionResult.data.now ? new Date(subscriptionResult.data.now) : new Date();
    const left = subscription ? daysLeft(subscription.sub_exp_date, now) : 0;
    if (subscription && left > 0) {
      status = {
        plan: "Premium",
        daysLeft: left,
        activatedOn: formatLongDate(subscription.sub_start_date),
        expiresOn: formatLongDate(subscription.sub_exp_date),
      };
    }
  } else {
    notices.push({ type: "error", message: "Failed to fetch active subscriptions" });
  }

  const linked = linksResult.ok ? linksResult.data.linked : [];
  if (!linksResult.ok) notices.push({ type: "error", message: "Failed to fetch account link list" });

  const downloads = downloadsResult.ok ? downloadsResult.data : null;
  if (!downloadsResult.ok) notices.push({ type: "error", message: "Failed to fetch links" });

  return {
    status,
    accounts: (["GOOGLE", "APPLE"] as const).map((type) => ({
      type,
      name: type === "GOOGLE" ? "Google" : "Apple",
      connected: linked.some((link) => link.link_type === type),
    })),
    downloads: [
      { name: "iOS", href: IOS_APP_URL },
      { name: "Android", href: ANDROID_APP_URL },
      { name: "Windows", href: downloads?.windows ?? null },
      { name: "macOS", href: downloads?.mac ?? null },
    ],
    notices,
  };
}

export default function AccountHome() {
  const { status, accounts, downloads, notices } = useLoaderData<typeof loader>();
  return (
    <>
      <Toasts toasts={notices} />
      <section className="page home">
        <header className="page-header">
          <h1>Welcome to the product!</h1>
          <p className="tagline">Your Passport to Online Freedom!</p>
        </header>

        <div className="cards">
          <article className="card status-card" aria-labelledby="status-heading">
            <h2 id="status-heading">Subscription</h2>
            {status.plan === "Premium" ? (
              <>
                <p className="plan plan--premium">Premium</p>
                <p className="days-left">{status.daysLeft} Days Left</p>
                <dl className="dates">
                  <div>
                    <dt>Activated on</dt>
                    <dd>{status.activatedOn}</dd>
                  </div>
                  <div>
                    <dt>Expire date</dt>
                    <dd>{status.expiresOn}</dd>
                  </div>
                </dl>
              </>
            ) : (
              <p className="plan plan--free">Free</p>
            )}
          </article>

          <article className="card banner" aria-labelledby="guarantee-heading">
            <h2 id="guarantee-heading">Exclusive 30-day Money-Back Guarantee</h2>
            <p>If you are unsatisfied with our service, contact us within 30 days.</p>
            <Link to="/pricing/" className="button button--primary">
              Get the product
            </Link>
          </article>

          <article className="card" aria-labelledby="password-heading">
            <h2 id="password-heading">Password</h2>
            <p className="muted">Keep your account safe with a strong password.</p>
            <Link to="/forget-password" className="button">
              Change Password
            </Link>
          </article>

          <article className="card" aria-labelledby="accounts-heading">
            <h2 id="accounts-heading">Connected accounts</h2>
            <ul className="account-rows">
              {accounts.map((account) => (
                <li key={account.type}>
                  <span className="account-name">{account.name}</span>
                  <span className={account.connected ? "badge badge--on" : "badge"}>
                    {account.connected ? "Connected" : "Not Connected"}
                  </span>
                  <Link to={`/auth/${account.name.toLowerCase()}`} aria-label={`${account.connected ? "Disconnect" : "Connect"} ${account.name}`}>
                    {account.connected ? "Disconnect" : "Connect"}
                  </Link>
                </li>
              ))}
            </ul>
          </article>

          <article className="card downloads" aria-labelledby="downloads-heading">
            <h2 id="downloads-heading">Downloads</h2>
            <ul className="download-grid">
              {downloads.map((item) => (
                <li key={item.name}>
                  {item.href ? (
                    <a href={item.href} rel="noopener noreferrer" target="_blank">
                      {item.name}
                    </a>
                  ) : (
                    <span aria-disabled="true">{item.name}</span>
                  )}
                </li>
              ))}
            </ul>
          </article>
        </div>
      </section>
    </>
  );
}
