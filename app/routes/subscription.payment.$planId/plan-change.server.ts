import { randomBytes } from "node:crypto";
import type { AppLoadContext } from "@remix-run/node";
import { redirect, redirectDocument } from "@remix-run/node";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { languageOf, translatorOf } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import type { Translate } from "~/utils/plans";
import { type Taxed, taxIncluded } from "~/features/tax/tax";
import { formFailure } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { planName } from "~/utils/plans";

// Changing plan instead of buying twice (issue 20, docs/decisions/028): for a signed-in subscriber
// with a recurring card plan, this checkout shows the change of plan (what is paid now, or from which
// renewal) and 'Change plan' instead of the purchase. Plain form posts; the API has the last word
// (a second recurring subscription is refused there whatever this page shows).

export type PlanChangePreview = ApiSchemas["PlanChangePreview"];

/**
 * The three figures of a change as the page writes them (docs/decisions/051): the API computes them once,
 * for the preview and the result alike; the page only formats them.
 */
export interface ChangeFigures {
  plan: string;
  chargedNow: string;
  /** What is charged now with its net and tax line, for the summary's lines (issue 35). */
  chargedNowTaxed: Taxed;
  newEndDate: string;
  nextRenewal: string;
}

/** The page's words: its `t`, money and dates (the request's language). */
type PageWords = ReturnType<typeof formattersFor> & { t: Translate };

function wordsOf(request: Request): PageWords {
  return { ...formattersFor(languageOf(request)), t: translatorOf(request) };
}

function figuresOf(plan: string, summary: ApiSchemas["PlanChangeSummary"], w: PageWords): ChangeFigures {
  const renewal = w.t("checkout.change.amountOn", { amount: w.money(summary.next_renewal.amount_cents), date: w.longDate(summary.next_renewal.date) });
  return {
    plan,
    chargedNow: w.money(summary.charged_now_cents),
    chargedNowTaxed: { net_cents: summary.charged_now_net_cents, tax: summary.charged_now_tax, amount_cents: summary.charged_now_cents },
    newEndDate: w.longDate(summary.new_end_date),
    nextRenewal: withTax(renewal, summary.next_renewal.tax, w),
  };
}

/** An amount's words with what it includes of tax after them, in brackets; unchanged without tax. */
function withTax(words: string, tax: Taxed["tax"] | undefined, w: PageWords): string {
  const included = taxIncluded(tax, w);
  return included ? `${words} (${included})` : words;
}

export type PlanChangeState =
  /** The change to show, with 'Change plan' (a card) or 'Continue to PayPal' (a PayPal subscription). */
  | {
      kind: "change";
      preview: PlanChangePreview;
      figures: ChangeFigures;
      effectiveDate: string;
      pendingDate: string | null;
      idempotencyKey: string;
      /** Back from PayPal without a change (cancelled there, or not approved). */
      notice: string | null;
    }
  /** After 'Change plan' (or for the plan the subscription is on): the outcome, with the change's figures when it was just made. */
  | { kind: "done"; message: string; pendingTitle: string | null; figures: ChangeFigures | null; keepable: boolean }
  /** The 5-year one-time plan bought while a recurring plan runs: said before the pay button. */
  | { kind: "replaces"; notice: string };

export const PLAN_CHANGE_FORMS = new Set(["change-plan", "keep-plan"]);

/** The 5-year plan's notice (decision 028): its term starts today, the recurring plan stops renewing. */
export function replacesNotice(currentTitle: string, t: Translate): string {
  return t("checkout.change.replaces", { plan: currentTitle });
}

/**
 * What the checkout shows a subscriber, or null for a purchase as usual (visitors, no recurring plan, crypto).
 * `known`: the session's token and the active subscription when the checkout has read them already
 * (an undefined one is read here), and whether the plan is the one-time plan, which is bought, not changed to.
 */
export async function planChangeState(
  request: Request,
  context: AppLoadContext,
  planId: number,
  known: { token?: string | null; subscription?: ApiSchemas["Subscription"] | null; oneTime: boolean },
): Promise<PlanChangeState | null> {
  const w = wordsOf(request);
  const token = known.token === undefined ? await getSessionToken(request) : known.token;
  if (!token) return null;
  const api = createApiClient(request, context, token);
  const query = new URL(request.url).searchParams;

  // Just changed (post/redirect/get): the change's own result, with its figures, as the API gave it.
  const changedKey = query.get("changed");
  if (changedKey) {
    const result = await api.get("/api/subscription/change/result", { params: { query: { key: changedKey } } });
    if (result.ok) {
      const r = result.data;
      const title = planName(r.pending?.plan.title ?? r.subscription.title, w.t);
      return {
        kind: "done",
        message: result.message,
        pendingTitle: r.pending ? planName(r.pending.plan.title, w.t) : null,
        figures: figuresOf(title, r.summary, w),
        keepable: Boolean(r.pending) && r.subscription.subscription_by === "stripe",
      };
    }
  }

  let current = known.subscription;
  if (current === undefined) {
    const active = await api.post("/api/subscription/active");
    current = active.ok ? active.data.subscription : null;
  }
  if (current?.billing_type !== "recurring" || (current.subscription_by !== "stripe" && current.subscription_by !== "paypal")) return null;

  // Back from PayPal's approval of a change: confirmed through the API, then its result (or why not, on the change page).
  let notice: string | null = null;
  const paypalKey = query.get("plan_change");
  if (paypalKey && current.subscription_by === "paypal") {
    if (query.get("paypal") === "cancel") {
      notice = "checkout.change.paypalCancelled";
    } else {
      const confirmed = await api.post("/api/subscription/change/paypal/confirm", { body: { plan_id: planId, idempotency_key: paypalKey } });
      if (confirmed.ok) throw redirect(`${new URL(request.url).pathname}?changed=${encodeURIComponent(paypalKey)}`);
      notice = confirmed.message || "checkout.change.notConfirmed";
    }
  }

  const preview = await api.get("/api/subscription/change-preview", { params: { query: { plan_id: planId } } });
  if (preview.ok) {
    const p = preview.data;
    const pending = p.pending;
    // The change asked for waits for the renewal: say so instead of offering it again.
    if (pending && pending.plan.id === planId) {
      return {
        kind: "done",
        message: w.t("checkout.change.pendingAlready", { plan: planName(pending.plan.title, w.t), date: w.longDate(pending.effective_at) }),
        pendingTitle: planName(pending.plan.title, w.t),
        figures: figuresOf(planName(pending.plan.title, w.t), p.summary, w),
        keepable: p.paid_with === "card",
      };
    }
    return {
      kind: "change",
      preview: p,
      figures: figuresOf(planName(p.plan.title, w.t), p.summary, w),
      effectiveDate: w.longDate(p.effective_at),
      pendingDate: pending ? w.longDate(pending.effective_at) : null,
      idempotencyKey: randomBytes(18).toString("base64url"),
      notice,
    };
  }
  if (preview.code === "plan_already_current") {
    return { kind: "done", message: w.t("checkout.change.alreadyCurrent"), pendingTitle: null, figures: null, keepable: false };
  }
  // A renewal is unpaid: it is paid first (the home's and billing's banner lead to /billing/pay).
  if (preview.code === "payment_past_due") return { kind: "done", message: preview.message, pendingTitle: null, figures: null, keepable: false };
  // The 5-year plan is bought, not changed to: the purchase goes ahead, with its notice.
  if (preview.code === "plan_change_invalid" && planId !== current.plan_id) {
    // The one-time plan, known from the checkout's plan (the API's message is in the page's language, no mark to read).
    if (known.oneTime) return { kind: "replaces", notice: replacesNotice(planName(current.title, w.t), w.t) };
    // A change PayPal cannot make (to the 2-year plan, or from a plan paid once): said, nothing to buy twice.
    return { kind: "done", message: preview.message, pendingTitle: null, figures: null, keepable: false };
  }
  return null;
}

/** 'Failed to change the plan' (a catalogue key: the form's error translates it). */
const CHANGE_FAILED = "checkout.change.failed";

type ActionArgs = { request: Request; context: AppLoadContext; formData: FormData; planId: number };

/** 'Change plan' and 'Keep current plan': post, then back to this page (post/redirect/get), or the error next to the form. */
export async function planChangeAction(intent: string, { request, context, formData, planId }: ActionArgs) {
  const here = new URL(request.url).pathname;
  const token = await getSessionToken(request);
  if (!token) return redirect(here);
  const api = createApiClient(request, context, token);
  if (intent === "keep-plan") {
    const kept = await api.post("/api/subscription/change/cancel");
    if (!kept.ok) return formFailure(intent, null, kept.message || CHANGE_FAILED, kept.status);
    return redirect(here);
  }
  const key = String(formData.get("idempotency_key") ?? "");
  if (formData.get("paid_with") === "paypal") {
    // To PayPal's approval of the change; it sends the browser back here with plan_change=<key>.
    const started = await api.post("/api/subscription/change/paypal", { body: { plan_id: planId, return_path: here, idempotency_key: key } });
    if (!started.ok) return formFailure(intent, null, started.message || CHANGE_FAILED, started.status);
    // A whole-page load: PayPal (or the sandbox's page) is not a route of the portal.
    return redirectDocument(started.data.approve_url);
  }
  const prorationDate = String(formData.get("proration_date") ?? "").trim();
  const changed = await api.post("/api/subscription/change", {
    body: {
      plan_id: planId,
      idempotency_key: key,
      ...(/^\d{1,12}$/.test(prorationDate) ? { proration_date: Number(prorationDate) } : {}),
    },
  });
  if (!changed.ok) return formFailure(intent, null, changed.message || CHANGE_FAILED, changed.status);
  return redirect(`${here}?changed=${encodeURIComponent(key)}`);
}

