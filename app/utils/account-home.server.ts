import type { AppLoadContext } from "@remix-run/node";
import type { ToastView } from "~/components/toasts";
import { createApiClient, serviceUnavailable, type ApiSchemas } from "./api.server";
import { requireToken } from "./auth.server";

export type AccountHome = Omit<ApiSchemas["AccountHome"], "downloads" | "two_factor"> & {
  downloads: ApiSchemas["DownloadLinks"] | null;
  /** null from an API without two-factor authentication (the card is then not shown). */
  two_factor: ApiSchemas["TwoFactorStatus"] | null;
  /** The spec's toast for each part that could not be read (only with an API that lacks /api/account/home). */
  notices: ToastView[];
};

/**
 * What the account home shows, read with one API call (/api/account/home), which also checks the
 * token as /api/me would. An API without that endpoint (404) is asked the four questions it answers
 * one by one, in parallel; each failing part then shows its spec toast while the rest renders.
 */
export async function loadAccountHome(request: Request, context: AppLoadContext): Promise<AccountHome> {
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);
  const home = await api.get("/api/account/home");
  if (home.ok) return { ...home.data, two_factor: home.data.two_factor ?? null, notices: [] };
  if (home.status !== 404) throw serviceUnavailable();

  const [me, subscriptionResult, linksResult, downloadsResult] = await Promise.all([
    api.get("/api/me"),
    api.post("/api/subscription/active"),
    api.post("/api/account/link-list"),
    api.get("/api/download-links"),
  ]);
  if (!me.ok) throw serviceUnavailable();
  const notices: ToastView[] = [];
  if (!subscriptionResult.ok) notices.push({ type: "error", message: "account.home.fetchSubscriptionsFailed" });
  if (!linksResult.ok) notices.push({ type: "error", message: "account.home.fetchLinksFailed" });
  if (!downloadsResult.ok) notices.push({ type: "error", message: "account.home.fetchDownloadsFailed" });
  return {
    user: me.data,
    subscription: subscriptionResult.ok ? subscriptionResult.data.subscription : null,
    now: subscriptionResult.ok ? subscriptionResult.data.now : new Date().toISOString(),
    next_charge: subscriptionResult.ok ? (subscriptionResult.data.next_charge ?? null) : null,
    ends_on: subscriptionResult.ok ? (subscriptionResult.data.ends_on ?? null) : null,
    ended_plan: subscriptionResult.ok ? (subscriptionResult.data.ended_plan ?? null) : null,
    linked: linksResult.ok ? linksResult.data.linked : [],
    downloads: downloadsResult.ok ? downloadsResult.data : null,
    // An API without the aggregate predates two-factor authentication.
    two_factor: null,
    payment_failed: null,
    notices,
  };
}
