import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import { body, countryField, idField, requiredText } from "../validation";
import { UserSchema, publicUser } from "../../identity/users";
import { bearerUserId } from "../../identity/sessions";
import { DomainError } from "../../platform/errors";
import { COUPON_MESSAGES } from "../../payments/coupons";
import { activeSubscription, findPlan } from "../../payments/plans";
import { PAYMENT_METHODS, QuoteSchema, quotesFor } from "../../payments/terms";
import { partyIn, taxPartyOf, taxTreatmentOf } from "../../payments/tax";
import { PLAN_MESSAGES, PlanDetailFields, limitCouponQuotes, planDetailOf, releaseCouponTry } from "./plans";
import { PaymentConfigSchema, SavedCardSchema, paymentConfigOf, savedCardsOf } from "./payments";
import { SubscriptionSchema, publicSubscription } from "./subscription";
import { PaymentReceiptSchema, paymentReceiptOf } from "../../billing/receipts";

const couponField = () => requiredText("coupon code", { max: 64, required: "Please enter a coupon code." });

const quoteRequest = body({
  planId: idField("plan id").meta({ description: "plans.id" }),
  method: z.enum(PAYMENT_METHODS, { error: `The payment method must be one of: ${PAYMENT_METHODS.join(", ")}.` }).meta({
    description: "How the customer pays: card, saved_card, wallet (Apple Pay, Google Pay), paypal or crypto.",
  }),
  coupon: couponField().optional().meta({ description: "A coupon (any case); one that cannot be used is refused (422)." }),
  country: countryField().optional().meta({
    description: "The country to tax for (the checkout's 'change country'): overrides the saved billing country for this answer only. A VAT number saved for another country does not apply in it.",
  }),
}).meta({ id: "QuoteRequest" });

const COUNTRY_OVERRIDE = "The country to tax for instead of the saved billing country (this answer only).";

const TOO_MANY_COUPONS = rateLimited("'Too many coupon attempts. Please try again in N minutes.' (with a coupon only)");

export const checkoutRoutes = [
  // The signed-in checkout in one round trip instead of five (docs/decisions/013-performance-budgets.md, issue 31).
  route({
    method: "get",
    path: "/api/account/checkout",
    operationId: "accountCheckout",
    tags: ["Billing"],
    summary: "Everything the signed-in checkout of a plan shows, in one call",
    description:
      "The answers of POST /api/plans/detail (`plan_data`, `term_ends_on`, `quotes`: with a saved card, saved_card's too), GET /api/payments/config (`gateway`), GET /api/me (`user`), POST /api/payments/payment-methods (`saved_cards`) and the `subscription` of POST /api/subscription/active, read in one request. `coupon`: the quotes apply it when it can be used (its tries count as at POST /api/coupons/apply). The quotes are taxed for the account's saved billing details, or for `country` when given (PUT /api/account/billing-country saves it before paying: payments tax from the saved details).",
    auth: true,
    before: limitCouponQuotes,
    query: z.object({
      plan_id: idField("plan id").meta({ description: "plans.id" }),
      coupon: couponField().optional().meta({ description: "The coupon the checkout applied." }),
      country: countryField().optional().meta({ description: COUNTRY_OVERRIDE }),
      default_country: countryField()
        .optional()
        .meta({
          description:
            "The country to tax for when `country` is not given and the account has saved none (the portal sends the region of the browser's language): the checkout's pre-selection in one call.",
        }),
    }),
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
    errors: { 404: `'${PLAN_MESSAGES.notFound}'`, 429: TOO_MANY_COUPONS },
    async handler({ ctx, req, res, auth, query }) {
      const [savedCards, subscription] = await Promise.all([
        savedCardsOf(ctx, auth.user.id),
        activeSubscription(ctx.db, auth.user.id, ctx.clock.now()),
      ]);
      const saved = await taxPartyOf(ctx.db, auth.user.id);
      const party = partyIn(saved, query.country ?? (saved.country ? null : query.default_country));
      const tax = taxTreatmentOf(ctx.config.taxRates, party);
      const detail = await planDetailOf(ctx, query.plan_id, { savedCards: savedCards.length, coupon: query.coupon, res, tax });
      return {
        data: {
          ...detail,
          gateway: paymentConfigOf(ctx, req),
          user: publicUser(auth.user),
          saved_cards: savedCards,
          subscription: subscription ? publicSubscription(subscription) : null,
        },
      };
    },
  }),

  route({
    method: "post",
    path: "/api/checkout/quote",
    operationId: "checkoutQuote",
    tags: ["Billing"],
    summary: "What a plan costs now, what it buys and what renews, for one way to pay",
    description:
      "The one answer every page and email of a purchase says (issue 32): the amount charged now (a coupon included; net + VAT: EU consumers pay their country's rate, an EU business with a valid VAT number is reverse charged, elsewhere no VAT; issue 35), the months it buys (paid + free), the end of the first term (from the product's clock) and the renewal (null when this payment does not renew by itself: a one-time plan, crypto, or PayPal for a term over 12 months, which PayPal cannot bill). The payment code records its outcome by the same rule (api/payments/terms.ts). A bearer token is optional; saved_card needs one, and with one the coupon tries count against the account too, and the account's billing details (country, VAT number) decide the tax unless `country` is given.",
    auth: false,
    before: limitCouponQuotes,
    body: quoteRequest,
    success: { description: "The quote", data: QuoteSchema },
    errors: {
      404: `'${PLAN_MESSAGES.notFound}'`,
      422: `Validation ('Sign in to pay with a saved card.' under errors.fields.method; 'The country must be a two-letter ISO 3166-1 code, e.g. DE or US.' under errors.fields.country); a coupon that cannot be used ('${COUPON_MESSAGES.invalid}', under errors.fields.coupon)`,
      429: TOO_MANY_COUPONS,
    },
    async handler({ ctx, req, res, body: input }) {
      const plan = await findPlan(ctx.db, input.planId);
      if (!plan) throw new DomainError("not_found", PLAN_MESSAGES.notFound, { field: "planId" });
      const userId = await bearerUserId(ctx.db, req.headers.authorization);
      if (input.method === "saved_card" && userId === null) {
        throw new DomainError("validation_failed", "Sign in to pay with a saved card.", { field: "method" });
      }
      // Signed in: the saved billing details (country, VAT number); a visitor: only the country asked.
      const saved = userId === null ? { country: null, vatNumber: null, vatNumberStatus: null } : await taxPartyOf(ctx.db, userId);
      const tax = taxTreatmentOf(ctx.config.taxRates, partyIn(saved, input.country));
      const [quote] = await quotesFor(ctx.db, plan, { methods: [input.method], coupon: input.coupon ?? null, now: ctx.clock.now(), tax });
      if (input.coupon) await releaseCouponTry(ctx, res);
      return { data: quote! };
    },
  }),

  route({
    method: "get",
    path: "/api/account/receipt",
    operationId: "accountReceipt",
    tags: ["Billing"],
    summary: "The receipt of the account's newest payment for a plan",
    description:
      "What the checkout shows once paid: the amount charged (the coupon's part apart), the months bought, the first term's end as recorded, and the renewal by the rule of POST /api/checkout/quote for the way it was paid (null, with the reason, when nothing renews). `payment` is null before any payment for the plan.",
    auth: true,
    query: z.object({ plan_id: idField("plan id").meta({ description: "plans.id" }) }),
    success: { description: "The receipt", data: z.strictObject({ payment: PaymentReceiptSchema.nullable() }) },
    async handler({ ctx, auth, query }) {
      return { data: { payment: await paymentReceiptOf(ctx.db, auth.user.id, query.plan_id) } };
    },
  }),
];
