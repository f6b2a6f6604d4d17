import express, { type ErrorRequestHandler, type Response, type Router } from "express";
import { BUYER, FUNDINGS, type Funding, type PlanRecord, type SubscriptionRecord, centsOf } from "./model";
import {
  ORDER_PATH,
  REVISION_PATH,
  STYLESHEET,
  STYLESHEET_PATH,
  SUBSCRIPTION_PATH,
  orderPagePath,
  renderMessagePage,
  renderOrderPage,
  renderRevisionPage,
  renderSubscriptionPage,
  revisionPagePath,
  subscriptionPagePath,
} from "./pages";
import type { PayPalService } from "./service";

/*
 * What the browser reaches on the portal's origin: the order and subscription approval pages (GET)
 * and their buttons (POST to the same URL, then 303 to the merchant's return_url or cancel_url with
 * PayPal's query parameters: post/redirect/get). Other paths go to next().
 */

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set("Cache-Control", "no-store").type("html").send(html);
}

/** Adds PayPal's parameters to the merchant's URL, keeping its own. */
function withParams(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
  return target.toString();
}

const isFunding = (value: unknown): value is Funding => typeof value === "string" && (FUNDINGS as readonly string[]).includes(value);
const tokenOf = (value: unknown) => (typeof value === "string" && /^[A-Z0-9-]{5,64}$/.test(value) ? value : undefined);

function subscriptionSummary(sub: SubscriptionRecord, plan: PlanRecord | undefined) {
  const first = sub.cycles[0];
  const planCycle = plan?.billing_cycles.find((c) => c.sequence === first?.sequence);
  const planPrice = planCycle?.pricing_scheme?.fixed_price?.value;
  const cents = first?.override_cents !== undefined ? first.override_cents : planPrice ? centsOf(planPrice) : null;
  const regular = sub.cycles.find((c) => c.tenure_type === "REGULAR");
  const every = regular
    ? `Every ${regular.frequency.interval_count === 1 ? "" : `${regular.frequency.interval_count} `}${regular.frequency.interval_unit.toLowerCase()}${regular.frequency.interval_count === 1 ? "" : "s"}`
    : "Once";
  return { planName: plan?.name ?? sub.plan_id, firstPaymentCents: cents && cents > 0 ? cents : null, every };
}

export function createBrowserRouter(deps: { service: PayPalService; logger: Pick<Console, "error"> }): Router {
  const { service } = deps;
  const router = express.Router();
  const parseForm = express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 });
  const notFound = (res: Response, what: string) =>
    sendPage(res, 404, renderMessagePage(`${what} not found (sandbox)`, `There is no such ${what.toLowerCase()} in the PayPal sandbox.`));
  const badAction = (res: Response) =>
    sendPage(res, 400, renderMessagePage("Unknown action (sandbox)", "Choose a funding and one of the page's buttons: Approve or Cancel."));

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.set("Cache-Control", "public, max-age=300").type("css").send(STYLESHEET);
  });

  router.get(ORDER_PATH, async (req, res, next) => {
    try {
      const token = tokenOf(req.query.token);
      const found = token && (await service.getOrder(token));
      if (!found) return notFound(res, "Order");
      sendPage(res, 200, renderOrderPage(found.order));
    } catch (error) {
      next(error);
    }
  });

  router.post(ORDER_PATH, parseForm, async (req, res, next) => {
    try {
      const token = tokenOf(req.query.token);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const funding = body.funding ?? "balance";
      if ((body.action !== "approve" && body.action !== "cancel") || !isFunding(funding)) return badAction(res);
      if (!token || !(await service.getOrder(token))) return notFound(res, "Order");
      // A second post (a double click, the back button) changes nothing once approved: it leads back again.
      const order = body.action === "approve" ? await service.approveOrder(token, funding) : await service.cancelOrderApproval(token);
      if (!order) return notFound(res, "Order");
      const approved = order.status === "APPROVED" || order.status === "COMPLETED";
      const target = approved ? order.return_url : order.cancel_url;
      if (!target) return res.redirect(303, orderPagePath(order.id));
      res.redirect(303, approved ? withParams(target, { token: order.id, PayerID: BUYER.payer_id }) : withParams(target, { token: order.id }));
    } catch (error) {
      next(error);
    }
  });

  router.get(SUBSCRIPTION_PATH, async (req, res, next) => {
    try {
      const token = tokenOf(req.query.ba_token);
      const sub = token && (await service.subscriptionByToken(token));
      if (!sub) return notFound(res, "Subscription");
      sendPage(res, 200, renderSubscriptionPage(sub, subscriptionSummary(sub, await service.getPlan(sub.plan_id))));
    } catch (error) {
      next(error);
    }
  });

  router.post(SUBSCRIPTION_PATH, parseForm, async (req, res, next) => {
    try {
      const token = tokenOf(req.query.ba_token);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const funding = body.funding ?? "balance";
      if ((body.action !== "approve" && body.action !== "cancel") || !isFunding(funding)) return badAction(res);
      if (!token || !(await service.subscriptionByToken(token))) return notFound(res, "Subscription");
      const sub =
        body.action === "approve" ? await service.approveSubscription(token, funding) : await service.cancelSubscriptionApproval(token);
      if (!sub) return notFound(res, "Subscription");
      const approved = sub.status !== "APPROVAL_PENDING";
      const target = approved ? sub.return_url : sub.cancel_url;
      if (!target) return res.redirect(303, subscriptionPagePath(sub.ba_token));
      res.redirect(
        303,
        approved
          ? withParams(target, { subscription_id: sub.id, ba_token: sub.ba_token, token: sub.ba_token })
          : withParams(target, { subscription_id: sub.id, ba_token: sub.ba_token, token: sub.ba_token }),
      );
    } catch (error) {
      next(error);
    }
  });

  // A change of plan (revise) waiting for the buyer's consent.
  const revisionOf = async (query: Record<string, unknown>) => {
    const id = tokenOf(query.subscription_id);
    const token = tokenOf(query.ba_token);
    const sub = id && token ? await service.getSubscription(id) : undefined;
    return sub?.revision && sub.revision.ba_token === token ? { sub, revision: sub.revision } : undefined;
  };

  router.get(REVISION_PATH, async (req, res, next) => {
    try {
      const found = await revisionOf(req.query);
      if (!found) return notFound(res, "Subscription change");
      const { sub, revision } = found;
      const [before, after] = await Promise.all([service.getPlan(sub.plan_id), service.getPlan(revision.plan_id)]);
      const shown = subscriptionSummary({ ...sub, cycles: revision.cycles }, after);
      const current = revision.outcome === "approved" ? undefined : before;
      sendPage(
        res,
        200,
        renderRevisionPage(sub, revision, {
          fromPlan: current?.name ?? before?.name ?? sub.plan_id,
          toPlan: after?.name ?? revision.plan_id,
          nextPaymentCents: shown.firstPaymentCents,
          every: shown.every,
          from: sub.next_billing_time ? sub.next_billing_time.slice(0, 10) : null,
        }),
      );
    } catch (error) {
      next(error);
    }
  });

  router.post(REVISION_PATH, parseForm, async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (body.action !== "approve" && body.action !== "cancel") return badAction(res);
      const found = await revisionOf(req.query);
      if (!found) return notFound(res, "Subscription change");
      const sub = await service.answerRevision(found.sub.id, found.revision.ba_token, body.action === "approve");
      const revision = sub?.revision;
      if (!sub || !revision) return notFound(res, "Subscription change");
      const approved = revision.outcome === "approved";
      const target = approved ? revision.return_url : revision.cancel_url;
      if (!target) return res.redirect(303, revisionPagePath(sub.id, revision.ba_token));
      res.redirect(303, withParams(target, { subscription_id: sub.id, ba_token: revision.ba_token, token: revision.ba_token }));
    } catch (error) {
      next(error);
    }
  });

  // Only errors raised above reach this: a body that does not parse, or a failure of the sandbox.
  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const status = typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) deps.logger.error(`PayPal sandbox: ${req.method} ${req.path} failed:`, error);
    sendPage(
      res,
      status,
      renderMessagePage(
        "Something went wrong (sandbox)",
        status === 500 ? "The PayPal sandbox could not handle this request." : "The request could not be read.",
      ),
    );
  };
  router.use(onError);
  return router;
}
