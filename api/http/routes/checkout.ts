import { z } from "zod";
import { route } from "../contract/route";
import { idField } from "../validation";
import { UserSchema, publicUser } from "../../identity/users";
import { activeSubscription } from "../../payments/plans";
import { PLAN_MESSAGES, PlanDetailFields, planDetailOf } from "./plans";
import { PaymentConfigSchema, SavedCardSchema, paymentConfigOf, savedCardsOf } from "./payments";
import { SubscriptionSchema, publicSubscription } from "./subscription";

export const checkoutRoutes = [
  // The signed-in checkout in one round trip instead of five (docs/decisions/013-performance-budgets.md, issue 31).
  route({
    method: "get",
    path: "/api/account/checkout",
    operationId: "accountCheckout",
    tags: ["Billing"],
    summary: "Everything the signed-in checkout of a plan shows, in one call",
    description:
      "The answers of POST /api/plans/detail (`plan_data`, `term_ends_on`), GET /api/payments/config (`gateway`), GET /api/me (`user`), POST /api/payments/payment-methods (`saved_cards`) and the `subscription` of POST /api/subscription/active, read in one request.",
    auth: true,
    query: z.object({ plan_id: idField("plan id").meta({ description: "plans.id" }) }),
    success: {
      description: "The checkout",
      data: z
        .strictObject({
          ...PlanDetailFields,
          gateway: PaymentConfigSchema,
          user: UserSchema,
          saved_cards: z.array(SavedCardSchema),
          subscription: SubscriptionSchema.nullable(),
        })
        .meta({ id: "AccountCheckout" }),
    },
    errors: { 404: `'${PLAN_MESSAGES.notFound}'` },
    async handler({ ctx, auth, query }) {
      const [detail, savedCards, subscription] = await Promise.all([
        planDetailOf(ctx, query.plan_id),
        savedCardsOf(ctx, auth.user.id),
        activeSubscription(ctx.db, auth.user.id, ctx.clock.now()),
      ]);
      return {
        data: {
          ...detail,
          gateway: paymentConfigOf(ctx),
          user: publicUser(auth.user),
          saved_cards: savedCards,
          subscription: subscription ? publicSubscription(subscription) : null,
        },
      };
    },
  }),
];
