import type { AppLoadContext } from "@remix-run/node";
import { data, redirectDocument } from "@remix-run/node";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { languageOf } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import { hasControlCharacters } from "~/schemas/text";
import { redirectWithPageError, redirectWithSuccess } from "~/utils/toast.server";
import { PAYMENT_METHOD_MESSAGES, PER_PAGE, TAB_PATH, tabHref } from "./messages";

// The 'Payment Method' tab of /billing (commerce §2, §4, §7, §8): the saved cards 6 per page, adding a
// card (inline card entry with JavaScript, the hosted setup page without), editing, the default card
// (which is also the card that pays the card subscription's renewals: the API sets both together),
// and deleting with a server-rendered confirm step. The /billing route calls paymentMethodsState()
// from its loader and paymentMethodsAction() from its action.

export type SavedCard = ApiSchemas["SavedCard"];

export type CardView = SavedCard & {
  /** 'Mon DD, YYYY' (commerce §9). */
  added: string;
};

export type PaymentMethodsState = {
  cards: CardView[];
  pagination: { current_page: number; last_page: number; per_page: number; total: number };
  /** The list could not be loaded ('Failed to fetch Payment Methods'). */
  cardsFailed: boolean;
  /** The active card subscription while it renews (auto-renewal on): the default card pays its renewals. Else null. */
  cardSubscription: { id: number; title: string; stripe_sub_id: string } | null;
  /** Whether the account's plan is paid through the card provider (commerce §2: the tab is for them). */
  paysByCard: boolean;
  gateway: { mode: "live" | "sandbox"; publishable_key: string };
  /** Server-rendered steps: the card whose deletion is being confirmed, the card being edited. */
  confirmDelete: number | null;
  editing: number | null;
  /** Field errors of a refused edit or add (no-JS round trip). */
  errors: Record<string, string> | null;
};

function positiveInt(value: string | null): number | null {
  if (!value || !/^\d{1,9}$/.test(value)) return null;
  const n = Number(value);
  return n >= 1 ? n : null;
}

export async function paymentMethodsState(request: Request, context: AppLoadContext, url: URL): Promise<PaymentMethodsState> {
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);

  // Back from the hosted setup page: save its card (the API reads the session from the gateway).
  const setupSession = url.searchParams.get("setup_session");
  if (setupSession) {
    const done = await api.post("/api/payment-methods/setup-session/complete", { body: { sessionId: setupSession } });
    if (done.ok) throw await redirectWithSuccess(TAB_PATH, PAYMENT_METHOD_MESSAGES.added);
    throw await redirectWithPageError(TAB_PATH, done.message || PAYMENT_METHOD_MESSAGES.addFailed);
  }

  const page = positiveInt(url.searchParams.get("page")) ?? 1;
  const { shortDate } = formattersFor(languageOf(request));
  const [list, active, config] = await Promise.all([
    api.get("/api/getCurrentcards", { params: { query: { page, per_page: PER_PAGE } } }),
    api.post("/api/subscription/active"),
    api.get("/api/payments/config"),
  ]);
  const subscription = active.ok ? active.data.subscription : null;
  const paysByCard = subscription?.subscription_by === "stripe";
  const cards = list.ok ? list.data.data.map((card) => ({ ...card, added: shortDate(card.created_at) })) : [];
  const ids = new Set(cards.map((card) => card.id));
  const pick = (name: string) => {
    const id = positiveInt(url.searchParams.get(name));
    return id !== null && ids.has(id) ? id : null;
  };
  return {
    cards,
    pagination: list.ok ? list.data.pagination : { current_page: 1, last_page: 1, per_page: PER_PAGE, total: 0 },
    cardsFailed: !list.ok,
    cardSubscription:
      subscription && paysByCard && subscription.billing_type === "recurring" && subscription.stripe_sub_id && subscription.subs_status === "subscription_started"
        ? { id: subscription.id, title: subscription.title, stripe_sub_id: subscription.stripe_sub_id }
        : null,
    paysByCard,
    gateway: config.ok ? config.data : { mode: "sandbox", publishable_key: "" },
    confirmDelete: pick("delete"),
    editing: pick("edit"),
    errors: null,
  };
}

const INTENTS = ["add-card", "complete-add-card", "hosted-setup", "update-card", "set-default", "delete-card"] as const;
type Intent = (typeof INTENTS)[number];

function text(formData: FormData, name: string): string {
  const value = formData.get(name);
  return typeof value === "string" ? value.trim() : "";
}

/** "12/30", "12 / 30", "1230", "12/2030" → month and four-digit year. */
function parseExpiryText(value: string): { month: number; year: number } | null {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(value);
  if (!match) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  return month >= 1 && month <= 12 ? { month, year } : null;
}

/** Handles the tab's form intents; null when the intent is not one of them. */
export async function paymentMethodsAction(
  intent: string,
  args: { request: Request; context: AppLoadContext; formData: FormData },
): Promise<Response | ReturnType<typeof data> | null> {
  if (!(INTENTS as readonly string[]).includes(intent)) return null;
  const { request, context, formData } = args;
  const token = await requireToken(request);
  const api = createApiClient(request, context, token);
  const back = tabHref({ page: positiveInt(text(formData, "page")) ?? undefined });
  const fail = (message: string, fallback: string) => redirectWithPageError(back, message || fallback);

  switch (intent as Intent) {
    case "add-card": {
      const errors: Record<string, string> = {};
      if (!text(formData, "payment_method_id")) errors.card = PAYMENT_METHOD_MESSAGES.card;
      if (!text(formData, "billing_name")) errors.name = PAYMENT_METHOD_MESSAGES.name;
      else if (hasControlCharacters(text(formData, "billing_name"))) errors.name = PAYMENT_METHOD_MESSAGES.nameControls;
      if (!text(formData, "billing_postal")) errors.postal = PAYMENT_METHOD_MESSAGES.postal;
      if (Object.keys(errors).length) return data({ paymentMethodsForm: "add-card", errors }, { status: 422 });
      // The inline form is JavaScript's: a card that needs 3-D Secure is challenged on the page (the
      // sandbox's challenge in a dialog; live, Stripe.js).
      const added = await api.post("/api/add-new-card", {
        body: {
          payment_method_id: text(formData, "payment_method_id"),
          billing_name: text(formData, "billing_name"),
          billing_postal: text(formData, "billing_postal"),
          is_default: text(formData, "is_default") ? 1 : 0,
        },
      });
      if (!added.ok) return fail(added.message, PAYMENT_METHOD_MESSAGES.addFailed);
      if ("status" in added.data && added.data.status === "requires_action") {
        const challenge = added.data;
        return data({
          paymentMethodsForm: "add-card",
          authentication: {
            clientSecret: challenge.client_secret,
            url: challenge.authentication_url ?? null,
            setupIntent: challenge.setup_intent,
          },
        });
      }
      return redirectWithSuccess(TAB_PATH, PAYMENT_METHOD_MESSAGES.added);
    }
    // The challenge ended (completed, failed or abandoned): the API saves the card or says why not.
    case "complete-add-card": {
      const done = await api.post("/api/payment-methods/complete-authentication", { body: { setup_intent: text(formData, "setup_intent") } });
      if (!done.ok) return data({ paymentMethodsForm: "add-card", errors: { form: done.message || PAYMENT_METHOD_MESSAGES.addFailed } }, { status: done.status });
      return redirectWithSuccess(TAB_PATH, PAYMENT_METHOD_MESSAGES.added);
    }
    case "hosted-setup": {
      const session = await api.post("/api/payment-methods/setup-session");
      if (!session.ok) return fail(session.message, PAYMENT_METHOD_MESSAGES.addFailed);
      return redirectDocument(session.data.url);
    }
    case "update-card": {
      const id = positiveInt(text(formData, "id"));
      const expiry = parseExpiryText(text(formData, "expiry"));
      const name = text(formData, "billing_name");
      if (!id) return fail("", PAYMENT_METHOD_MESSAGES.updateFailed);
      const errors: Record<string, string> = {};
      if (!expiry) errors.expiry = PAYMENT_METHOD_MESSAGES.expiry;
      if (!name) errors.name = PAYMENT_METHOD_MESSAGES.name;
      else if (hasControlCharacters(name)) errors.name = PAYMENT_METHOD_MESSAGES.nameControls;
      if (Object.keys(errors).length) return data({ paymentMethodsForm: "update-card", id, errors }, { status: 422 });
      const updated = await api.put("/api/payment-methods/{id}/update-card-details", {
        params: { path: { id } },
        body: { card_exp_month: expiry!.month, card_exp_year: expiry!.year, billing_name: name },
      });
      if (!updated.ok) {
        const message = Object.values(updated.fieldErrors)[0]?.[0];
        if ((updated.code === "card_details_rejected" || updated.code === "validation_failed") && message) {
          // A refused name goes next to 'Cardholder name'; anything else the card's next to its expiry.
          const nameError = updated.fieldErrors.billing_name?.[0];
          return data({ paymentMethodsForm: "update-card", id, errors: nameError ? { name: nameError } : { expiry: message } }, { status: 422 });
        }
        return fail(updated.message, PAYMENT_METHOD_MESSAGES.updateFailed);
      }
      return redirectWithSuccess(back, PAYMENT_METHOD_MESSAGES.updated);
    }
    case "set-default": {
      const id = positiveInt(text(formData, "id"));
      if (!id) return fail(PAYMENT_METHOD_MESSAGES.idRequired, PAYMENT_METHOD_MESSAGES.defaultFailed);
      const set = await api.put("/api/payment-methods/{id}/set-default", { params: { path: { id } } });
      if (!set.ok) return fail(set.message, PAYMENT_METHOD_MESSAGES.defaultFailed);
      return redirectWithSuccess(TAB_PATH, PAYMENT_METHOD_MESSAGES.defaultSet);
    }
    case "delete-card": {
      const id = positiveInt(text(formData, "id"));
      if (!id) return fail("", PAYMENT_METHOD_MESSAGES.deleteFailed);
      const deleted = await api.delete("/api/payment-methods/{id}/delete-saved-card", { params: { path: { id } } });
      if (!deleted.ok) return fail(deleted.message, PAYMENT_METHOD_MESSAGES.deleteFailed);
      return redirectWithSuccess(TAB_PATH, PAYMENT_METHOD_MESSAGES.deleted);
    }
  }
}
