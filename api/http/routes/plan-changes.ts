import { z } from "zod";
import { route } from "../contract/route";
import { isRefusal } from "../../platform/errors";
import { body, idField } from "../validation";
import { idempotencyKeyBadRequest, idempotencyKeyField, idempotencyKeyHeader, idempotencyKeyOf } from "../idempotency-key";
import { IDEMPOTENCY_MESSAGES, oncePerKey, refusalAnswer, replayedRefusal } from "../../payments/idempotency";
import { PLAN_CHANGE_MESSAGES, cancelPendingChange, changePlan, previewPlanChange } from "../../payments/plan-changes";
import { PendingChangeSchema, PlanBriefSchema, SubscriptionSchema, brief, pendingOf, publicSubscription } from "./subscription";
import { dollars } from "../../payments/plans";
import { SUBSCRIPTION_MESSAGES } from "../../payments/one-subscription";

/*
 * Changing plan (issue 20, docs/decisions/028): the preview the checkout page shows a subscriber,
 * the change itself, and keeping the current plan when a change waits for the renewal.
 */

const KIND = z.enum(["now", "at_renewal"]).meta({
  description: "now: a longer (or dearer) plan, charged now with the unused time credited; at_renewal: a shorter plan, from the next renewal, nothing charged now.",
});

const changeRequest = body({
  plan_id: idField("plan id").meta({ description: "plans.id of the new plan (recurring)." }),
  proration_date: z
    .union([z.int().min(0), z.string().trim().regex(/^\d{1,12}$/, "The proration date must be a number.").transform(Number)])
    .optional()
    .meta({ description: "The preview's proration_date (Unix seconds), so the charge equals the amount shown." }),
  idempotency_key: idempotencyKeyField(
    "A random key the page makes for this change. Posting again with the same key changes once: the first answer is repeated.",
  ),
}).meta({ id: "PlanChangeRequest" });

export const planChangeRoutes = [
  route({
    method: "get",
    path: "/api/subscription/change-preview",
    operationId: "previewPlanChange",
    tags: ["Subscriptions"],
    summary: "What changing the subscription to another plan means",
    description:
      "For a subscriber with a recurring card plan: when the change takes effect and what is paid now (Stripe's invoice preview: the new plan less the unused part of the current one), with the proration_date to send back to the change. Also the pending change at renewal, if any.",
    auth: true,
    query: z.object({ plan_id: idField("plan id").meta({ description: "plans.id of the new plan" }) }),
    success: {
      description: "The change",
      data: z
        .strictObject({
          kind: KIND,
          current_plan: PlanBriefSchema,
          plan: PlanBriefSchema,
          amount_due: z.number().meta({ description: "USD charged now (0 for a change at renewal)." }),
          amount_due_cents: z.int().meta({ description: "The same in cents." }),
          proration_date: z.int().nullable().meta({ description: "Unix seconds; null for a change at renewal." }),
          effective_at: z.string().meta({ format: "date-time" }),
          pending: PendingChangeSchema,
        })
        .meta({ id: "PlanChangePreview" }),
    },
    errors: {
      404: "'Plan not found.'",
      409: `'${PLAN_CHANGE_MESSAGES.noSubscription}', '${PLAN_CHANGE_MESSAGES.notCard}', '${PLAN_CHANGE_MESSAGES.oneTime}' (plan_change_invalid), '${PLAN_CHANGE_MESSAGES.pastDue}' (payment_past_due) or '${PLAN_CHANGE_MESSAGES.samePlan}' (plan_already_current)`,
      502: "'Failed to create Stripe payment': the card gateway failed or did not answer",
    },
    async handler({ ctx, auth, query }) {
      const preview = await previewPlanChange(ctx.payments, auth.user, query.plan_id);
      const find = (id: number) => ctx.db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
      return {
        data: {
          kind: preview.kind,
          current_plan: brief(preview.currentPlan),
          plan: brief(preview.plan),
          amount_due: dollars(preview.amountDueCents),
          amount_due_cents: preview.amountDueCents,
          proration_date: preview.prorationDate,
          effective_at: preview.effectiveAt.toISOString(),
          pending: await pendingOf(find, preview.subscription),
        },
      };
    },
  }),

  route({
    method: "post",
    path: "/api/subscription/change",
    operationId: "changePlan",
    tags: ["Subscriptions"],
    summary: "Change the subscription's plan",
    description:
      "A longer (or dearer) plan: now, the new plan less the unused part of the current one charged at once to the subscription's card (one invoice; its receipt is the usual paid-invoice email); a card that fails changes nothing (402). A shorter plan: from the next renewal, nothing charged now; cancel it with /api/subscription/change/cancel. A confirmation email is sent either way. " +
      `Buying a second recurring plan instead is refused: '${SUBSCRIPTION_MESSAGES.exists}' (409 subscription_exists).`,
    auth: true,
    headers: idempotencyKeyHeader,
    body: changeRequest,
    success: {
      description: "'Your plan was changed to {plan}.' or 'Your plan changes to {plan} on {date}.'",
      data: z
        .strictObject({
          kind: KIND,
          amount_paid: z.number().meta({ description: "USD charged now." }),
          amount_paid_cents: z.int().meta({ description: "The same in cents." }),
          effective_at: z.string().meta({ format: "date-time" }),
          subscription: SubscriptionSchema,
          pending: PendingChangeSchema,
        })
        .meta({ id: "PlanChangeResult" }),
    },
    errors: {
      400: idempotencyKeyBadRequest,
      402: "The card was refused (the gateway's message); the plan stays as it was.",
      404: "'Plan not found.'",
      409: `'${PLAN_CHANGE_MESSAGES.noSubscription}', '${PLAN_CHANGE_MESSAGES.notCard}', '${PLAN_CHANGE_MESSAGES.oneTime}', '${PLAN_CHANGE_MESSAGES.notRenewing}' (plan_change_invalid), '${PLAN_CHANGE_MESSAGES.pastDue}' (payment_past_due), '${PLAN_CHANGE_MESSAGES.samePlan}' (plan_already_current), '${PLAN_CHANGE_MESSAGES.inProgress}' (plan_change_in_progress: another change is running) or '${IDEMPOTENCY_MESSAGES.inProgress}'`,
      502: "'Failed to create Stripe payment': the card gateway failed or did not answer",
    },
    async handler({ ctx, req, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      const { idempotency_key: _key, ...request } = input;
      const find = (id: number) => ctx.db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
      const answer = await oncePerKey(
        ctx.db,
        `plan-change:${auth.user.id}:${key}`,
        request,
        async () => {
          try {
            const result = await changePlan({ ...ctx.payments, mail: ctx.mail }, auth.user, {
              planId: input.plan_id,
              prorationDate: input.proration_date,
              key: `plan-change-${auth.user.id}-${key}`,
            });
            return {
              ok: true,
              body: {
                message: result.message,
                data: {
                  kind: result.kind,
                  amount_paid: dollars(result.amountPaidCents),
                  amount_paid_cents: result.amountPaidCents,
                  effective_at: result.effectiveAt.toISOString(),
                  subscription: publicSubscription(result.subscription),
                  pending: await pendingOf(find, result.subscription),
                },
              },
            };
          } catch (error) {
            // Another change was running: not this request's answer for good (a retry may go through), so not stored.
            if (isRefusal(error) && error.code !== "plan_change_in_progress") return refusalAnswer(error);
            throw error;
          }
        },
        () => ctx.clock.now(),
      );
      const stored = answer.body as { message: string; data?: never };
      if (!answer.ok || !stored.data) throw replayedRefusal(answer.body);
      return { data: stored.data, message: stored.message };
    },
  }),

  route({
    method: "post",
    path: "/api/subscription/change/cancel",
    operationId: "cancelPlanChange",
    tags: ["Subscriptions"],
    summary: "Keep the current plan: cancel the change waiting for the renewal",
    description: "Releases the subscription schedule of a pending change to a shorter plan. No request body.",
    auth: true,
    success: { description: `'${PLAN_CHANGE_MESSAGES.kept}'`, data: z.strictObject({ subscription: SubscriptionSchema }) },
    errors: {
      409: `'${PLAN_CHANGE_MESSAGES.nothingPending}' (plan_change_invalid) or '${PLAN_CHANGE_MESSAGES.inProgress}' (plan_change_in_progress)`,
      502: "The card gateway failed or did not answer" },
    async handler({ ctx, auth }) {
      const result = await cancelPendingChange(ctx.payments, auth.user);
      return { data: { subscription: publicSubscription(result.subscription) }, message: result.message };
    },
  }),
];
