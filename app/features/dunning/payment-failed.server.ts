import { randomBytes } from "node:crypto";
import type { ApiSchemas, createApiClient } from "~/utils/api.server";
import { translatorFor } from "~/i18n/i18n.server";
import type { Language } from "~/i18n/languages";
import { formattersFor } from "~/i18n/use-formatters";
import { cardName } from "~/utils/cards";

// The unpaid renewal as the banner and the pay page show it (docs/decisions/027), in the page's language.
// The reason and the card come worded by the API.

export type PaymentFailedView = {
  /** paypal: PayPal retries the payment itself; there is nothing to pay here. */
  gateway: "stripe" | "paypal";
  reason: string;
  amount: string;
  card: string | null;
  /** The last day the plan stays active unpaid, e.g. 'December 14, 2026'. */
  graceUntil: string;
  hostedInvoiceUrl: string | null;
  requiresAction: boolean;
  /** PayPal's automatic payments page (PayPal only). */
  paypalFundingUrl: string | null;
};

export function paymentFailedView(failed: ApiSchemas["PaymentFailed"] | null | undefined, language: Language): PaymentFailedView | null {
  if (!failed) return null;
  return {
    gateway: failed.gateway,
    reason: failed.reason,
    amount: failed.amount,
    card: failed.card,
    graceUntil: formattersFor(language).longDate(failed.grace_until),
    hostedInvoiceUrl: failed.hosted_invoice_url,
    requiresAction: failed.requires_action,
    paypalFundingUrl: failed.gateway === "paypal" ? failed.pay_url : null,
  };
}

/** GET /api/billing/past-due; null when nothing is unpaid (or the API cannot say: the page renders without the banner). */
export async function loadPaymentFailed(api: ReturnType<typeof createApiClient>, language: Language): Promise<PaymentFailedView | null> {
  const result = await api.get("/api/billing/past-due");
  return result.ok ? paymentFailedView(result.data.payment_failed, language) : null;
}

/** The pay page: the unpaid renewal, the saved cards to pay it with, and the form's idempotency key. */
export async function payPageState(api: ReturnType<typeof createApiClient>, language: Language) {
  const [failed, cards] = await Promise.all([
    loadPaymentFailed(api, language),
    api.get("/api/getCurrentcards", { params: { query: { page: 1, per_page: 100 } } }),
  ]);
  const t = translatorFor(language);
  return {
    failed,
    cards: cards.ok
      ? cards.data.data.map((card) => ({
          paymentMethodId: card.payment_method_id,
          label: cardName(card.card_brand, card.card_number.slice(-4), t),
          expires: card.card_exp,
        }))
      : [],
    // One key per rendered form: a double submit is one charge.
    idempotencyKey: randomBytes(18).toString("base64url"),
  };
}
