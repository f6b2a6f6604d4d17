import type { HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { useLoaderData, useNavigate, useSearchParams, type ShouldRevalidateFunction } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { BillingPeriodTabs } from "~/components/pricing/billing-period-tabs";
import { BuyBar } from "~/components/pricing/buy-bar";
import { ComparePlans } from "~/components/pricing/compare-plans";
import { PlanCard } from "~/components/pricing/plan-card";
import { PricingAccount } from "~/components/pricing/pricing-header";
import { PublicShell } from "~/components/public-shell";
import { Toasts } from "~/components/toasts";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { publicCache } from "~/utils/cache-headers";
import { hasRecurringPlan, isCurrentPlan, parsePricingTab, pendingChangeNote, paymentPath, plansForTab, type Plan } from "~/utils/plans";
import { getSessionToken } from "~/utils/session.server";
import { pageMeta } from "~/utils/meta";
import { useFormatters } from "~/i18n/use-formatters";

export const meta: MetaFunction = (args) => pageMeta(args, "pricing.meta.title", "pricing.meta.description");

// An anonymous visitor's page is the same for everyone: a CDN may keep it (DESIGN §5). Anything that
// depends on the session ('My Account', 'Current Plan') is private, and every answer varies on Cookie.
const PUBLIC_CACHE = "public, max-age=60, s-maxage=300";
const PRIVATE_CACHE = "private, no-store";
const publicPricingCache = publicCache(PUBLIC_CACHE);

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const token = await getSessionToken(request);
  const { plans, failure } = await loadPlans(request, context, token);
  const headers = { "Cache-Control": token || failure ? PRIVATE_CACHE : PUBLIC_CACHE, Vary: "Cookie" };

  // The small screens' chooser without JavaScript: GET /pricing?plan=6&buy=1 goes on to checkout.
  const submitted = url.searchParams.has("buy") || url.searchParams.has("plan");
  if (submitted) {
    const chosen = plans.find((plan) => String(plan.id) === url.searchParams.get("plan") && !isCurrentPlan(plan));
    if (chosen) return redirect(paymentPath(chosen), { headers: { ...headers, "Cache-Control": PRIVATE_CACHE } });
  }

  return data({ signedIn: Boolean(token), plans, failure, missingChoice: submitted }, { headers });
}

/**
 * The signed-in list marks the current plan; if it fails for any reason but an unreachable API, the
 * anonymous list still lets the visitor buy. An unreachable API is the root boundary's 503 page.
 */
async function loadPlans(
  request: Request,
  context: LoaderFunctionArgs["context"],
  token: string | null,
): Promise<{ plans: Plan[]; failure: string | null }> {
  if (token) {
    const own = await createApiClient(request, context, token).post("/api/subscription/plans", { body: {} });
    if (own.ok) return { plans: own.data, failure: null };
    if (own.status === 503) throw serviceUnavailable();
  }
  const anonymous = await createApiClient(request, context).get("/api/plans");
  if (anonymous.ok) return { plans: anonymous.data, failure: null };
  if (anonymous.status === 503) throw serviceUnavailable();
  // Catalogue keys: the toast translates them.
  return { plans: [], failure: token ? "pricing.failure.subscriptionPlans" : "pricing.failure.productList" };
}

export const headers: HeadersFunction = (args) => {
  // publicCache still turns a public answer private when the response sets a cookie (a consumed toast).
  const cacheControl =
    args.loaderHeaders.get("Cache-Control") === PUBLIC_CACHE
      ? (new Headers(publicPricingCache(args)).get("Cache-Control") ?? PRIVATE_CACHE)
      : PRIVATE_CACHE;
  return { "Cache-Control": cacheControl, Vary: "Cookie" };
};

/** A tab switch only changes which plans are shown, never what the loader answers: skip the round trip. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }) => {
  const withoutTab = (url: URL) => {
    const params = new URLSearchParams(url.search);
    params.delete("tab");
    params.sort();
    return `${url.pathname}?${params}`;
  };
  if (!formMethod && withoutTab(currentUrl) === withoutTab(nextUrl)) return false;
  return defaultShouldRevalidate;
};

export default function PricingPage() {
  const { signedIn, plans, failure, missingChoice } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const { t } = useTranslation("pricing");
  const { longDate } = useFormatters();
  const tab = parsePricingTab(searchParams.get("tab"));
  const shownPlans = plansForTab(plans, tab);
  const subscriber = hasRecurringPlan(plans);
  const pendingNote = pendingChangeNote(plans, t, longDate);
  const [chosenId, setChosenId] = useState<number | null>(null);
  // Set when the button is pressed with nothing chosen; the no-JavaScript submission says it through the loader.
  const [pressedWithoutChoice, setPressedWithoutChoice] = useState(false);
  // A choice on the other tab is not on screen: it does not count.
  const chosen = shownPlans.find((plan) => plan.id === chosenId && !isCurrentPlan(plan));

  function buyChosenPlan(event: FormEvent<HTMLFormElement>) {
    // With JavaScript the button goes straight to checkout; without it the loader redirects.
    event.preventDefault();
    if (chosen) navigate(paymentPath(chosen));
    else setPressedWithoutChoice(true);
  }

  return (
    <div className="pricing-page">
      <Toasts toasts={failure ? [{ type: "error", message: failure }] : []} />
      {/* The page knows who is signed in (its answer is private then): the footer may say 'My Account'. */}
      <PublicShell signedIn={signedIn} account={<PricingAccount signedIn={signedIn} />}>
        <main className="pricing">
          <div className="pricing__intro">
            <h1>{t("pricing.title")}</h1>
            <p className="pricing__subtitle">{t("pricing.subtitle")}</p>
          </div>

          <BillingPeriodTabs active={tab} />

          <section id="plans" className="plans" aria-labelledby="plans-heading">
            <h2 id="plans-heading" className="visually-hidden">
              {tab === "yearly" ? t("pricing.plans.yearly") : t("pricing.plans.monthly")}
            </h2>
            {failure ? <p className="plans__empty">{t("pricing.plans.unavailable")}</p> : null}
            <form method="get" action="/pricing" aria-label={t("pricing.plans.choose")} onSubmit={buyChosenPlan}>
              <input type="hidden" name="tab" value={tab} />
              <ul className="plan-grid">
                {shownPlans.map((plan) => (
                  <li key={plan.id}>
                    <PlanCard
                      plan={plan}
                      selected={plan.id === chosen?.id}
                      subscriber={subscriber}
                      pendingNote={pendingNote}
                      onSelect={(planId) => {
                        setChosenId(planId);
                        setPressedWithoutChoice(false);
                      }}
                    />
                  </li>
                ))}
              </ul>
              <BuyBar chosen={chosen} missingChoice={missingChoice || pressedWithoutChoice} />
            </form>
          </section>

          <ComparePlans plans={plans} active={tab} />
        </main>
      </PublicShell>
    </div>
  );
}
