import type { PaymentMethod, User } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import { PAYMENT_MESSAGES, type PaymentsDeps, cardDetails, challengeUrls, ensureCustomer } from "./card-payments";
import { saveCard } from "./records";
import { makeRenewalCard } from "./renewal-card";
import {
  cancelSetupIntent,
  confirmCardSetup,
  detachCard,
  retrieveCard,
  retrieveSetupIntent,
  setCardBillingDetails,
  setCardExpiryAndName,
} from "./stripe/cards";
import { createCardSetupSession, retrieveCardSetupSession } from "./stripe/checkout";
import { type Stripe, isCardError, isInvalidRequest } from "./stripe/client";
import { setCardOfSubscription } from "./stripe/subscriptions";

/*
 * Saved cards (commerce §2 'Payment Method' tab, §4 card rules): list, add, edit, set default,
 * delete, and which card pays the card subscription. Stripe is the card's source of truth: a card is
 * attached to the user's customer with a SetupIntent confirmed with it (or set up on the hosted
 * Checkout page in mode setup), and brand, last four digits and expiry are always read back from
 * Stripe, never taken from the browser. The default card is the customer's
 * invoice_settings.default_payment_method and the card subscription's card too; it cannot be deleted.
 */

export const SAVED_CARD_MESSAGES = {
  listed: "Payment methods.",
  added: "New Payment Method Added Successfully.",
  updated: "Payment Method Updated Successfully.",
  deleted: "Payment Method Deleted Successfully.",
  defaultSet: "Payment Method Set as Defaut Successfully.",
  idRequired: "Payment method ID is required",
  notFound: "This payment method was not found.",
  defaultNotDeletable: "The default card cannot be deleted. Make another card the default first.",
  cardNotUsable: "This card cannot be used. Please enter your card again.",
  needsAuthentication: "Your bank asks to confirm this card. Please try another card.",
  subscriptionUpdated: "Payment method updated successfully",
  subscriptionNotFound: "This subscription was not found.",
  subscriptionNotCard: "Only a card subscription that renews can change its payment method.",
  setupSessionNotFound: "This card setup session was not found.",
  setupIncomplete: "The card was not saved. Please try again.",
  setupNotFound: "This card setup was not found.",
} as const;

export const DEFAULT_PER_PAGE = 6;
export const MAX_PER_PAGE = 100;

const notFound = () => new DomainError("not_found", SAVED_CARD_MESSAGES.notFound);

/** One page of the user's cards, the default first, then the newest. */
export async function listCards(deps: Pick<PaymentsDeps, "db">, userId: number, page: number, perPage: number) {
  const { count } = await deps.db
    .selectFrom("payment_methods")
    .select((eb) => eb.fn.countAll<string | number>().as("count"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  const total = Number(count);
  const cards = await deps.db
    .selectFrom("payment_methods")
    .selectAll()
    .where("user_id", "=", userId)
    .orderBy("is_default", "desc")
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute();
  return {
    cards,
    pagination: { current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total },
  };
}

/** The user's card by our id: 404 for a missing card and for another account's. */
export async function ownCard(deps: Pick<PaymentsDeps, "db">, userId: number, id: number): Promise<PaymentMethod> {
  const card = await deps.db
    .selectFrom("payment_methods")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  if (!card) throw notFound();
  return card;
}

async function cardByPaymentMethod(deps: PaymentsDeps, userId: number, paymentMethodId: string) {
  return deps.db
    .selectFrom("payment_methods")
    .selectAll()
    .where("payment_method_id", "=", paymentMethodId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
}

/**
 * Marks one card the default (only that one): the customer's invoice default at Stripe and the card that
 * pays the account's card subscription (renewal-card.ts: the two are one setting).
 */
export async function setDefaultCard(deps: PaymentsDeps, user: User, id: number): Promise<PaymentMethod> {
  const card = await ownCard(deps, user.id, id);
  const customer = await ensureCustomer(deps, user);
  await makeRenewalCard(deps, user.id, customer, { id: Number(card.id), payment_method_id: card.payment_method_id });
  return ownCard(deps, user.id, id);
}

/**
 * Adds a card the browser made (Stripe.js or the sandbox's tokenizer): attached to the customer with
 * a SetupIntent confirmed with it, then saved from what Stripe says about it. The account's first
 * card becomes its default; `isDefault` makes it the default (the others lose the flag).
 */
export async function addCard(
  deps: PaymentsDeps,
  user: User,
  input: { paymentMethodId: string; billingName?: string; billingPostal?: string; isDefault: boolean; returnUrl?: string },
): Promise<PaymentMethod | CardAuthentication> {
  const customer = await ensureCustomer(deps, user);
  const unusable = () =>
    new DomainError("card_unusable", SAVED_CARD_MESSAGES.cardNotUsable, { field: "payment_method_id" });

  let pm: Stripe.PaymentMethod;
  try {
    pm = await retrieveCard(deps.gateway, input.paymentMethodId);
  } catch (error) {
    if (isInvalidRequest(error)) throw unusable();
    throw error;
  }
  const owner = typeof pm.customer === "string" ? pm.customer : pm.customer?.id;
  if ((owner && owner !== customer) || !pm.card) throw unusable();
  const taken = await deps.db.selectFrom("payment_methods").select("user_id").where("payment_method_id", "=", pm.id).executeTakeFirst();
  if (taken && Number(taken.user_id) !== user.id) throw unusable();

  if (!owner) {
    let intent: Stripe.SetupIntent;
    try {
      intent = await confirmCardSetup(deps.gateway, {
        userId: user.id,
        customer,
        paymentMethodId: pm.id,
        returnUrl: input.returnUrl,
        // What the form said, kept for after the bank's challenge (the card is saved then).
        metadata: {
          ...(input.billingName ? { billing_name: input.billingName } : {}),
          ...(input.billingPostal ? { billing_postal: input.billingPostal } : {}),
          ...(input.isDefault ? { is_default: "1" } : {}),
        },
      });
    } catch (error) {
      if (isCardError(error)) throw new DomainError("card_declined", error.message, { field: "payment_method_id" });
      if (isInvalidRequest(error)) throw unusable();
      throw error;
    }
    if (intent.status === "requires_action") {
      return { status: "requires_action", setupIntent: intent.id, clientSecret: intent.client_secret ?? "", ...challengeUrls(deps, intent.next_action) };
    }
    if (intent.status !== "succeeded") throw new DomainError("card_declined", intent.last_setup_error?.message ?? SAVED_CARD_MESSAGES.cardNotUsable);
  }
  return saveAddedCard(deps, user, pm, input);
}

/** A card waiting for the bank's 3-D Secure challenge before it is saved. */
export type CardAuthentication = {
  status: "requires_action";
  setupIntent: string;
  clientSecret: string;
  redirectUrl: string | null;
  authenticationUrl: string | null;
};

/** Saves an attached card, from what Stripe says about it (the name and postal code are the form's). */
async function saveAddedCard(
  deps: PaymentsDeps,
  user: User,
  attached: Stripe.PaymentMethod,
  input: { billingName?: string; billingPostal?: string; isDefault: boolean },
): Promise<PaymentMethod> {
  const unusable = () =>
    new DomainError("card_unusable", SAVED_CARD_MESSAGES.cardNotUsable, { field: "payment_method_id" });
  let pm = attached;
  const name = input.billingName ?? pm.billing_details?.name ?? undefined;
  const postal = input.billingPostal ?? pm.billing_details?.address?.postal_code ?? undefined;
  if (name !== (pm.billing_details?.name ?? undefined) || postal !== (pm.billing_details?.address?.postal_code ?? undefined)) {
    pm = await setCardBillingDetails(deps.gateway, pm.id, { name, postal });
  } else {
    pm = await retrieveCard(deps.gateway, pm.id);
  }
  const details = cardDetails(pm);
  if (!details) throw unusable();
  await saveCard(deps.db, user.id, details, deps.clock.now(), { recordEvent: false });
  const saved = await cardByPaymentMethod(deps, user.id, pm.id);
  if (!saved) throw unusable();
  if (input.isDefault || saved.is_default === 1) return setDefaultCard(deps, user, Number(saved.id));
  return saved;
}

/**
 * Finishes 'Add card' after the bank's challenge: the SetupIntent is read from Stripe; succeeded, the
 * card is saved (once: again answers the same card); failed or abandoned, it is cancelled and nothing
 * is saved (402 with Stripe's authentication message), so the card can be entered again at once.
 */
export async function finishCardAuthentication(deps: PaymentsDeps, user: User, setupIntentId: string): Promise<PaymentMethod> {
  const missing = () => new DomainError("not_found", SAVED_CARD_MESSAGES.setupNotFound, { field: "setup_intent" });
  let intent: Stripe.SetupIntent;
  try {
    intent = await retrieveSetupIntent(deps.gateway, setupIntentId);
  } catch (error) {
    if (isInvalidRequest(error)) throw missing();
    throw error;
  }
  const customer = typeof intent.customer === "string" ? intent.customer : intent.customer?.id;
  if (!user.stripe_customer_id || customer !== user.stripe_customer_id || Number(intent.metadata?.user_id) !== user.id) throw missing();
  if (intent.status === "requires_action" || intent.status === "requires_payment_method" || intent.status === "requires_confirmation") {
    try {
      intent = await cancelSetupIntent(deps.gateway, intent.id);
    } catch (error) {
      if (!isInvalidRequest(error)) throw error;
      intent = await retrieveSetupIntent(deps.gateway, intent.id);
    }
  }
  const pmId = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
  if (intent.status !== "succeeded" || !pmId) {
    const error = intent.last_setup_error;
    const authentication = !error || error.code === "setup_intent_authentication_failure";
    throw new DomainError("authentication_failed", authentication ? PAYMENT_MESSAGES.authenticationFailed : (error.message ?? PAYMENT_MESSAGES.authenticationFailed));
  }
  return saveAddedCard(deps, user, await retrieveCard(deps.gateway, pmId), {
    billingName: intent.metadata?.billing_name || undefined,
    billingPostal: intent.metadata?.billing_postal || undefined,
    isDefault: intent.metadata?.is_default === "1",
  });
}

/** New expiry and cardholder name, at Stripe first (it checks the expiry), then here. */
export async function updateCardDetails(
  deps: PaymentsDeps,
  userId: number,
  id: number,
  input: { expMonth: number; expYear: number; billingName: string },
): Promise<PaymentMethod> {
  const card = await ownCard(deps, userId, id);
  let pm: Stripe.PaymentMethod;
  try {
    pm = await setCardExpiryAndName(deps.gateway, card.payment_method_id, input);
  } catch (error) {
    if (isCardError(error) || isInvalidRequest(error)) {
      const field = error.param === "exp_month" || error.param === "card[exp_month]" ? "card_exp_month" : "card_exp_year";
      throw new DomainError("card_details_rejected", error.message, { field });
    }
    throw error;
  }
  const details = cardDetails(pm);
  await deps.db
    .updateTable("payment_methods")
    .set({
      card_exp_month: details?.expMonth ?? input.expMonth,
      card_exp_year: details?.expYear ?? input.expYear,
      billing_name: details?.billingName ?? input.billingName,
      updated_at: deps.clock.now().toISOString(),
    })
    .where("id", "=", card.id)
    .execute();
  return ownCard(deps, userId, id);
}

/** Deletes a card that is not the default: detached at Stripe, then removed. */
export async function deleteCard(deps: PaymentsDeps, userId: number, id: number): Promise<void> {
  const card = await ownCard(deps, userId, id);
  if (card.is_default === 1) throw new DomainError("default_card_not_deletable", SAVED_CARD_MESSAGES.defaultNotDeletable);
  try {
    await detachCard(deps.gateway, card.payment_method_id);
  } catch (error) {
    // Already detached (or gone) at Stripe: nothing left to undo there.
    if (!isInvalidRequest(error)) throw error;
  }
  await deps.db.deleteFrom("payment_methods").where("id", "=", card.id).execute();
}

/**
 * Which saved card pays the user's card subscription: Stripe's subscription default_payment_method, and
 * with it the account's default card (one setting: renewal-card.ts).
 * `subscriptionId` is ours (subscriptions.id) or Stripe's (sub_...); `paymentMethodId` a saved card's pm_... id.
 */
export async function updateSubscriptionPaymentMethod(
  deps: PaymentsDeps,
  user: User,
  input: { subscriptionId: string; paymentMethodId: string },
): Promise<void> {
  const userId = user.id;
  const byOurId = /^\d{1,15}$/.test(input.subscriptionId);
  const subscription = await deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("user_id", "=", userId)
    .where(byOurId ? "id" : "stripe_sub_id", "=", byOurId ? Number(input.subscriptionId) : input.subscriptionId)
    .executeTakeFirst();
  if (!subscription) throw new DomainError("not_found", SAVED_CARD_MESSAGES.subscriptionNotFound, { field: "subscriptionId" });
  if (subscription.subscription_by !== "stripe" || !subscription.stripe_sub_id) {
    throw new DomainError("subscription_not_card", SAVED_CARD_MESSAGES.subscriptionNotCard);
  }
  const card = await cardByPaymentMethod(deps, userId, input.paymentMethodId);
  if (!card) throw new DomainError("not_found", SAVED_CARD_MESSAGES.notFound, { field: "paymentMethodId" });
  // This subscription first (the one asked for, refused if Stripe has ended it), then the default everywhere.
  await setCardOfSubscription(deps.gateway, subscription.stripe_sub_id, card.payment_method_id);
  const customer = await ensureCustomer(deps, user);
  await makeRenewalCard(deps, userId, customer, { id: Number(card.id), payment_method_id: card.payment_method_id });
}

/** The hosted page (Checkout in mode setup) where a browser without JavaScript adds a card. */
export async function startSetupSession(deps: PaymentsDeps, user: User): Promise<{ id: string; url: string }> {
  const customer = await ensureCustomer(deps, user);
  const back = `${deps.publicUrl}/billing?tab=payment-method`;
  const session = await createCardSetupSession(deps.gateway, { userId: user.id, customer, returnUrl: back });
  if (!session.url) throw new Error("Stripe answered a Checkout Session without a URL");
  return { id: session.id, url: session.url };
}

/** Saves the card a completed setup session attached (once: the same session again answers the same card). */
export async function completeSetupSession(deps: PaymentsDeps, user: User, sessionId: string): Promise<PaymentMethod> {
  const missing = () =>
    new DomainError("not_found", SAVED_CARD_MESSAGES.setupSessionNotFound, { field: "sessionId" });
  let session: Stripe.Checkout.Session;
  try {
    session = await retrieveCardSetupSession(deps.gateway, sessionId);
  } catch (error) {
    if (isInvalidRequest(error)) throw missing();
    throw error;
  }
  if (session.mode !== "setup" || Number(session.metadata?.user_id) !== user.id) throw missing();
  const intent = session.setup_intent;
  if (session.status !== "complete" || !intent || typeof intent === "string") {
    throw new DomainError("setup_incomplete", SAVED_CARD_MESSAGES.setupIncomplete);
  }
  const pmId = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
  if (!pmId || intent.status !== "succeeded") throw new DomainError("setup_incomplete", SAVED_CARD_MESSAGES.setupIncomplete);
  const details = cardDetails(await retrieveCard(deps.gateway, pmId));
  if (!details) throw new DomainError("setup_incomplete", SAVED_CARD_MESSAGES.setupIncomplete);
  await saveCard(deps.db, user.id, details, deps.clock.now(), { recordEvent: false });
  const saved = await cardByPaymentMethod(deps, user.id, pmId);
  if (!saved) throw missing();
  if (saved.is_default === 1) return setDefaultCard(deps, user, Number(saved.id));
  return saved;
}
