import { z } from "zod";
import { taxOfCustomer, totalTaxesOf } from "./tax";
import { CARD_MESSAGES, authenticationOf, checkCard, declineError, declineFor } from "./cards";
import { applyCoupons, createDiscounts, createPrice, resolveDiscounts, zDiscounts } from "./catalog";
import { createSubscription } from "./billing";
import type { Ops } from "./context";
import { attachPaymentMethod, createCustomer, createPaymentMethod } from "./customers";
import { cardError, invalidRequest } from "./errors";
import { newId } from "./ids";
import type { SbCheckoutLineItem, SbCheckoutSession, SbPrice } from "./objects";
import { applyMetadata, onlyOneOf, zBool, zCurrency, zInt, zList, zListParams, zMetadata, zText, zUrl } from "./params";
import { createPaymentIntent, createSetupIntent } from "./payments";
import type { SandboxStore } from "./store";

/* Checkout Sessions: made through the API, paid on the hosted page (browser.ts). */

/** How long a session stays open (Stripe's default). */
const SESSION_LIFETIME_S = 24 * 3600;

export const checkoutSessionCreateParams = z.strictObject({
  mode: z.enum(["payment", "subscription", "setup"]),
  customer: zText.optional(),
  customer_email: zText.optional(),
  line_items: zList(
    z.strictObject({
      price: zText.optional(),
      quantity: zInt.pipe(z.number().min(1)).optional(),
      price_data: z
        .strictObject({
          currency: zCurrency,
          unit_amount: zInt.pipe(z.number().min(0)),
          product: zText.optional(),
          product_data: z.strictObject({ name: z.string().min(1) }).optional(),
          recurring: z
            .strictObject({
              interval: z.enum(["day", "week", "month", "year"]),
              interval_count: zInt.pipe(z.number().min(1)).optional(),
            })
            .optional(),
        })
        .optional(),
    }),
  ).optional(),
  discounts: zDiscounts.optional(),
  automatic_tax: z.strictObject({ enabled: zBool }).optional(),
  success_url: zUrl,
  cancel_url: zUrl.optional(),
  client_reference_id: zText.optional(),
  currency: zCurrency.optional(),
  expires_at: zInt.optional(),
  metadata: zMetadata.optional(),
  subscription_data: z.strictObject({ metadata: zMetadata.optional(), description: zText.optional() }).optional(),
  payment_intent_data: z
    .strictObject({
      metadata: zMetadata.optional(),
      description: zText.optional(),
      setup_future_usage: z.enum(["off_session", "on_session"]).optional(),
    })
    .optional(),
});

export const checkoutSessionListParams = z.strictObject({
  customer: z.string().optional(),
  subscription: z.string().optional(),
  payment_intent: z.string().optional(),
  status: z.enum(["open", "complete", "expired"]).optional(),
  ...zListParams,
});

async function linePrice(ops: Ops, item: NonNullable<z.output<typeof checkoutSessionCreateParams>["line_items"]>[number]): Promise<SbPrice> {
  onlyOneOf({ "line_items[0][price]": item.price, "line_items[0][price_data]": item.price_data });
  if (item.price) return ops.store.require("price", item.price, "line_items[0][price]");
  const data = item.price_data;
  if (!data) throw invalidRequest("Missing required param: line_items[0][price].", { param: "line_items[0][price]", code: "parameter_missing" });
  return createPrice(ops, {
    currency: data.currency,
    unit_amount: data.unit_amount,
    ...(data.product ? { product: data.product } : {}),
    ...(data.product_data ? { product_data: { name: data.product_data.name } } : {}),
    ...(data.recurring ? { recurring: data.recurring } : {}),
  });
}

export async function createCheckoutSession(ops: Ops, p: z.output<typeof checkoutSessionCreateParams>): Promise<SbCheckoutSession> {
  onlyOneOf({ customer: p.customer, customer_email: p.customer_email });
  const customer = p.customer ? await ops.store.require("customer", p.customer, "customer") : null;
  const items = p.line_items ?? [];
  if (p.mode === "setup" && items.length > 0) {
    throw invalidRequest("You cannot pass `line_items` in `setup` mode.", { param: "line_items" });
  }
  if (p.mode !== "setup" && items.length === 0) {
    throw invalidRequest(`\`line_items\` is required in \`${p.mode}\` mode.`, { param: "line_items", code: "parameter_missing" });
  }
  if (items.length > 1) throw invalidRequest("The Stripe sandbox supports one line item per session.", { param: "line_items" });

  const id = newId("cs_test_", 40);
  let lineItems: SbCheckoutLineItem[] = [];
  let amountSubtotal: number | null = null;
  let amountTotal: number | null = null;
  let amountTax = 0;
  // Stripe Tax by the customer's address and tax ids (tax.ts); a session without a customer has no address yet.
  const taxed = p.automatic_tax?.enabled && customer ? taxOfCustomer(ops.taxRates, customer) : null;
  let currency = p.currency ?? null;
  const specs = await resolveDiscounts(ops, p.discounts, customer?.id ?? null);
  const first = items[0];
  if (first) {
    const price = await linePrice(ops, first);
    if (p.mode === "subscription" && price.type !== "recurring") {
      throw invalidRequest("You must provide at least one recurring price in `subscription` mode when using prices.", {
        param: "line_items[0][price]",
      });
    }
    if (p.mode === "payment" && price.type === "recurring") {
      throw invalidRequest(
        "You specified `payment` mode but passed a recurring price. Either switch to `subscription` mode or use only one-time prices.",
        { param: "line_items[0][price]" },
      );
    }
    const quantity = first.quantity ?? 1;
    const product = await ops.store.get("product", price.product);
    amountSubtotal = price.unit_amount * quantity;
    const net = applyCoupons(
      amountSubtotal,
      specs.map((s) => s.coupon),
    ).total;
    amountTax = taxed ? totalTaxesOf(net, taxed).reduce((sum, t) => sum + t.amount, 0) : 0;
    amountTotal = net + amountTax;
    currency = price.currency;
    lineItems = [
      {
        id: newId("li_"),
        object: "item",
        amount_discount: amountSubtotal - net,
        amount_subtotal: amountSubtotal,
        amount_tax: amountTax,
        amount_total: amountTotal,
        currency: price.currency,
        description: product?.name ?? price.product,
        price,
        quantity,
      },
    ];
  }
  const session: SbCheckoutSession = {
    id,
    object: "checkout.session",
    created: ops.now,
    livemode: false,
    amount_subtotal: amountSubtotal,
    amount_total: amountTotal,
    cancel_url: p.cancel_url ?? null,
    client_reference_id: p.client_reference_id ?? null,
    currency,
    customer: customer?.id ?? null,
    customer_details: null,
    customer_email: p.customer_email ?? null,
    discounts: specs.map((s) => ({ coupon: s.promotion ? null : s.coupon.id, promotion_code: s.promotion?.id ?? null })),
    expires_at: p.expires_at ?? ops.now + SESSION_LIFETIME_S,
    invoice: null,
    line_items: { object: "list", data: lineItems, has_more: false, url: `/v1/checkout/sessions/${id}/line_items` },
    metadata: applyMetadata({}, p.metadata),
    mode: p.mode,
    payment_intent: null,
    payment_method_types: ["card"],
    payment_status: "unpaid",
    setup_intent: null,
    status: "open",
    subscription: null,
    success_url: p.success_url,
    total_details: {
      amount_discount: (amountSubtotal ?? 0) - ((amountTotal ?? 0) - amountTax),
      amount_shipping: 0,
      amount_tax: amountTax,
    },
    automatic_tax: p.automatic_tax?.enabled
      ? { enabled: true, liability: { type: "self" }, provider: "stripe", status: "complete" }
      : { enabled: false, liability: null, provider: null, status: null },
    url: `${ops.publicUrl}/dev/stripe/checkout/${id}`,
    _subscription_data: {
      metadata: applyMetadata({}, p.subscription_data?.metadata),
      description: p.subscription_data?.description ?? null,
    },
    _payment_intent_data: {
      metadata: applyMetadata({}, p.payment_intent_data?.metadata),
      description: p.payment_intent_data?.description ?? null,
      setup_future_usage: p.payment_intent_data?.setup_future_usage ?? null,
    },
  };
  await ops.store.insert("checkout_session", session);
  return session;
}

/** Open, unless completed, expired, or past its expiry time (advance() may not have run yet). */
export function sessionState(session: SbCheckoutSession, now: number): SbCheckoutSession["status"] {
  if (session.status === "open" && now >= session.expires_at) return "expired";
  return session.status;
}

/** Where the browser goes after paying. */
export function successRedirect(session: SbCheckoutSession): string {
  return session.success_url.replace(/\{CHECKOUT_SESSION_ID\}/g, session.id);
}

/** What the hosted page's card form sent, already checked for blanks. */
export interface CardForm {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
  postalCode: string;
}

export type CheckoutOutcome =
  | { kind: "paid"; session: SbCheckoutSession }
  | { kind: "closed"; session: SbCheckoutSession }
  /** The card asks for 3-D Secure: the browser goes to the challenge, which comes back to /return. */
  | { kind: "authenticate"; session: SbCheckoutSession; url: string };

/** A session waiting for 3-D Secure: the card and the SetupIntent that authenticates it (a bookkeeping row). */
interface PendingAuthentication {
  setup_intent: string;
  payment_method: string;
  name: string;
  postal_code: string;
}

const pendingRowId = (session: string) => `checkout_authentication:${session}`;

/**
 * Pays a session with a card from the hosted page. A bad card or a decline throws its card_error
 * before anything is made, so a refused card leaves the session open and nothing active. A session
 * already completed (a second submit) is answered as paid without charging again.
 */
export async function completeCheckoutSession(ops: Ops, id: string, card: CardForm): Promise<CheckoutOutcome> {
  const session = await ops.store.require("checkout_session", id);
  if (session.status === "complete") return { kind: "paid", session };
  if (sessionState(session, ops.now) !== "open") return { kind: "closed", session };

  const checked = checkCard({ number: card.number, exp_month: card.expMonth, exp_year: card.expYear, cvc: card.cvc }, ops.nowDate);
  if (session.mode !== "setup") {
    const decline = declineFor({ brand: checked.test.brand, last4: checked.test.last4, exp_month: checked.exp_month, exp_year: checked.exp_year }, ops.nowDate);
    if (decline) throw declineError(decline);
  }

  const email = session.customer ? ((await ops.store.get("customer", session.customer))?.email ?? null) : (session.customer_email ?? null);
  // A card that asks for 3-D Secure is authenticated first (a SetupIntent and the challenge page),
  // before anything the product sees is made; the challenge comes back to /return, which finishes.
  if (authenticationOf(checked.test) !== "never") {
    const pm = await createPaymentMethod(ops, {
      type: "card",
      card: { number: card.number, exp_month: String(card.expMonth), exp_year: String(card.expYear), cvc: card.cvc },
      billing_details: { name: card.name, email, address: { postal_code: card.postalCode } },
    });
    // Checkout's own intents name their payment methods (the session's): no automatic_payment_methods.
    const setup = await createSetupIntent(ops, {
      payment_method: pm.id,
      allowed_payment_method_types: ["card"],
      confirm: true,
      usage: session.mode === "payment" ? "on_session" : "off_session",
      return_url: `${ops.publicUrl}/dev/stripe/checkout/${encodeURIComponent(id)}/return`,
    });
    const pending: PendingAuthentication = { setup_intent: setup.id, payment_method: pm.id, name: card.name, postal_code: card.postalCode };
    await ops.store.deleteRow(pendingRowId(id));
    await ops.store.tryInsertRow({ id: pendingRowId(id), type: "checkout_authentication", customer: null, data: JSON.stringify(pending), created: ops.now });
    const url = setup.next_action?.type === "redirect_to_url" ? setup.next_action.redirect_to_url.url : null;
    if (!url) throw new Error("A 3-D Secure card's SetupIntent has no challenge");
    return { kind: "authenticate", session, url };
  }
  const pm = await createPaymentMethod(ops, {
    type: "card",
    card: { number: card.number, exp_month: String(card.expMonth), exp_year: String(card.expYear), cvc: card.cvc },
    billing_details: { name: card.name, email, address: { postal_code: card.postalCode } },
  });
  return finishCheckoutSession(ops, session, pm.id, { name: card.name, postalCode: card.postalCode, setupIntent: null });
}

/**
 * Back from the 3-D Secure challenge (GET /dev/stripe/checkout/:id/return): authenticated, the session
 * is paid as usual with the card (whose charges this operation no longer challenges); failed, the
 * card_error is thrown and the session stays open.
 */
export async function returnToCheckoutSession(ops: Ops, id: string): Promise<CheckoutOutcome> {
  const session = await ops.store.require("checkout_session", id);
  if (session.status === "complete") return { kind: "paid", session };
  if (sessionState(session, ops.now) !== "open") return { kind: "closed", session };
  const row = await ops.store.getRow(pendingRowId(id));
  const pending = row ? (JSON.parse(row.data) as PendingAuthentication) : null;
  const setup = pending ? await ops.store.get("setup_intent", pending.setup_intent) : undefined;
  if (!pending || !setup || setup.status !== "succeeded") {
    await ops.store.deleteRow(pendingRowId(id));
    throw cardError("payment_intent_authentication_failure", CARD_MESSAGES.authenticationFailed);
  }
  await ops.store.deleteRow(pendingRowId(id));
  ops.authenticated.add(pending.payment_method);
  return finishCheckoutSession(ops, session, pending.payment_method, {
    name: pending.name,
    postalCode: pending.postal_code,
    setupIntent: session.mode === "setup" ? setup.id : null,
  });
}

/** Pays (or sets up) an open session with a card that is ready to charge. */
async function finishCheckoutSession(
  ops: Ops,
  session: SbCheckoutSession,
  pmId: string,
  card: { name: string; postalCode: string; setupIntent: string | null },
): Promise<CheckoutOutcome> {
  const customerId =
    session.customer ?? (await createCustomer(ops, { email: session.customer_email ?? null, name: card.name })).id;
  const customer = await ops.store.require("customer", customerId);
  await attachPaymentMethod(ops, pmId, customerId);
  const pm = await ops.store.require("payment_method", pmId);

  const item = session.line_items.data[0];
  const discounts = session.discounts.map((d) => ({ coupon: d.coupon, promotion_code: d.promotion_code }));
  if (session.mode === "subscription" && item) {
    const sub = await createSubscription(ops, {
      customer: customerId,
      items: [{ price: item.price.id, quantity: item.quantity }],
      default_payment_method: pm.id,
      payment_behavior: "error_if_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      discounts,
      metadata: session._subscription_data.metadata,
      description: session._subscription_data.description,
      ...(session.automatic_tax?.enabled ? { automatic_tax: { enabled: true } } : {}),
    });
    session.subscription = sub.id;
    session.invoice = sub.latest_invoice;
  } else if (session.mode === "payment" && item) {
    // The discount was priced in when the session was made; this records its redemption.
    await createDiscounts(ops, await resolveDiscounts(ops, discounts, customerId), { customer: customerId, subscription: null });
    const intent = await createPaymentIntent(ops, {
      amount: session.amount_total ?? item.amount_total,
      currency: item.currency,
      customer: customerId,
      payment_method: pm.id,
      allowed_payment_method_types: ["card"],
      confirm: true,
      setup_future_usage: session._payment_intent_data.setup_future_usage ?? "off_session",
      metadata: session._payment_intent_data.metadata,
      description: session._payment_intent_data.description,
      receipt_email: customer.email,
    });
    session.payment_intent = intent.id;
  } else if (card.setupIntent) {
    // The SetupIntent that authenticated the card is the session's.
    const setup = await ops.store.require("setup_intent", card.setupIntent);
    await ops.store.save("setup_intent", { ...setup, customer: customerId });
    session.setup_intent = setup.id;
  } else {
    const setup = await createSetupIntent(ops, { customer: customerId, payment_method: pm.id, allowed_payment_method_types: ["card"], confirm: true, usage: "off_session" });
    session.setup_intent = setup.id;
  }
  session.status = "complete";
  session.payment_status = session.mode === "setup" ? "no_payment_required" : "paid";
  session.customer = customerId;
  session.customer_details = {
    email: customer.email ?? session.customer_email,
    name: card.name,
    phone: null,
    address: { city: null, country: null, line1: null, line2: null, postal_code: card.postalCode, state: null },
    tax_exempt: "none",
    tax_ids: [],
  };
  session.url = null;
  await ops.store.save("checkout_session", session);
  await ops.emit("checkout.session.completed", session);
  return { kind: "paid", session };
}

export async function expireCheckoutSession(ops: Ops, id: string): Promise<SbCheckoutSession> {
  const session = await ops.store.require("checkout_session", id);
  if (session.status !== "open") {
    throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of ${session.status}.`);
  }
  session.status = "expired";
  session.url = null;
  await ops.store.save("checkout_session", session);
  await ops.emit("checkout.session.expired", session);
  return session;
}

/** Expires the open sessions whose time is up (run by advance()). */
export async function expireDueSessions(ops: Ops): Promise<void> {
  for (const session of await ops.store.list("checkout_session")) {
    if (session.status === "open" && ops.now >= session.expires_at) await expireCheckoutSession(ops, session.id);
  }
}

export async function listCheckoutSessions(store: SandboxStore, p: z.output<typeof checkoutSessionListParams>): Promise<SbCheckoutSession[]> {
  return (await store.list("checkout_session", p.customer)).filter(
    (s) =>
      (!p.subscription || s.subscription === p.subscription) &&
      (!p.payment_intent || s.payment_intent === p.payment_intent) &&
      (!p.status || s.status === p.status),
  );
}
