import { z } from "zod";
import { route } from "../contract/route";
import { isRefusal } from "../../platform/errors";
import { body, idField } from "../validation";
import { idempotencyKeyBadRequest, idempotencyKeyField, idempotencyKeyHeader, idempotencyKeyOf } from "../idempotency-key";
import { IDEMPOTENCY_MESSAGES, oncePerKey, refusalAnswer, replayedRefusal } from "../../payments/idempotency";
import { PLAN_CHANGE_MESSAGES, type PlanChangeResult, type PlanChangeSummary, cancelPendingChange, changePlan, previewPlanChange } from "../../payments/plan-changes";
import { PendingChangeSchema, PlanBriefSchema, SubscriptionSchema, brief, pendingOf, publicSubscription } from "./subscription";
import { dollars } from "../../payments/plans";
import { SUBSCRIPTION_MESSAGES } from "../../payments/one-subscription";
import { requiredText } from "../validation";
import { DomainError } from "../../platform/errors";
import type { Text } from "../../platform/i18n";
import type { ApiContext } from "../context";
import type { User } from "../../platform/db/schema";
import {
  PAYPAL_CHANGE_MESSAGES,
  confirmPayPalPlanChange,
  isPayPalSubscriber,
  previewPayPalPlanChange,
  startPayPalPlanChange,
} from "../../payments/paypal/plan-changes";
import { storedAnswer } from "../../payments/idempotency";
import { TaxLineSchema } from "../../payments/tax";

/*
 * Changing plan (issue 20, docs/decisions/028): the preview the checkout page shows a subscriber,
 * the change itself, and keeping the current plan when a change waits for the renewal.
 */

const KIND = z.enum(["now", "at_renewal"]).meta({
  description: "now: a longer (or dearer) plan, charged now with the unused time credited; at_renewal: a shorter plan, from the next renewal, nothing charged now.",
});

const SummarySchema = z
  .strictObject({
    charged_now: z.number().meta({ description: "USD charged now, VAT included: the new plan less the unused part of the current one, plus VAT (0 for a change at renewal)." }),
    charged_now_cents: z.int().meta({ description: "The same in cents: charged_now_net_cents + charged_now_tax.amount_cents." }),
    charged_now_net_cents: z.int().meta({ description: "What is charged now before tax, in cents." }),
    charged_now_tax: TaxLineSchema.nullable().meta({ description: "Its VAT line (Stripe Tax's amount, our wording, as the quote's tax); null where no VAT applies." }),
    new_end_date: z.string().meta({
      format: "date-time",
      description: "When what is paid for ends: a change now buys the new plan's card (its months and free months, decision 051); at renewal, the current end.",
    }),
    next_renewal: z
      .strictObject({
        amount: z.number().meta({ description: "USD, VAT included." }),
        amount_cents: z.int().meta({ description: "The same in cents: net_cents + tax_cents." }),
        net_cents: z.int().meta({ description: "The new plan's price before tax, in cents." }),
        tax_cents: z.int().meta({ description: "Its VAT at the customer's treatment, in cents." }),
        tax: TaxLineSchema.nullable().meta({ description: "Its VAT line; null where no VAT applies." }),
        date: z.string().meta({ format: "date-time" }),
      })
      .meta({ description: "The new plan's next charge." }),
  })
  .meta({ id: "PlanChangeSummary", description: "The three figures a change is stated with; the preview's and the result's come from the same function." });

function summaryOf(summary: PlanChangeSummary) {
  return {
    charged_now: dollars(summary.chargedNowCents),
    charged_now_cents: summary.chargedNowCents,
    charged_now_net_cents: summary.chargedNow.netCents,
    charged_now_tax: summary.chargedNow.tax,
    new_end_date: summary.newEndDate.toISOString(),
    next_renewal: {
      amount: dollars(summary.nextRenewal.amountCents),
      amount_cents: summary.nextRenewal.amountCents,
      net_cents: summary.nextRenewal.taxed.netCents,
      tax_cents: summary.nextRenewal.taxed.taxCents,
      tax: summary.nextRenewal.taxed.tax,
      date: summary.nextRenewal.date.toISOString(),
    },
  };
}

/** A change's answer (card or PayPal): the same fields, whichever gateway made it. */
async function resultData(result: PlanChangeResult, find: Parameters<typeof pendingOf>[0]) {
  return {
    kind: result.kind,
    amount_paid: dollars(result.amountPaidCents),
    amount_paid_cents: result.amountPaidCents,
    effective_at: result.effectiveAt.toISOString(),
    summary: summaryOf(result.summary),
    subscription: publicSubscription(result.subscription),
    pending: await pendingOf(find, result.subscription),
  };
}

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

const PAID_WITH = z.enum(["card", "paypal"]).meta({
  description: "card: changed here at once (Stripe); paypal: through PayPal's revise, which the customer approves at PayPal (POST /api/subscription/change/paypal).",
});

const ResultSchema = z
  .strictObject({
    kind: KIND,
    amount_paid: z.number().meta({ description: "USD charged now." }),
    amount_paid_cents: z.int().meta({ description: "The same in cents." }),
    effective_at: z.string().meta({ format: "date-time" }),
    summary: SummarySchema,
    subscription: SubscriptionSchema,
    pending: PendingChangeSchema,
  })
  .meta({ id: "PlanChangeResult" });

/** The account's subscription is a PayPal one, and PayPal is on: its changes go through PayPal's revise. */
async function byPayPal(ctx: ApiContext, user: User): Promise<boolean> {
  return Boolean(ctx.paypal) && (await isPayPalSubscriber(ctx.payments, user));
}

/**
 * A stored change's message: its Text (written in the request's language, a replay's too), or the English of
 * an answer stored before it had one.
 */
function messageOf(stored: { message: string; text?: Text }): string | Text {
  return stored.text ?? stored.message;
}

function paypalOf(ctx: ApiContext) {
  if (!ctx.paypal) throw new DomainError("plan_change_invalid", PLAN_CHANGE_MESSAGES.noSubscription);
  return ctx.paypal;
}

const paypalChangeRequest = body({
  plan_id: idField("plan id").meta({ description: "plans.id of the new plan (a recurring plan PayPal bills as a subscription)." }),
  return_path: requiredText("return path", { max: 200 }).meta({
    description: "The checkout page PayPal sends the browser back to: /subscription/payment/{planId}. PayPal returns with plan_change={idempotency_key}, and paypal=cancel when the customer cancelled.",
  }),
  idempotency_key: idempotencyKeyField("A random key the page makes for this change; the same key confirms it (POST /api/subscription/change/paypal/confirm)."),
}).meta({ id: "PayPalPlanChangeRequest" });

const paypalConfirmRequest = body({
  plan_id: idField("plan id").meta({ description: "plans.id of the new plan." }),
  idempotency_key: idempotencyKeyField("The key the change was started with (the return URL's plan_change). Confirming again answers the same result."),
}).meta({ id: "PayPalPlanChangeConfirmRequest" });

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
          amount_due: z.number().meta({ description: "USD charged now, VAT included (0 for a change at renewal)." }),
          amount_due_cents: z.int().meta({ description: "The same in cents: net_cents + tax.amount_cents." }),
          country: z.string().nullable().meta({ description: "ISO 3166-1 alpha-2 of the country taxed (the saved billing country); null when none is known (no VAT).", examples: ["DE"] }),
          net_cents: z.int().meta({ description: "What is charged now before tax, in cents (as the quote's net_cents)." }),
          net: z.number().meta({ description: "The same in USD." }),
          tax: TaxLineSchema.nullable().meta({ description: "The VAT line of the charge now (as the quote's tax); null where no VAT applies." }),
          proration_date: z.int().nullable().meta({ description: "Unix seconds; null for a change at renewal." }),
          effective_at: z.string().meta({ format: "date-time" }),
          summary: SummarySchema,
          paid_with: PAID_WITH,
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
      const paypal = await byPayPal(ctx, auth.user);
      const preview = paypal ? await previewPayPalPlanChange(paypalOf(ctx), auth.user, query.plan_id) : await previewPlanChange(ctx.payments, auth.user, query.plan_id);
      const find = (id: number) => ctx.db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
      return {
        data: {
          kind: preview.kind,
          current_plan: brief(preview.currentPlan),
          plan: brief(preview.plan),
          amount_due: dollars(preview.amountDueCents),
          amount_due_cents: preview.amountDueCents,
          country: preview.summary.chargedNow.country,
          net_cents: preview.summary.chargedNow.netCents,
          net: dollars(preview.summary.chargedNow.netCents),
          tax: preview.summary.chargedNow.tax,
          proration_date: preview.prorationDate,
          effective_at: preview.effectiveAt.toISOString(),
          summary: summaryOf(preview.summary),
          paid_with: paypal ? ("paypal" as const) : ("card" as const),
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
      data: ResultSchema,
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
                text: result.text,
                data: await resultData(result, find),
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
      const stored = answer.body as { message: string; text?: Text; data?: never };
      if (!answer.ok || !stored.data) throw replayedRefusal(answer.body);
      return { data: stored.data, message: messageOf(stored) };
    },
  }),

  route({
    method: "get",
    path: "/api/subscription/change/result",
    operationId: "planChangeResult",
    tags: ["Subscriptions"],
    summary: "The result of a plan change, again",
    description:
      "The answer the change with this idempotency key gave (POST /api/subscription/change, or /api/subscription/change/paypal/confirm): what the page shows after the change, with the same three figures.",
    auth: true,
    query: z.object({ key: requiredText("key", { max: 200 }).meta({ description: "The change's idempotency key." }) }),
    success: { description: "The change's message and result", data: ResultSchema },
    errors: { 404: "'This plan change was not found.'" },
    async handler({ ctx, auth, query }) {
      const stored = await storedAnswer(ctx.db, `plan-change:${auth.user.id}:${query.key}`);
      const body = stored?.ok ? (stored.body as { message: string; text?: Text; data: z.infer<typeof ResultSchema> }) : null;
      if (!body?.data) throw new DomainError("not_found", "This plan change was not found.");
      return { data: body.data, message: messageOf(body) };
    },
  }),

  route({
    method: "post",
    path: "/api/subscription/change/paypal",
    operationId: "startPayPalPlanChange",
    tags: ["Subscriptions"],
    summary: "Change a PayPal subscription's plan: PayPal's approval link",
    description:
      "Revises the PayPal subscription to the new plan (PayPal's revise); the customer approves at approve_url and PayPal sends them back to return_path, where the page confirms (POST /api/subscription/change/paypal/confirm). PayPal applies the new plan from the next billing and prorates nothing: nothing is charged now.",
    auth: true,
    headers: idempotencyKeyHeader,
    body: paypalChangeRequest,
    success: { description: "PayPal's approval link", data: z.strictObject({ approve_url: z.string().meta({ format: "uri" }) }) },
    errors: {
      400: `The return path is not a checkout page; ${idempotencyKeyBadRequest}`,
      404: "'Plan not found.'",
      409: `'${PLAN_CHANGE_MESSAGES.noSubscription}', '${PAYPAL_CHANGE_MESSAGES.paidOnce}', '${PAYPAL_CHANGE_MESSAGES.notBilledBySubscription}', '${PLAN_CHANGE_MESSAGES.oneTime}', '${PLAN_CHANGE_MESSAGES.notRenewing}' (plan_change_invalid), '${PLAN_CHANGE_MESSAGES.pastDue}' (payment_past_due), '${PLAN_CHANGE_MESSAGES.samePlan}' (plan_already_current) or '${PLAN_CHANGE_MESSAGES.inProgress}' (plan_change_in_progress)`,
      502: "'PayPal could not be reached. Please try again.'",
    },
    async handler({ ctx, req, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      const started = await startPayPalPlanChange(paypalOf(ctx), auth.user, { planId: input.plan_id, returnPath: input.return_path, key });
      return { data: { approve_url: started.approveUrl } };
    },
  }),

  route({
    method: "post",
    path: "/api/subscription/change/paypal/confirm",
    operationId: "confirmPayPalPlanChange",
    tags: ["Subscriptions"],
    summary: "Confirm a PayPal plan change the customer approved",
    description:
      "Back from PayPal: once PayPal has the subscription on the new plan (approved), the change is recorded as the one at the next renewal, the confirmation email is sent, and the result states the three figures. Once per key: confirming again answers the same result.",
    auth: true,
    headers: idempotencyKeyHeader,
    body: paypalConfirmRequest,
    success: { description: "'Your plan changes to {plan} on {date}.'", data: ResultSchema },
    errors: {
      400: idempotencyKeyBadRequest,
      404: "'Plan not found.'",
      409: `'${PAYPAL_CHANGE_MESSAGES.notApproved}', '${PLAN_CHANGE_MESSAGES.noSubscription}' (plan_change_invalid) or '${IDEMPOTENCY_MESSAGES.inProgress}'`,
      502: "'PayPal could not be reached. Please try again.'",
    },
    async handler({ ctx, req, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: true });
      const find = (id: number) => ctx.db.selectFrom("plans").selectAll().where("id", "=", id).executeTakeFirst();
      const answer = await oncePerKey(
        ctx.db,
        `plan-change:${auth.user.id}:${key}`,
        { plan_id: input.plan_id, by: "paypal" },
        async () => {
          try {
            const result = await confirmPayPalPlanChange({ ...paypalOf(ctx), mail: ctx.mail }, auth.user, { planId: input.plan_id });
            return {
              ok: true,
              body: {
                message: result.message,
                text: result.text,
                data: await resultData(result, find),
              },
            };
          } catch (error) {
            // Not approved (yet): not this key's answer for good, the customer may approve and come back.
            if (isRefusal(error) && error.message !== PAYPAL_CHANGE_MESSAGES.notApproved) return refusalAnswer(error);
            throw error;
          }
        },
        () => ctx.clock.now(),
      );
      const stored = answer.body as { message: string; text?: Text; data?: never };
      if (!answer.ok || !stored.data) throw replayedRefusal(answer.body);
      return { data: stored.data, message: messageOf(stored) };
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
      409: `'${PLAN_CHANGE_MESSAGES.nothingPending}', '${PLAN_CHANGE_MESSAGES.approvedAtPayPal}' (plan_change_invalid) or '${PLAN_CHANGE_MESSAGES.inProgress}' (plan_change_in_progress)`,
      502: "The card gateway failed or did not answer" },
    async handler({ ctx, auth }) {
      const result = await cancelPendingChange(ctx.payments, auth.user);
      return { data: { subscription: publicSubscription(result.subscription) }, message: result.message };
    },
  }),
];
