import { randomBytes } from "node:crypto";
import type { AppLoadContext } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { formatLongDate } from "~/utils/dates";
import { formFailure } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";

// Changing plan instead of buying twice (issue 20, docs/decisions/028): for a signed-in subscriber
// with a recurring card plan, this checkout shows the change of plan (what is paid now, or from which
// renewal) and 'Change plan' instead of the purchase. Plain form posts; the API has the last word
// (a second recurring subscription is refused there whatever this page shows).

export type PlanChangePreview = ApiSchemas["PlanChangePreview"];

export type PlanChangeState =
  /** The change to show, with 'Change plan'. */
  | { kind: "change"; preview: PlanChangePreview; effectiveDate: string; pendingDate: string | null; idempotencyKey: string }
  /** After 'Change plan' (or for the plan the subscription is on): the outcome, no form. */
  | { kind: "done"; message: string; pendingTitle: string | null }
  /** The 5-year one-time plan bought while a recurring plan runs: said before the pay button. */
  | { kind: "replaces"; notice: string };

export const PLAN_CHANGE_FORMS = new Set(["change-plan", "keep-plan"]);

/** The 5-year plan's notice (decision 028): its term starts today, the recurring plan stops renewing. */
export function replacesNotice(currentTitle: string): string {
  return `Buying this plan turns off the auto-renewal of your ${currentTitle} plan, which stays active until its paid period ends. Your 5-year access starts today.`;
}

/**
 * What the checkout shows a subscriber, or null for a purchase as usual (visitors, no recurring plan, crypto).
 * `known`: the session's token and the active subscription when the checkout has read them already
 * (an undefined one is read here).
 */
export async function planChangeState(
  request: Request,
  context: AppLoadContext,
  planId: number,
  known: { token?: string | null; subscription?: ApiSchemas["Subscription"] | null } = {},
): Promise<PlanChangeState | null> {
  const token = known.token === undefined ? await getSessionToken(request) : known.token;
  if (!token) return null;
  const api = createApiClient(request, context, token);
  let current = known.subscription;
  if (current === undefined) {
    const active = await api.post("/api/subscription/active");
    current = active.ok ? active.data.subscription : null;
  }
  if (current?.billing_type !== "recurring" || current.subscription_by !== "stripe") return null;

  const preview = await api.get("/api/subscription/change-preview", { params: { query: { plan_id: planId } } });
  if (preview.ok) {
    const p = preview.data;
    const pending = p.pending;
    // The change asked for waits for the renewal: say so instead of offering it again.
    if (pending && pending.plan.id === planId) {
      return {
        kind: "done",
        message: `Your plan changes to ${pending.plan.title} on ${formatLongDate(pending.effective_at)}.`,
        pendingTitle: pending.plan.title,
      };
    }
    return {
      kind: "change",
      preview: p,
      effectiveDate: formatLongDate(p.effective_at),
      pendingDate: pending ? formatLongDate(pending.effective_at) : null,
      idempotencyKey: randomBytes(18).toString("base64url"),
    };
  }
  if (preview.code === "plan_already_current") {
    const changed = new URL(request.url).searchParams.has("changed");
    return { kind: "done", message: changed ? `Your plan was changed to ${current.title}.` : "This is already your current plan.", pendingTitle: null };
  }
  // A renewal is unpaid: it is paid first (the home's and billing's banner lead to /billing/pay).
  if (preview.code === "payment_past_due") return { kind: "done", message: preview.message, pendingTitle: null };
  // The 5-year plan is bought, not changed to: the purchase goes ahead, with its notice.
  if (preview.code === "plan_change_invalid" && planId !== current.plan_id) return { kind: "replaces", notice: replacesNotice(current.title) };
  return null;
}

type ActionArgs = { request: Request; context: AppLoadContext; formData: FormData; planId: number };

/** 'Change plan' and 'Keep current plan': post, then back to this page (post/redirect/get), or the error next to the form. */
export async function planChangeAction(intent: string, { request, context, formData, planId }: ActionArgs) {
  const here = new URL(request.url).pathname;
  const token = await getSessionToken(request);
  if (!token) return redirect(here);
  const api = createApiClient(request, context, token);
  if (intent === "keep-plan") {
    const kept = await api.post("/api/subscription/change/cancel");
    if (!kept.ok) return formFailure(intent, null, kept.message || "Failed to change the plan", kept.status);
    return redirect(here);
  }
  const prorationDate = String(formData.get("proration_date") ?? "").trim();
  const changed = await api.post("/api/subscription/change", {
    body: {
      plan_id: planId,
      idempotency_key: String(formData.get("idempotency_key") ?? ""),
      ...(/^\d{1,12}$/.test(prorationDate) ? { proration_date: Number(prorationDate) } : {}),
    },
  });
  if (!changed.ok) return formFailure(intent, null, changed.message || "Failed to change the plan", changed.status);
  return redirect(`${here}?changed=1`);
}

