import { z } from "zod";
import { useTaxCalculation } from "./tax-calculations";
import { CARD_MESSAGES, declineError, declineFor, isExpired } from "./cards";
import { type Ops, previousAttributes } from "./context";
import { attachPaymentMethod, paymentMethodFor } from "./customers";
import { markSetUp, needsAuthentication, nextActionFor } from "./authentication";
import { type SandboxError, cardError, invalidRequest, unexpectedState } from "./errors";
import { newId, randomToken } from "./ids";
import type { SbAutomaticPaymentMethods, SbCharge, SbPaymentIntent, SbPaymentMethod, SbRefund, SbSetupIntent } from "./objects";
import { applyMetadata, onlyOneOf, zBool, zCurrency, zInt, zList, zMetadata, zText, zUrl } from "./params";

/* PaymentIntents, their charges, refunds, and SetupIntents. */

const zFutureUsage = z.union([z.enum(["off_session", "on_session"]), z.literal("").transform(() => null)]);
/** `off_session` is a boolean, or "one_off" / "recurring". */
const zOffSession = z.union([zBool, z.enum(["one_off", "recurring"]).transform(() => true)]);
/** The sandbox's Dashboard offers cards only, but a confirm is held to Stripe's rule all the same (requireReturnUrl). */
const zAutomaticPaymentMethods = z.strictObject({ enabled: zBool, allow_redirects: z.enum(["always", "never"]).optional() });

/**
 * automatic_payment_methods as Stripe sets it: as sent; else, since API version 2023-08-16, enabled with
 * redirects allowed for an intent made without a list of payment method types (payment_method_types
 * then, allowed_payment_method_types in this API version); else null.
 */
function automaticPaymentMethods(p: {
  allowed_payment_method_types?: string[];
  automatic_payment_methods?: z.output<typeof zAutomaticPaymentMethods>;
}): SbAutomaticPaymentMethods | null {
  const sent = p.automatic_payment_methods;
  if (sent) return sent.enabled ? { allow_redirects: sent.allow_redirects ?? "always", enabled: true } : { enabled: false };
  return p.allowed_payment_method_types ? null : { allow_redirects: "always", enabled: true };
}

/**
 * Stripe refuses to confirm an intent that may take a redirecting payment method without a way back
 * (a 400 before anything runs, so no answer is kept under the Idempotency-Key), even for a card.
 */
function requireReturnUrl(automatic: SbAutomaticPaymentMethods | null, returnUrl: string | undefined, what: "Payment Intent" | "Setup Intent") {
  if (!automatic?.enabled || automatic.allow_redirects === "never" || returnUrl) return;
  throw invalidRequest(
    `A \`return_url\` must be specified because this ${what} is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set \`automatic_payment_methods[enabled]\` to \`true\` and \`automatic_payment_methods[allow_redirects]\` to \`never\` when creating Setup Intents and Payment Intents.`,
    { validation: true },
  );
}

/** Stripe's smallest charge in US dollars. */
const MIN_AMOUNT = 50;
const MAX_AMOUNT = 99_999_999;

export const paymentIntentCreateParams = z.strictObject({
  amount: zInt,
  currency: zCurrency,
  customer: zText.optional(),
  payment_method: zText.optional(),
  confirm: zBool.optional(),
  off_session: zOffSession.optional(),
  setup_future_usage: zFutureUsage.optional(),
  // This API version's list of methods (payment_method_types is no longer a parameter).
  allowed_payment_method_types: zList(z.string()).optional(),
  automatic_payment_methods: zAutomaticPaymentMethods.optional(),
  metadata: zMetadata.optional(),
  description: zText.optional(),
  receipt_email: zText.optional(),
  // 3-D Secure: where the challenge sends the customer back (redirect_to_url), or Stripe.js handles it.
  return_url: zUrl.optional(),
  use_stripe_sdk: zBool.optional(),
  // Stripe Tax's calculation this intent charges (tax-calculations.ts): its amount must be the calculation's total.
  hooks: z.strictObject({ inputs: z.strictObject({ tax: z.strictObject({ calculation: z.string().min(1) }) }) }).optional(),
});

export const paymentIntentUpdateParams = z.strictObject({
  amount: zInt.optional(),
  payment_method: zText.optional(),
  setup_future_usage: zFutureUsage.optional(),
  metadata: zMetadata.optional(),
  description: zText.optional(),
  receipt_email: zText.optional(),
});

export const paymentIntentConfirmParams = z.strictObject({
  payment_method: zText.optional(),
  off_session: zOffSession.optional(),
  return_url: zUrl.optional(),
  use_stripe_sdk: zBool.optional(),
});

export const paymentIntentCancelParams = z.strictObject({
  cancellation_reason: z.enum(["duplicate", "fraudulent", "requested_by_customer", "abandoned"]).optional(),
});

function checkAmount(amount: number): void {
  if (amount < MIN_AMOUNT) {
    throw invalidRequest("Amount must be at least $0.50 usd", { param: "amount", code: "amount_too_small" });
  }
  if (amount > MAX_AMOUNT) {
    throw invalidRequest("Amount must be no more than $999,999.99", { param: "amount", code: "amount_too_large" });
  }
}

/** A new PaymentIntent (not stored). */
export function newPaymentIntent(
  ops: Ops,
  fields: Pick<SbPaymentIntent, "amount" | "currency" | "customer" | "description" | "payment_method" | "setup_future_usage"> &
    Partial<Pick<SbPaymentIntent, "metadata" | "receipt_email" | "allowed_payment_method_types" | "automatic_payment_methods" | "_invoice">>,
): SbPaymentIntent {
  const id = newId("pi_");
  return {
    id,
    object: "payment_intent",
    created: ops.now,
    livemode: false,
    amount: fields.amount,
    allowed_payment_method_types: fields.allowed_payment_method_types ?? null,
    amount_capturable: 0,
    amount_received: 0,
    // An invoice's intent takes the invoice's payment settings, not automatic payment methods.
    automatic_payment_methods: fields.automatic_payment_methods ?? null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: "automatic",
    client_secret: `${id}_secret_${randomToken(24)}`,
    confirmation_method: "automatic",
    currency: fields.currency,
    customer: fields.customer,
    description: fields.description,
    last_payment_error: null,
    latest_charge: null,
    metadata: fields.metadata ?? {},
    next_action: null,
    payment_method: fields.payment_method,
    // The methods it can take: the sandbox offers cards only.
    payment_method_types: ["card"],
    receipt_email: fields.receipt_email ?? null,
    setup_future_usage: fields.setup_future_usage,
    status: fields.payment_method ? "requires_confirmation" : "requires_payment_method",
    ...(fields._invoice ? { _invoice: fields._invoice } : {}),
  };
}

export async function createPaymentIntent(ops: Ops, p: z.output<typeof paymentIntentCreateParams>): Promise<SbPaymentIntent> {
  checkAmount(p.amount);
  const customer = p.customer ? (await ops.store.require("customer", p.customer, "customer")).id : null;
  if (p.payment_method) await paymentMethodFor(ops, p.payment_method, customer, "payment_method");
  if (p.confirm && !p.payment_method) {
    throw unexpectedState(
      "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with the customer, provide payment_method.",
      "payment_method",
    );
  }
  if (p.off_session && !p.confirm) {
    throw invalidRequest("off_session may only be used when confirm=true.", { param: "off_session" });
  }
  const automatic = automaticPaymentMethods(p);
  if (p.confirm) requireReturnUrl(automatic, p.return_url, "Payment Intent");
  const intent = newPaymentIntent(ops, {
    amount: p.amount,
    currency: p.currency,
    customer,
    description: p.description ?? null,
    payment_method: p.payment_method ?? null,
    setup_future_usage: p.setup_future_usage ?? null,
    metadata: applyMetadata({}, p.metadata),
    receipt_email: p.receipt_email ?? null,
    automatic_payment_methods: automatic,
    ...(p.allowed_payment_method_types ? { allowed_payment_method_types: p.allowed_payment_method_types } : {}),
  });
  if (p.hooks) {
    await useTaxCalculation(ops, p.hooks.inputs.tax.calculation, intent);
    intent.hooks = { inputs: { tax: { calculation: p.hooks.inputs.tax.calculation } } };
  }
  await ops.store.insert("payment_intent", intent);
  if (p.confirm) return confirmPaymentIntent(ops, intent.id, { off_session: p.off_session, return_url: p.return_url });
  return intent;
}

export async function updatePaymentIntent(ops: Ops, id: string, p: z.output<typeof paymentIntentUpdateParams>): Promise<SbPaymentIntent> {
  const intent = await ops.store.require("payment_intent", id);
  if (intent.status === "succeeded" || intent.status === "canceled") {
    if (p.amount !== undefined || p.payment_method !== undefined) {
      throw unexpectedState(`This PaymentIntent's amount could not be updated because it has a status of ${intent.status}.`);
    }
  }
  if (p.amount !== undefined) {
    if (intent._invoice) throw invalidRequest("The amount of a PaymentIntent created by an invoice cannot be updated.", { param: "amount" });
    checkAmount(p.amount);
    intent.amount = p.amount;
  }
  if (p.payment_method !== undefined) {
    if (p.payment_method) await paymentMethodFor(ops, p.payment_method, intent.customer, "payment_method");
    intent.payment_method = p.payment_method;
    intent.status = p.payment_method ? "requires_confirmation" : "requires_payment_method";
  }
  if (p.setup_future_usage !== undefined) intent.setup_future_usage = p.setup_future_usage;
  if (p.description !== undefined) intent.description = p.description;
  if (p.receipt_email !== undefined) intent.receipt_email = p.receipt_email;
  intent.metadata = applyMetadata(intent.metadata, p.metadata);
  await ops.store.save("payment_intent", intent);
  return intent;
}

/**
 * Confirms (charges) a PaymentIntent that does not belong to an invoice; a decline throws its card_error.
 * A card that asks for 3-D Secure answers the intent in requires_action (off-session: the card error
 * authentication_required).
 */
export async function confirmPaymentIntent(ops: Ops, id: string, p: z.output<typeof paymentIntentConfirmParams>): Promise<SbPaymentIntent> {
  const intent = await ops.store.require("payment_intent", id);
  if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation" && intent.status !== "requires_action") {
    throw unexpectedState(
      `You cannot confirm this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.`,
    );
  }
  requireReturnUrl(intent.automatic_payment_methods ?? null, p.return_url, "Payment Intent");
  const pmId = p.payment_method ?? intent.payment_method;
  if (!pmId) {
    throw unexpectedState(
      "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with the customer, provide payment_method.",
      "payment_method",
    );
  }
  const pm = await paymentMethodFor(ops, pmId, intent.customer, "payment_method");
  const offSession = p.off_session === true;
  const result = await chargeIntent(ops, intent, pm, { offSession, returnUrl: p.return_url ?? null });
  if (!result.ok) {
    if (result.needsAction && !offSession) return result.intent;
    throw result.error;
  }
  return result.intent;
}

export async function cancelPaymentIntent(ops: Ops, id: string, p: z.output<typeof paymentIntentCancelParams>): Promise<SbPaymentIntent> {
  const intent = await ops.store.require("payment_intent", id);
  if (intent._invoice) {
    throw invalidRequest("You cannot cancel this PaymentIntent because it was created by an invoice.");
  }
  if (intent.status === "succeeded" || intent.status === "canceled") {
    throw unexpectedState(
      `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
    );
  }
  intent.status = "canceled";
  intent.canceled_at = ops.now;
  intent.cancellation_reason = p.cancellation_reason ?? null;
  await ops.store.save("payment_intent", intent);
  await ops.emit("payment_intent.canceled", intent);
  return intent;
}

export type ChargeResult =
  | { ok: true; intent: SbPaymentIntent; charge: SbCharge }
  /** needsAction: the card asks for 3-D Secure (the intent is requires_action; error is authentication_required). */
  | { ok: false; intent: SbPaymentIntent; charge: SbCharge | null; error: SandboxError; needsAction: boolean };

export interface ChargeOptions {
  /** The customer is not there to authenticate (renewals, off_session=true). */
  offSession: boolean;
  /** The confirm's return_url: the challenge's next_action is then a redirect. */
  returnUrl?: string | null;
  /** Set by the challenge page: the customer has just authenticated, so the card is charged now. */
  authenticated?: boolean;
}

/** The card asks for 3-D Secure: the intent waits in requires_action for the challenge page. */
async function requireAction(ops: Ops, intent: SbPaymentIntent, pm: SbPaymentMethod, opts: ChargeOptions): Promise<ChargeResult> {
  const renderedPm = await ops.render(pm);
  const updated: SbPaymentIntent = {
    ...intent,
    payment_method: pm.id,
    status: "requires_action",
    next_action: nextActionFor(ops, intent.id, intent.client_secret, opts.returnUrl),
    last_payment_error: opts.offSession
      ? {
          type: "card_error",
          code: "authentication_required",
          decline_code: "authentication_required",
          message: CARD_MESSAGES.authenticationRequired,
          doc_url: "https://docs.stripe.com/error-codes/authentication-required",
          payment_method: renderedPm,
        }
      : null,
  };
  await ops.store.save("payment_intent", updated);
  await ops.emit("payment_intent.requires_action", updated);
  if (opts.offSession) await ops.emit("payment_intent.payment_failed", updated);
  const error = cardError("authentication_required", CARD_MESSAGES.authenticationRequired, {
    decline_code: "authentication_required",
    payment_intent: await ops.render(updated),
    payment_method: renderedPm,
  });
  return { ok: false, intent: updated, charge: null, error, needsAction: true };
}

/**
 * Charges `pm` for an intent: a charge (succeeded or failed), the intent updated, and its event.
 * On success the card is saved to the intent's customer (setup_future_usage, or any customer: the
 * product's saved cards are those that paid). Never throws for a decline: it returns the card_error.
 */
export async function chargeIntent(ops: Ops, intent: SbPaymentIntent, pm: SbPaymentMethod, opts: ChargeOptions): Promise<ChargeResult> {
  const authenticated = opts.authenticated === true || ops.authenticated.has(pm.id);
  // An expired card is declined before any bank would ask for authentication.
  const expired = isExpired(pm.card.exp_month, pm.card.exp_year, ops.nowDate);
  if (!authenticated && !expired && (await needsAuthentication(ops.store, pm, opts.offSession))) return requireAction(ops, intent, pm, opts);
  const decline = declineFor(pm.card, ops.nowDate);
  const charge: SbCharge = {
    id: newId("ch_"),
    object: "charge",
    created: ops.now,
    livemode: false,
    amount: intent.amount,
    amount_captured: decline ? 0 : intent.amount,
    amount_refunded: 0,
    billing_details: pm.billing_details,
    captured: !decline,
    currency: intent.currency,
    customer: intent.customer,
    description: intent.description,
    failure_code: decline?.code ?? null,
    failure_message: decline?.message ?? null,
    metadata: intent.metadata,
    outcome: decline
      ? {
          network_status: "declined_by_network",
          reason: decline.decline_code,
          risk_level: "normal",
          seller_message: "The bank did not return any further details with this decline.",
          type: "issuer_declined",
        }
      : {
          network_status: "approved_by_network",
          reason: null,
          risk_level: "normal",
          seller_message: "Payment complete.",
          type: "authorized",
        },
    paid: !decline,
    payment_intent: intent.id,
    payment_method: pm.id,
    payment_method_details: {
      type: "card",
      card: {
        brand: pm.card.brand,
        last4: pm.card.last4,
        exp_month: pm.card.exp_month,
        exp_year: pm.card.exp_year,
        funding: pm.card.funding,
        country: pm.card.country,
      },
    },
    receipt_email: intent.receipt_email,
    receipt_url: null,
    refunded: false,
    status: decline ? "failed" : "succeeded",
  };
  await ops.store.insert("charge", charge);
  const updated: SbPaymentIntent = { ...intent, payment_method: pm.id, latest_charge: charge.id, next_action: null };
  if (!decline) {
    if (updated.customer && !pm.customer) await attachPaymentMethod(ops, pm.id, updated.customer);
    // Authenticated while saving the card (or paying a subscription's invoice): later off-session charges need no challenge.
    if (authenticated && (updated.setup_future_usage || updated._invoice)) await markSetUp(ops, pm.id);
    updated.status = "succeeded";
    updated.amount_received = updated.amount;
    updated.last_payment_error = null;
    await ops.store.save("payment_intent", updated);
    await ops.emit("payment_intent.succeeded", updated);
    return { ok: true, intent: updated, charge };
  }
  const renderedPm = await ops.render(pm);
  updated.status = "requires_payment_method";
  updated.last_payment_error = {
    type: "card_error",
    code: decline.code,
    decline_code: decline.decline_code,
    message: decline.message,
    charge: charge.id,
    doc_url: `https://docs.stripe.com/error-codes/${decline.code.replace(/_/g, "-")}`,
    payment_method: renderedPm,
  };
  await ops.store.save("payment_intent", updated);
  await ops.emit("payment_intent.payment_failed", updated);
  const error = declineError(decline, { charge: charge.id, payment_intent: await ops.render(updated), payment_method: renderedPm });
  return { ok: false, intent: updated, charge, error, needsAction: false };
}

// Refunds ---------------------------------------------------------------------------------------

export const refundCreateParams = z.strictObject({
  payment_intent: zText.optional(),
  charge: zText.optional(),
  amount: zInt.pipe(z.number().min(1)).optional(),
  reason: z.enum(["duplicate", "fraudulent", "requested_by_customer"]).optional(),
  metadata: zMetadata.optional(),
});

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export async function createRefund(ops: Ops, p: z.output<typeof refundCreateParams>): Promise<SbRefund> {
  onlyOneOf({ charge: p.charge, payment_intent: p.payment_intent });
  let charge: SbCharge;
  if (p.payment_intent) {
    const intent = await ops.store.require("payment_intent", p.payment_intent, "payment_intent");
    const latest = intent.status === "succeeded" && intent.latest_charge ? await ops.store.get("charge", intent.latest_charge) : undefined;
    if (!latest) {
      throw invalidRequest(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`, {
        param: "payment_intent",
        code: "charge_not_refundable",
      });
    }
    charge = latest;
  } else if (p.charge) {
    charge = await ops.store.require("charge", p.charge, "charge");
  } else {
    throw invalidRequest("One of the following params should be provided for this request: payment_intent or charge.", {
      code: "parameter_missing",
    });
  }
  if (charge.status !== "succeeded") {
    throw invalidRequest(`Charge ${charge.id} cannot be refunded: it did not succeed.`, { code: "charge_not_refundable" });
  }
  const refundable = charge.amount - charge.amount_refunded;
  if (refundable <= 0) throw invalidRequest(`Charge ${charge.id} has already been refunded.`, { code: "charge_already_refunded" });
  const amount = p.amount ?? refundable;
  if (amount > refundable) {
    throw invalidRequest(
      `Refund amount (${dollars(amount)}) is greater than unrefunded amount on charge (${dollars(refundable)})`,
      { param: "amount" },
    );
  }
  const refund: SbRefund = {
    id: newId("re_"),
    object: "refund",
    created: ops.now,
    amount,
    charge: charge.id,
    customer: charge.customer,
    payment_method: charge.payment_method,
    currency: charge.currency,
    payment_intent: charge.payment_intent,
    reason: p.reason ?? null,
    status: "succeeded",
    metadata: applyMetadata({}, p.metadata),
  };
  await ops.store.insert("refund", refund);
  const refunded: SbCharge = { ...charge, amount_refunded: charge.amount_refunded + amount };
  refunded.refunded = refunded.amount_refunded === refunded.amount;
  await ops.store.save("charge", refunded);
  // Both events, in the order Stripe sends them for a card refund: the charge, then the refund (refund.created
  // comes for every refund since API version 2024-10-28.acacia).
  await ops.emit("charge.refunded", refunded, previousAttributes(charge, refunded));
  await ops.emit("refund.created", refund);
  return refund;
}

// SetupIntents ----------------------------------------------------------------------------------

export const setupIntentCreateParams = z.strictObject({
  customer: zText.optional(),
  payment_method: zText.optional(),
  confirm: zBool.optional(),
  usage: z.enum(["off_session", "on_session"]).optional(),
  allowed_payment_method_types: zList(z.string()).optional(),
  automatic_payment_methods: zAutomaticPaymentMethods.optional(),
  description: zText.optional(),
  metadata: zMetadata.optional(),
  return_url: zUrl.optional(),
  use_stripe_sdk: zBool.optional(),
});

export const setupIntentConfirmParams = z.strictObject({
  payment_method: zText.optional(),
  return_url: zUrl.optional(),
  use_stripe_sdk: zBool.optional(),
});

export async function createSetupIntent(ops: Ops, p: z.output<typeof setupIntentCreateParams>): Promise<SbSetupIntent> {
  const customer = p.customer ? (await ops.store.require("customer", p.customer, "customer")).id : null;
  if (p.payment_method) await paymentMethodFor(ops, p.payment_method, customer, "payment_method");
  const automatic = automaticPaymentMethods(p);
  if (p.confirm) requireReturnUrl(automatic, p.return_url, "Setup Intent");
  const id = newId("seti_");
  const intent: SbSetupIntent = {
    id,
    object: "setup_intent",
    created: ops.now,
    livemode: false,
    automatic_payment_methods: automatic,
    cancellation_reason: null,
    client_secret: `${id}_secret_${randomToken(24)}`,
    customer,
    description: p.description ?? null,
    last_setup_error: null,
    latest_attempt: null,
    next_action: null,
    payment_method: p.payment_method ?? null,
    allowed_payment_method_types: p.allowed_payment_method_types ?? null,
    payment_method_types: ["card"],
    status: p.payment_method ? "requires_confirmation" : "requires_payment_method",
    usage: p.usage ?? "off_session",
    metadata: applyMetadata({}, p.metadata),
  };
  await ops.store.insert("setup_intent", intent);
  if (p.confirm) return confirmSetupIntent(ops, id, { return_url: p.return_url });
  return intent;
}

/**
 * Saves the card for later: any test card that has not expired succeeds (they decline only when
 * charged), once authenticated when the card asks for 3-D Secure (requires_action until then).
 */
export async function confirmSetupIntent(ops: Ops, id: string, p: z.output<typeof setupIntentConfirmParams>): Promise<SbSetupIntent> {
  const intent = await ops.store.require("setup_intent", id);
  if (intent.status !== "requires_payment_method" && intent.status !== "requires_confirmation" && intent.status !== "requires_action") {
    throw invalidRequest(`You cannot confirm this SetupIntent because it has a status of ${intent.status}.`, {
      code: "setup_intent_unexpected_state",
    });
  }
  requireReturnUrl(intent.automatic_payment_methods ?? null, p.return_url, "Setup Intent");
  const pmId = p.payment_method ?? intent.payment_method;
  if (!pmId) {
    throw invalidRequest("You cannot confirm this SetupIntent because it's missing a payment method.", {
      param: "payment_method",
      code: "setup_intent_unexpected_state",
    });
  }
  const pm = await paymentMethodFor(ops, pmId, intent.customer, "payment_method");
  intent.payment_method = pm.id;
  if (isExpired(pm.card.exp_month, pm.card.exp_year, ops.nowDate)) {
    intent.status = "requires_payment_method";
    intent.last_setup_error = { type: "card_error", code: "expired_card", decline_code: "expired_card", message: CARD_MESSAGES.expired };
    await ops.store.save("setup_intent", intent);
    throw cardError("expired_card", CARD_MESSAGES.expired, { decline_code: "expired_card", setup_intent: await ops.render(intent) });
  }
  if (!ops.authenticated.has(pm.id) && (await needsAuthentication(ops.store, pm, false))) {
    intent.status = "requires_action";
    intent.next_action = nextActionFor(ops, intent.id, intent.client_secret, p.return_url);
    intent.last_setup_error = null;
    await ops.store.save("setup_intent", intent);
    await ops.emit("setup_intent.requires_action", intent);
    return intent;
  }
  return succeedSetupIntent(ops, intent, pm);
}

/** The card is saved (attached to the intent's customer) and set up for off-session charges. */
export async function succeedSetupIntent(ops: Ops, intent: SbSetupIntent, pm: SbPaymentMethod): Promise<SbSetupIntent> {
  if (intent.customer && !pm.customer) await attachPaymentMethod(ops, pm.id, intent.customer);
  await markSetUp(ops, pm.id);
  intent.status = "succeeded";
  intent.next_action = null;
  intent.last_setup_error = null;
  await ops.store.save("setup_intent", intent);
  await ops.emit("setup_intent.succeeded", intent);
  return intent;
}
