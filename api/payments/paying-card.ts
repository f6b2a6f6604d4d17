import type { Database } from "../platform/db";
import { type Param, prepare } from "../platform/db/prepared";
import type { Logger } from "../platform/logger";
import type { Subscription } from "../platform/db/schema";
import { stripControlCharacters } from "../platform/text";
import type { PayingCard } from "./gateway";
import type { CardDetails } from "./records";
import { retrieveCard } from "./stripe/cards";
import type { Stripe, StripeSetup } from "./stripe/client";
import { retrieveSubscription } from "./stripe/subscriptions";

/*
 * The card that pays a card subscription, and the card a payment names (moved from api/billing/notices.ts:
 * the receipts, the reminders, the card expiry warnings and 'Next charge' ask the card gateway for it).
 */

type Deps = { db: Database; gateway: StripeSetup; logger: Logger };

/** What we keep of a card PaymentMethod (never the number). */
export function cardDetails(pm: Stripe.PaymentMethod): CardDetails | null {
  if (!pm.card) return null;
  return {
    paymentMethodId: pm.id,
    brand: pm.card.brand,
    last4: pm.card.last4,
    expMonth: pm.card.exp_month,
    expYear: pm.card.exp_year,
    // Typed on Stripe's page or in its card form, where we cannot refuse it: cleaned before it is stored.
    billingName: pm.billing_details?.name ? stripControlCharacters(pm.billing_details.name) || null : null,
    billingPostal: pm.billing_details?.address?.postal_code ?? null,
    walletPaymentType: pm.card.wallet?.type === "apple_pay" ? "applepay" : pm.card.wallet?.type === "google_pay" ? "googlepay" : "card",
  };
}

/**
 * The card that pays a card subscription: the subscription's default payment method at Stripe, else
 * the customer's default (our default card mirrors it). Null when none is saved.
 */
// A page view's question (below): prepared once (api/platform/db/prepared.ts).
const twoSavedCards = prepare((db, param: Param<{ userId: number }>) =>
  db.selectFrom("payment_methods").select("payment_method_id").where("user_id", "=", param("userId")).limit(2),
);

export async function cardThatPays(
  deps: Deps,
  subscription: Pick<Subscription, "user_id" | "stripe_sub_id">,
  opts: { onlyCardSuffices?: boolean } = {},
): Promise<PayingCard | null> {
  if (opts.onlyCardSuffices) {
    // A page view (the home, the billing page): an account with one saved card is paid by it, without
    // a call to Stripe (decision 013's budget for the home); only several cards make it ask.
    const cards = await twoSavedCards.execute(deps.db, { userId: subscription.user_id });
    if (cards.length === 1) return savedCard(deps, subscription.user_id, cards[0]!.payment_method_id);
  }
  let paymentMethodId: string | null = null;
  if (subscription.stripe_sub_id) {
    try {
      const atStripe = await retrieveSubscription(deps.gateway, subscription.stripe_sub_id);
      const pm = atStripe.default_payment_method;
      paymentMethodId = typeof pm === "string" ? pm : (pm?.id ?? null);
    } catch (error) {
      // The customer's default card is the answer when Stripe cannot be asked.
      deps.logger.warn(`Card of ${subscription.stripe_sub_id} not read: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return cardById(deps, subscription.user_id, paymentMethodId);
}

/**
 * A card by its pm_... id: our saved row, else Stripe's (the webhook may record a first payment before
 * the page saves its card), else the default card.
 */
export async function cardById(deps: Deps, userId: number, paymentMethodId: string | null): Promise<PayingCard | null> {
  if (paymentMethodId) {
    const saved = await deps.db
      .selectFrom("payment_methods")
      .select("id")
      .where("user_id", "=", userId)
      .where("payment_method_id", "=", paymentMethodId)
      .executeTakeFirst();
    if (!saved) {
      try {
        const details = cardDetails(await retrieveCard(deps.gateway, paymentMethodId));
        if (details) return { paymentMethodId, brand: details.brand, last4: details.last4, expMonth: details.expMonth, expYear: details.expYear };
      } catch (error) {
        deps.logger.warn(`Card ${paymentMethodId} not read: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return savedCard(deps, userId, paymentMethodId);
}

async function savedCard(deps: Pick<Deps, "db">, userId: number, paymentMethodId: string | null): Promise<PayingCard | null> {
  let query = deps.db
    .selectFrom("payment_methods")
    .select(["payment_method_id", "card_brand", "card_last4", "card_exp_month", "card_exp_year"])
    .where("user_id", "=", userId);
  query = paymentMethodId ? query.where("payment_method_id", "=", paymentMethodId) : query.where("is_default", "=", 1);
  const row = await query.executeTakeFirst();
  if (!row) return paymentMethodId ? savedCard(deps, userId, null) : null;
  return {
    paymentMethodId: row.payment_method_id,
    brand: row.card_brand,
    last4: row.card_last4,
    expMonth: row.card_exp_month,
    expYear: row.card_exp_year,
  };
}

/** The card a receipt names: the one the payment names, else the one that pays its subscription. */
export function receiptCard(deps: Deps, userId: number, payment: { paymentMethodId: string | null; stripeSubId: string | null }): Promise<PayingCard | null> {
  return payment.paymentMethodId ? cardById(deps, userId, payment.paymentMethodId) : cardThatPays(deps, { user_id: userId, stripe_sub_id: payment.stripeSubId });
}
