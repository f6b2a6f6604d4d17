import { z } from "zod";
import { route } from "../contract/route";
import { ID_SCHEMA, body, flagField, idField, optionalText, requiredText } from "../validation";
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  SAVED_CARD_MESSAGES,
  addCard,
  completeSetupSession,
  deleteCard,
  finishCardAuthentication,
  listCards,
  setDefaultCard,
  startSetupSession,
  updateCardDetails,
  updateSubscriptionPaymentMethod,
} from "../../payments/saved-cards";
import { PAYMENT_MESSAGES } from "../../payments/card-payments";
import { SavedCardSchema, portalReturnUrl, publicCard, returnUrlField } from "./payments";
import { noteSecurityEvent } from "../../identity/sign-in-alerts";
import { eventSource } from "../security";
import type { PaymentMethod } from "../../platform/db/schema";

/** 'Visa ending 4242': a saved card in the security events. */
function cardDetail(card: Pick<PaymentMethod, "card_brand" | "card_last4">): string {
  const brand = card.card_brand ? card.card_brand.charAt(0).toUpperCase() + card.card_brand.slice(1) : "Card";
  return `${brand} ending ${card.card_last4}`;
}

/*
 * The 'Payment Method' tab of /billing (commerce §2, §3, §4, §7): the saved cards, one page at a
 * time, adding a card (browser-made payment method, or the hosted setup page without JavaScript),
 * editing its expiry and cardholder name, the default card, deleting, and which card pays the card
 * subscription. Only the caller's own cards: another account's card id answers 404.
 *
 * Pagination: the list's `data` is an object `{data: SavedCard[], pagination}` (the spec reads "data
 * and pagination"; the portal's typed client only exposes `data`), and `pagination` is repeated at
 * the envelope's top level for clients that read it next to `data`.
 */

/** A positive integer query parameter with a default (?page=2); blank is the default. */
function pageParam(label: string, fallback: number, max: number) {
  const invalid = `The ${label} must be a whole number from 1 to ${max}.`;
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const n = Number(value.trim());
      if (!/^\d{1,9}$/.test(value.trim()) || n < 1 || n > max) {
        ctx.addIssue({ code: "custom", message: invalid });
        return z.NEVER;
      }
      return n;
    })
    .meta({ override: { type: "integer", minimum: 1, maximum: max, default: fallback } });
}

const listQuery = z.object({
  page: pageParam("page", 1, 1_000_000),
  per_page: pageParam("per page", DEFAULT_PER_PAGE, MAX_PER_PAGE),
});

const PaginationSchema = z
  .strictObject({
    current_page: z.int(),
    last_page: z.int(),
    per_page: z.int(),
    total: z.int(),
  })
  .meta({ id: "Pagination" });

const cardParams = z.object({ id: idField("card id").meta({ description: "The saved card's id (SavedCard.id)." }) });

/** set-default: the spec's message for a blank id. */
const setDefaultParams = z.object({
  id: z
    .string()
    .transform((value, ctx) => {
      const v = value.trim();
      if (!v) {
        ctx.addIssue({ code: "custom", message: SAVED_CARD_MESSAGES.idRequired });
        return z.NEVER;
      }
      if (!/^\d{1,15}$/.test(v) || Number(v) < 1) {
        ctx.addIssue({ code: "custom", message: "The card id must be a number." });
        return z.NEVER;
      }
      return Number(v);
    })
    .meta({ override: { type: undefined, ...ID_SCHEMA }, description: "The saved card's id (SavedCard.id)." }),
});

const monthField = () =>
  z
    .unknown()
    .transform((value, ctx) => {
      const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d{1,2}\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isInteger(n) || n < 1 || n > 12) {
        ctx.addIssue({ code: "custom", message: "The expiry month must be from 1 to 12." });
        return z.NEVER;
      }
      return n;
    })
    .meta({
      override: {
        anyOf: [
          { type: "integer", minimum: 1, maximum: 12 },
          { type: "string", pattern: "^\\s*(0?[1-9]|1[0-2])\\s*$" },
        ],
      },
    });

const yearField = () =>
  z
    .unknown()
    .transform((value, ctx) => {
      const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d{2}(\d{2})?\s*$/.test(value) ? Number(value) : Number.NaN;
      const year = n < 100 ? 2000 + n : n;
      if (!Number.isInteger(year) || year < 2000 || year > 2100) {
        ctx.addIssue({ code: "custom", message: "The expiry year must be a year such as 2030." });
        return z.NEVER;
      }
      return year;
    })
    .meta({
      override: {
        anyOf: [
          { type: "integer", minimum: 0, maximum: 99 },
          { type: "integer", minimum: 2000, maximum: 2100 },
          { type: "string", pattern: "^\\s*(\\d{2}|20\\d{2}|2100)\\s*$" },
        ],
      },
      description: "Four digits, or two (30 = 2030); from 2000 to 2100.",
    });

const addCardRequest = body({
  payment_method_id: requiredText("payment method id", { max: 255 }).meta({
    description: "The PaymentMethod the browser made (Stripe.js createPaymentMethod, or the sandbox's tokenizer).",
  }),
  card_brand: optionalText("card brand", 50).meta({ description: "Informative: the brand is read from Stripe." }),
  card_last4: optionalText("card last4", 4).meta({ description: "Informative: the last four digits are read from Stripe." }),
  card_exp_month: z.unknown().optional().meta({ description: "Informative: the expiry is read from Stripe." }),
  card_exp_year: z.unknown().optional().meta({ description: "Informative: the expiry is read from Stripe." }),
  billing_name: optionalText("billing name", 255).meta({ description: "The cardholder name (else the card's own billing name)." }),
  billing_postal: optionalText("billing postal", 40).meta({ description: "The postal code (else the card's own)." }),
  is_default: flagField("is default").meta({ description: "1: the new card becomes the default (the others lose the flag)." }),
  return_url: returnUrlField(),
}).meta({ id: "AddCardRequest" });

const AddCardAuthenticationSchema = z
  .strictObject({
    status: z.literal("requires_action").meta({
      description:
        "The card needs the bank's 3-D Secure: send the browser to redirect_url (with a return_url; it comes back with setup_intent in the query), or run client_secret's next action with Stripe.js (authentication_url in a dialog in the sandbox); then /api/payment-methods/complete-authentication saves it.",
    }),
    setup_intent: z.string(),
    client_secret: z.string(),
    redirect_url: z.string().optional(),
    authentication_url: z.string().optional(),
  })
  .meta({ id: "AddCardAuthentication" });

const completeCardAuthenticationRequest = body({
  setup_intent: requiredText("setup intent", { max: 255 }).meta({ description: "The SetupIntent of the requires_action answer (setup_intent of the return URL)." }),
}).meta({ id: "CompleteCardAuthenticationRequest" });

const updateCardRequest = body({
  card_exp_month: monthField(),
  card_exp_year: yearField(),
  billing_name: requiredText("billing name", { max: 255, required: "Please enter the cardholder name" }),
}).meta({ id: "UpdateCardRequest" });

const updatePaymentMethodRequest = body({
  subscriptionId: requiredText("subscription id", { max: 255 }).meta({
    description: "The card subscription: its id (Subscription.id) or its stripe_sub_id.",
  }),
  paymentMethodId: requiredText("payment method id", { max: 255 }).meta({
    description: "A saved card's payment_method_id.",
  }),
}).meta({ id: "UpdatePaymentMethodRequest" });

const completeSetupRequest = body({
  sessionId: requiredText("session id", { max: 255 }).meta({ description: "setup_session of the return URL." }),
}).meta({ id: "CompleteCardSetupRequest" });

const NOT_FOUND = `'${SAVED_CARD_MESSAGES.notFound}' (unknown, or another account's card)`;

export const paymentMethodRoutes = [
  route({
    method: "get",
    path: "/api/getCurrentcards",
    operationId: "listSavedCards",
    tags: ["Billing"],
    summary: "The saved cards, one page at a time",
    description:
      "Commerce §7 'List saved cards': ?page= (default 1) and ?per_page= (default 6, at most 100). The default card first, then the newest. `data` is `{data: SavedCard[], pagination}`; `pagination` is repeated at the envelope's top level.",
    auth: true,
    query: listQuery,
    success: {
      description: "A page of saved cards and the pagination",
      data: z.strictObject({ data: z.array(SavedCardSchema), pagination: PaginationSchema }),
      topLevel: { pagination: PaginationSchema },
    },
    async handler({ ctx, auth, query }) {
      const { cards, pagination } = await listCards(ctx.payments, auth.user.id, query.page, query.per_page);
      return { data: { data: cards.map(publicCard), pagination }, message: SAVED_CARD_MESSAGES.listed, topLevel: { pagination } };
    },
  }),

  route({
    method: "post",
    path: "/api/add-new-card",
    operationId: "addSavedCard",
    tags: ["Billing"],
    summary: "Add a card",
    description:
      "The commerce §3 add-card payload. The PaymentMethod is attached to the account's Stripe customer with a SetupIntent confirmed with it; brand, last four digits and expiry come from Stripe (card_brand, card_last4, card_exp_* are ignored). The first card, or is_default 1, becomes the default (the customer's invoice default too). Adding the same payment method again answers the saved card.",
    auth: true,
    body: addCardRequest,
    success: {
      description: `'${SAVED_CARD_MESSAGES.added}', or the bank's challenge to pass first (AddCardAuthentication)`,
      data: z.union([SavedCardSchema, AddCardAuthenticationSchema]),
    },
    errors: {
      402: "The card was refused by the gateway: its message (e.g. 'Your card has expired.')",
      422: `Validation; '${SAVED_CARD_MESSAGES.cardNotUsable}' (unknown payment method, or another customer's); a return_url that is not a page of this site`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const card = await addCard(ctx.payments, auth.user, {
        paymentMethodId: input.payment_method_id,
        billingName: input.billing_name,
        billingPostal: input.billing_postal,
        isDefault: input.is_default === 1,
        returnUrl: portalReturnUrl(ctx, input.return_url),
      });
      if ("status" in card) {
        const data = {
          status: card.status,
          setup_intent: card.setupIntent,
          client_secret: card.clientSecret,
          ...(card.redirectUrl ? { redirect_url: card.redirectUrl } : {}),
          ...(card.authenticationUrl ? { authentication_url: card.authenticationUrl } : {}),
        };
        return { data, message: PAYMENT_MESSAGES.confirmWithBank };
      }
      await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "card_added", detail: cardDetail(card), ...eventSource(req) });
      return { data: publicCard(card), message: SAVED_CARD_MESSAGES.added };
    },
  }),

  route({
    method: "post",
    path: "/api/payment-methods/complete-authentication",
    operationId: "completeAddCardAuthentication",
    tags: ["Billing"],
    summary: "Finish adding a card after the bank's 3-D Secure challenge",
    description:
      "Reads the SetupIntent from the gateway (never trusting the return URL's redirect_status). Succeeded: the card is saved (again answers the same card). Failed or abandoned: the SetupIntent is cancelled, nothing is saved, 402 authentication_failed.",
    auth: true,
    body: completeCardAuthenticationRequest,
    success: { description: `'${SAVED_CARD_MESSAGES.added}'`, data: SavedCardSchema },
    errors: {
      402: `authentication_failed: '${PAYMENT_MESSAGES.authenticationFailed}'`,
      404: `'${SAVED_CARD_MESSAGES.setupNotFound}' (unknown, or another account's)`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const card = await finishCardAuthentication(ctx.payments, auth.user, input.setup_intent);
      await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "card_added", detail: cardDetail(card), ...eventSource(req) });
      return { data: publicCard(card), message: SAVED_CARD_MESSAGES.added };
    },
  }),

  route({
    method: "put",
    path: "/api/payment-methods/{id}/update-card-details",
    operationId: "updateSavedCard",
    tags: ["Billing"],
    summary: "Change a card's expiry and cardholder name",
    description: "Updated at Stripe (paymentMethods.update), then here.",
    auth: true,
    params: cardParams,
    body: updateCardRequest,
    success: { description: `'${SAVED_CARD_MESSAGES.updated}'`, data: SavedCardSchema },
    errors: { 404: NOT_FOUND, 422: "Validation, or the gateway refused the expiry (its message)" },
    async handler({ ctx, auth, params, body: input }) {
      const card = await updateCardDetails(ctx.payments, auth.user.id, params.id, {
        expMonth: input.card_exp_month,
        expYear: input.card_exp_year,
        billingName: input.billing_name,
      });
      return { data: publicCard(card), message: SAVED_CARD_MESSAGES.updated };
    },
  }),

  route({
    method: "put",
    path: "/api/payment-methods/{id}/set-default",
    operationId: "setDefaultSavedCard",
    tags: ["Billing"],
    summary: "Make a saved card the default",
    description:
      "Only that card is the default afterwards: it becomes the customer's invoice default at Stripe and the default_payment_method of the account's card subscription (the card that pays the renewals).",
    auth: true,
    params: setDefaultParams,
    success: { description: `'${SAVED_CARD_MESSAGES.defaultSet}'`, data: SavedCardSchema },
    errors: { 404: NOT_FOUND, 422: `'${SAVED_CARD_MESSAGES.idRequired}' (blank id)` },
    async handler({ ctx, auth, params }) {
      const card = await setDefaultCard(ctx.payments, auth.user, params.id);
      return { data: publicCard(card), message: SAVED_CARD_MESSAGES.defaultSet };
    },
  }),

  route({
    method: "delete",
    path: "/api/payment-methods/{id}/delete-saved-card",
    operationId: "deleteSavedCard",
    tags: ["Billing"],
    summary: "Delete a saved card",
    description: "Detached from the Stripe customer and removed. The default card cannot be deleted (409).",
    auth: true,
    params: cardParams,
    success: { description: `'${SAVED_CARD_MESSAGES.deleted}'`, data: z.null() },
    errors: { 404: NOT_FOUND, 409: `'${SAVED_CARD_MESSAGES.defaultNotDeletable}'` },
    async handler({ ctx, req, auth, params }) {
      const card = await ctx.db
        .selectFrom("payment_methods")
        .select(["card_brand", "card_last4"])
        .where("id", "=", params.id)
        .where("user_id", "=", auth.user.id)
        .executeTakeFirst();
      await deleteCard(ctx.payments, auth.user.id, params.id);
      if (card) await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "card_removed", detail: cardDetail(card), ...eventSource(req) });
      return { data: null, message: SAVED_CARD_MESSAGES.deleted };
    },
  }),

  route({
    method: "post",
    path: "/api/stripe/update-payment-method",
    operationId: "updateSubscriptionPaymentMethod",
    tags: ["Billing"],
    summary: "Choose which saved card pays the card subscription",
    description:
      "Sets the Stripe subscription's default_payment_method to the saved card, which also becomes the account's default card (one setting). Failures are read as errors.message.",
    auth: true,
    body: updatePaymentMethodRequest,
    success: { description: `'${SAVED_CARD_MESSAGES.subscriptionUpdated}'`, data: z.null() },
    errors: {
      404: `'${SAVED_CARD_MESSAGES.subscriptionNotFound}' or '${SAVED_CARD_MESSAGES.notFound}'`,
      409: `'${SAVED_CARD_MESSAGES.subscriptionNotCard}'`,
    },
    async handler({ ctx, auth, body: input }) {
      await updateSubscriptionPaymentMethod(ctx.payments, auth.user, input);
      return { data: null, message: SAVED_CARD_MESSAGES.subscriptionUpdated };
    },
  }),

  route({
    method: "post",
    path: "/api/payment-methods/setup-session",
    operationId: "startCardSetupSession",
    tags: ["Billing"],
    summary: "Start the hosted page that saves a card (no JavaScript)",
    description:
      "A Checkout Session in mode setup (the sandbox's hosted page in sandbox mode). It returns to /billing?tab=payment-method&setup_session={id} (saved) or &setup=cancelled. No request body.",
    auth: true,
    success: { description: "The session", data: z.strictObject({ id: z.string(), url: z.string().meta({ format: "uri" }) }) },
    async handler({ ctx, auth }) {
      return { data: await startSetupSession(ctx.payments, auth.user) };
    },
  }),

  route({
    method: "post",
    path: "/api/payment-methods/setup-session/complete",
    operationId: "completeCardSetupSession",
    tags: ["Billing"],
    summary: "Save the card a hosted setup page attached",
    description: "Reads the session from the gateway (never trusting the return URL alone); completing it again answers the same card.",
    auth: true,
    body: completeSetupRequest,
    success: { description: `'${SAVED_CARD_MESSAGES.added}'`, data: SavedCardSchema },
    errors: {
      404: `'${SAVED_CARD_MESSAGES.setupSessionNotFound}' (unknown, or another account's)`,
      409: `'${SAVED_CARD_MESSAGES.setupIncomplete}' (not completed)`,
    },
    async handler({ ctx, req, auth, body: input }) {
      const card = await completeSetupSession(ctx.payments, auth.user, input.sessionId);
      await noteSecurityEvent(ctx, { userId: auth.user.id, kind: "card_added", detail: cardDetail(card), ...eventSource(req) });
      return { data: publicCard(card), message: SAVED_CARD_MESSAGES.added };
    },
  }),
];
