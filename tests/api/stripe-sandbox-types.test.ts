/**
 * Every object the Stripe sandbox answers, and every event it sends, conforms to the `stripe` package's
 * own types (node_modules/stripe, read with the TypeScript compiler API by ./stripe-types.ts): every field
 * Stripe always sends is there (null where nullable), enums hold one of their values, and nothing is
 * invented. The objects come from real flows driven through the real SDK and the hosted pages.
 * Shapes do not depend on the database: SQLite only, to keep the suite fast.
 */
import express from "express";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, createDatabase } from "../../api/platform/db";
import {
  SANDBOX_API_VERSION,
  SANDBOX_PUBLISHABLE_KEY,
  SANDBOX_SECRET_KEY,
  SANDBOX_WEBHOOK_SECRET,
  type StripeSandbox,
  createStripeSandbox,
} from "../../api/sandboxes/stripe";
import { MemoryLogger, type TestDatabase, databases, listen } from "./harness";
import { AMEX, ATTACH_THEN_DECLINE_CARD, DECLINED_CARD, GOOD_CARD, MASTERCARD, THREE_DS_ALWAYS_CARD, THREE_DS_CARD, digitsOf } from "../support/cards";
import { TestClock } from "../support/clock";
import { loadStripeTypes, stripeTypeProblems } from "./stripe-types";

const TYPES = [
  "Customer",
  "PaymentMethod",
  "PaymentIntent",
  "Charge",
  "Refund",
  "SetupIntent",
  "Product",
  "Price",
  "Coupon",
  "PromotionCode",
  "Discount",
  "Subscription",
  "SubscriptionItem",
  "Invoice",
  "InvoiceLineItem",
  "InvoicePayment",
  "Checkout.Session",
  "LineItem",
  "Event",
  "SubscriptionSchedule",
  "Tax.Calculation",
  "Tax.CalculationLineItem",
] as const;
type TypeName = (typeof TYPES)[number];

const CARDS = { visa: GOOD_CARD, declined: DECLINED_CARD };
/** What the product sends without a return_url (a confirm with redirects allowed needs one, as at Stripe). */
const NO_REDIRECTS = { automatic_payment_methods: { enabled: true, allow_redirects: "never" } } as const;
const YEAR = new Date().getUTCFullYear() + 3;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const [sqlite] = databases();

describe("Stripe sandbox objects against the stripe package's types", () => {
  let database: TestDatabase;
  let db: Database;
  let sandbox: StripeSandbox;
  let stripe: Stripe;
  let browserBase: string;
  let closeRest: () => Promise<void>;
  let closeBrowser: () => Promise<void>;
  const clock = new TestClock();
  const events: Stripe.Event[] = [];
  /** Every object answered, by the type it claims to be. */
  const seen: { type: TypeName; where: string; value: unknown }[] = [];
  const keep = <T>(type: TypeName, where: string, value: T): T => {
    seen.push({ type, where, value });
    return value;
  };

  const card = (number: string) =>
    stripe.paymentMethods.create({
      type: "card",
      card: { number, exp_month: 12, exp_year: YEAR, cvc: "123" },
      billing_details: { name: "Ada Lovelace", address: { postal_code: "10115" } },
    });

  beforeAll(async () => {
    database = await sqlite!.createMigrated();
    db = createDatabase(database.url);
    const browserApp = express();
    browserApp.use((req, res, next) => sandbox.browserRouter(req, res, next));
    const browser = await listen(browserApp);
    browserBase = `http://127.0.0.1:${browser.port}`;
    closeBrowser = browser.close;
    const verifier = new Stripe(SANDBOX_SECRET_KEY, { apiVersion: SANDBOX_API_VERSION });
    sandbox = createStripeSandbox({
      db,
      clock,
      publicUrl: browserBase,
      logger: new MemoryLogger(),
      async deliverEvent(payload, signature) {
        events.push(verifier.webhooks.constructEvent(payload, signature, SANDBOX_WEBHOOK_SECRET));
      },
    });
    const rest = await sandbox.listen();
    closeRest = rest.close;
    stripe = new Stripe(SANDBOX_SECRET_KEY, {
      host: "127.0.0.1",
      port: rest.port,
      protocol: "http",
      apiVersion: SANDBOX_API_VERSION,
      maxNetworkRetries: 0,
    });
  });

  // biome-ignore lint/suspicious/noDuplicateTestHooks: a hook of its own for its own timeout (the stripe package's types take long to load)
  beforeAll(() => loadStripeTypes(TYPES), 120_000);

  afterAll(async () => {
    await closeRest?.();
    await closeBrowser?.();
    await db?.destroy();
    await database?.drop();
  });

  it("drives every flow the product uses, keeping each object answered", async () => {
    // Catalog
    const monthly = keep(
      "Price",
      "prices.create",
      await stripe.prices.create({
        currency: "usd",
        unit_amount: 1199,
        recurring: { interval: "month" },
        lookup_key: "types_monthly",
        product_data: { name: "VPN 1 Month" },
      }),
    );
    keep("Product", "products.retrieve", await stripe.products.retrieve(monthly.product as string));
    const oneTime = await stripe.prices.create({ currency: "usd", unit_amount: 17999, product_data: { name: "VPN 5 Years" } });
    keep("Price", "prices.list expand product", (await stripe.prices.list({ lookup_keys: ["types_monthly"], expand: ["data.product"] })).data[0]);
    keep("Product", "price.product expanded", (await stripe.prices.retrieve(monthly.id, { expand: ["product"] })).product);
    const coupon = keep("Coupon", "coupons.create", await stripe.coupons.create({ percent_off: 10, duration: "forever", name: "TEN" }));
    keep(
      "PromotionCode",
      "promotionCodes.create",
      await stripe.promotionCodes.create({ promotion: { type: "coupon", coupon: coupon.id }, code: "TYPES10" }),
    );

    // Customer and cards
    const customer = keep("Customer", "customers.create", await stripe.customers.create({ email: "types@example.com", name: "Ada" }));
    const pm = keep("PaymentMethod", "paymentMethods.create", await card(CARDS.visa));
    keep("PaymentMethod", "paymentMethods.attach", await stripe.paymentMethods.attach(pm.id, { customer: customer.id }));
    keep(
      "Customer",
      "customers.update",
      await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id }, metadata: { user_id: "1" } }),
    );
    keep("Customer", "customers.retrieve expand", await stripe.customers.retrieve(customer.id, { expand: ["invoice_settings.default_payment_method"] }));
    for (const item of (await stripe.customers.listPaymentMethods(customer.id)).data) keep("PaymentMethod", "customers.listPaymentMethods", item);
    const tokenized = await fetch(`${browserBase}/dev/stripe/v1/payment_methods`, {
      method: "POST",
      headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}` },
      body: new URLSearchParams({ type: "card", "card[number]": CARDS.visa, "card[exp_month]": "11", "card[exp_year]": "40", "card[cvc]": "123" }),
    });
    keep("PaymentMethod", "tokenizer", await tokenized.json());

    // One-time payments: paid, declined, refunded
    const paid = keep(
      "PaymentIntent",
      "paymentIntents.create confirm",
      await stripe.paymentIntents.create({
        amount: 17999,
        currency: "usd",
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        off_session: true,
        ...NO_REDIRECTS,
        metadata: { kind: "one_time" },
      }),
    );
    const charge = keep("Charge", "charges.retrieve", await stripe.charges.retrieve(paid.latest_charge as string));
    keep("Refund", "refunds.create", await stripe.refunds.create({ payment_intent: paid.id, amount: 1000 }));
    keep("Charge", "charge after refund", await stripe.charges.retrieve(charge.id));
    const declinedPm = await card(CARDS.declined);
    await stripe.paymentMethods.attach(declinedPm.id, { customer: customer.id });
    const declined = await rejection(
      stripe.paymentIntents.create({ amount: 500, currency: "usd", customer: customer.id, payment_method: declinedPm.id, confirm: true, ...NO_REDIRECTS }),
    );
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    const declinedIntent = (declined as Stripe.errors.StripeCardError).payment_intent as Stripe.PaymentIntent;
    keep("PaymentIntent", "declined error's payment_intent", declinedIntent);
    keep("PaymentIntent", "declined retrieve", await stripe.paymentIntents.retrieve(declinedIntent.id, { expand: ["latest_charge"] }));
    // Stripe Tax's calculation of a one-time payment, and the intent that charges it (hooks.inputs.tax.calculation).
    const calculation = keep(
      "Tax.Calculation",
      "tax.calculations.create",
      await stripe.tax.calculations.create({
        currency: "usd",
        customer_details: { address: { country: "DE", postal_code: "10115" }, address_source: "billing" },
        line_items: [{ amount: 29940, reference: "5 Years", tax_behavior: "exclusive", tax_code: "txcd_10103001" }],
      }),
    );
    expect(calculation).toMatchObject({ amount_total: 29940 + 5689, tax_amount_exclusive: 5689 });
    keep("Tax.Calculation", "tax.calculations.retrieve", await stripe.tax.calculations.retrieve(calculation.id!));
    for (const item of (await stripe.tax.calculations.listLineItems(calculation.id!)).data) keep("Tax.CalculationLineItem", "tax.calculations.listLineItems", item);
    const wrongAmount = await rejection(
      stripe.paymentIntents.create({ amount: 29940, currency: "usd", customer: customer.id, hooks: { inputs: { tax: { calculation: calculation.id! } } } }),
    );
    expect(wrongAmount).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    keep(
      "PaymentIntent",
      "paymentIntents.create with a tax calculation",
      await stripe.paymentIntents.create({
        amount: calculation.amount_total,
        currency: "usd",
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        off_session: true,
        ...NO_REDIRECTS,
        hooks: { inputs: { tax: { calculation: calculation.id! } } },
      }),
    );
    const open = keep("PaymentIntent", "paymentIntents.create", await stripe.paymentIntents.create({ amount: 700, currency: "usd" }));
    keep("PaymentIntent", "paymentIntents.cancel", await stripe.paymentIntents.cancel(open.id));
    keep(
      "SetupIntent",
      "setupIntents.create confirm",
      await stripe.setupIntents.create({ customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS, usage: "off_session" }),
    );
    keep("SetupIntent", "setupIntents.create", await stripe.setupIntents.create({ customer: customer.id }));

    // Subscriptions and invoices: charged at once, left open, renewed, declined on renewal, canceled
    const sub = keep(
      "Subscription",
      "subscriptions.create",
      await stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: monthly.id }],
        discounts: [{ coupon: coupon.id }],
        metadata: { user_id: "1" },
        expand: ["latest_invoice.payments"],
      }),
    );
    const invoice = keep("Invoice", "subscription latest_invoice", sub.latest_invoice);
    const expanded = keep(
      "Invoice",
      "invoices.retrieve expand",
      await stripe.invoices.retrieve((invoice as Stripe.Invoice).id, {
        expand: ["payments.data.payment.payment_intent", "discounts", "customer"],
      }),
    );
    for (const payment of expanded.payments?.data ?? []) keep("InvoicePayment", "invoice.payments", payment);
    for (const line of (await stripe.invoices.listLineItems((invoice as Stripe.Invoice).id)).data) keep("InvoiceLineItem", "invoices.listLineItems", line);
    for (const item of sub.items.data) keep("SubscriptionItem", "subscription.items", item);
    keep("Discount", "subscription discounts expanded", (await stripe.subscriptions.retrieve(sub.id, { expand: ["discounts"] })).discounts[0]);
    const incomplete = keep(
      "Subscription",
      "subscriptions.create default_incomplete",
      await stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: monthly.id }],
        payment_behavior: "default_incomplete",
        payment_settings: { save_default_payment_method: "on_subscription" },
        expand: ["latest_invoice.confirmation_secret"],
      }),
    );
    keep("Invoice", "open invoice", incomplete.latest_invoice);
    keep("Invoice", "invoices.pay", await stripe.invoices.pay((incomplete.latest_invoice as Stripe.Invoice).id, { payment_method: pm.id }));
    keep("Subscription", "subscriptions.update", await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true }));
    keep("Subscription", "subscriptions.update back", await stripe.subscriptions.update(sub.id, { cancel_at_period_end: false }));

    // Plan changes (docs/decisions/028): a preview, a price change now with proration, a schedule for the renewal
    const yearly = await stripe.prices.create({ currency: "usd", unit_amount: 7188, recurring: { interval: "year" }, product_data: { name: "VPN 1 Year" } });
    const changing = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], default_payment_method: pm.id });
    clock.advanceDays(3);
    const prorationDate = Math.floor(clock.now().getTime() / 1000);
    const change = { items: [{ id: changing.items.data[0]!.id, price: yearly.id }], proration_behavior: "always_invoice" as const, proration_date: prorationDate };
    const preview = keep(
      "Invoice",
      "invoices.createPreview",
      await stripe.invoices.createPreview({ customer: customer.id, subscription: changing.id, subscription_details: change }),
    );
    for (const line of preview.lines.data) keep("InvoiceLineItem", "preview lines", line);
    const changed = keep(
      "Subscription",
      "subscriptions.update price",
      await stripe.subscriptions.update(changing.id, { ...change, payment_behavior: "error_if_incomplete", expand: ["latest_invoice"] }),
    );
    expect((changed.latest_invoice as Stripe.Invoice).amount_paid).toBe(preview.amount_due);
    keep("Invoice", "proration invoice", changed.latest_invoice);
    const schedule = keep("SubscriptionSchedule", "subscriptionSchedules.create", await stripe.subscriptionSchedules.create({ from_subscription: changing.id }));
    const phased = keep(
      "SubscriptionSchedule",
      "subscriptionSchedules.update",
      await stripe.subscriptionSchedules.update(schedule.id, {
        end_behavior: "release",
        phases: [
          { items: [{ price: yearly.id, quantity: 1 }], start_date: schedule.phases[0]!.start_date, end_date: schedule.phases[0]!.end_date },
          { items: [{ price: monthly.id, quantity: 1 }], duration: { interval: "month", interval_count: 1 }, metadata: { plan_id: "1" } },
        ],
      }),
    );
    keep("Subscription", "subscription with schedule", await stripe.subscriptions.retrieve(changing.id));
    keep("SubscriptionSchedule", "subscriptionSchedules.release", await stripe.subscriptionSchedules.release(phased.id));
    for (const item of (await stripe.subscriptionSchedules.list({ customer: customer.id })).data) keep("SubscriptionSchedule", "subscriptionSchedules.list", item);
    await stripe.subscriptions.cancel(changing.id);
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: declinedPm.id } });
    await stripe.subscriptions.update(incomplete.id, { default_payment_method: declinedPm.id });
    clock.advanceDays(32);
    await sandbox.advance();
    for (const item of (await stripe.invoices.list({ customer: customer.id, limit: 100 })).data) keep("Invoice", "invoices.list", item);
    for (const item of (await stripe.subscriptions.list({ customer: customer.id, status: "all" })).data) keep("Subscription", "subscriptions.list", item);
    keep("Subscription", "subscriptions.cancel", await stripe.subscriptions.cancel(sub.id));

    // Checkout: subscription on the hosted page, one-time, setup, expired
    const session = keep(
      "Checkout.Session",
      "checkout.sessions.create",
      await stripe.checkout.sessions.create({
        mode: "subscription",
        customer_email: "checkout@example.com",
        line_items: [{ price: monthly.id, quantity: 1 }],
        discounts: [{ coupon: coupon.id }],
        success_url: "https://portal.example.com/done?session_id={CHECKOUT_SESSION_ID}",
        cancel_url: "https://portal.example.com/checkout",
        metadata: { user_id: "9" },
        subscription_data: { metadata: { user_id: "9" } },
      }),
    );
    const pay = (url: string) =>
      fetch(url, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ card_number: CARDS.visa, card_expiry: "12 / 39", card_cvc: "123", billing_name: "Ada", billing_postal_code: "10115" }),
      });
    expect((await pay(session.url!)).status).toBe(303);
    keep("Checkout.Session", "checkout.sessions.retrieve expand", await stripe.checkout.sessions.retrieve(session.id, { expand: ["line_items"] }));
    for (const item of (await stripe.checkout.sessions.listLineItems(session.id)).data) keep("LineItem", "checkout line items", item);
    const oneTimeSession = await stripe.checkout.sessions.create({
      mode: "payment",
      customer: customer.id,
      line_items: [{ price: oneTime.id, quantity: 1 }],
      success_url: "https://portal.example.com/done",
      payment_intent_data: { metadata: { kind: "one_time" }, setup_future_usage: "off_session" },
    });
    expect((await pay(oneTimeSession.url!)).status).toBe(303);
    keep("Checkout.Session", "payment session", await stripe.checkout.sessions.retrieve(oneTimeSession.id));
    const setupSession = await stripe.checkout.sessions.create({ mode: "setup", customer: customer.id, currency: "usd", success_url: "https://portal.example.com/done" });
    expect((await pay(setupSession.url!)).status).toBe(303);
    keep("Checkout.Session", "setup session", await stripe.checkout.sessions.retrieve(setupSession.id));
    const abandoned = await stripe.checkout.sessions.create({ mode: "payment", line_items: [{ price: oneTime.id, quantity: 1 }], success_url: "https://portal.example.com/done" });
    keep("Checkout.Session", "checkout.sessions.expire", await stripe.checkout.sessions.expire(abandoned.id));
    for (const item of (await stripe.checkout.sessions.list({ customer: customer.id })).data) keep("Checkout.Session", "checkout.sessions.list", item);

    // The other test cards, 3-D Secure (requires_action, the challenge answered both ways), retries
    const challenge = async (url: string, result: "complete" | "fail") => {
      const html = await (await fetch(url)).text();
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
      expect(action).toBeTruthy();
      await fetch(new URL(action!, url), { method: "POST", body: new URLSearchParams({ result }), redirect: "manual" });
    };
    const stripeJs = (intent: { next_action: Stripe.PaymentIntent.NextAction | Stripe.SetupIntent.NextAction | null }) =>
      (intent.next_action?.use_stripe_sdk as { stripe_js: string } | undefined)?.stripe_js ?? "";
    for (const number of [MASTERCARD, AMEX, ATTACH_THEN_DECLINE_CARD]) {
      keep("PaymentMethod", `paymentMethods.create ${number}`, await card(digitsOf(number)));
    }
    const threeDs = keep("PaymentMethod", "3155", await card(digitsOf(THREE_DS_CARD)));
    await stripe.paymentMethods.attach(threeDs.id, { customer: customer.id });
    const needsAction = keep(
      "PaymentIntent",
      "requires_action use_stripe_sdk",
      await stripe.paymentIntents.create({ amount: 900, currency: "usd", customer: customer.id, payment_method: threeDs.id, confirm: true, ...NO_REDIRECTS }),
    );
    const redirect = keep(
      "PaymentIntent",
      "requires_action redirect_to_url",
      await stripe.paymentIntents.confirm(needsAction.id, { return_url: "https://portal.example.com/back" }),
    );
    await challenge(redirect.next_action!.redirect_to_url!.url!, "complete");
    keep("PaymentIntent", "authenticated", await stripe.paymentIntents.retrieve(needsAction.id));
    const toFail = await stripe.paymentIntents.create({ amount: 900, currency: "usd", customer: customer.id, payment_method: threeDs.id, confirm: true, ...NO_REDIRECTS });
    await challenge(stripeJs(toFail), "fail");
    keep("PaymentIntent", "authentication failed", await stripe.paymentIntents.retrieve(toFail.id));
    const setupAction = keep(
      "SetupIntent",
      "setup requires_action",
      await stripe.setupIntents.create({ customer: customer.id, payment_method: threeDs.id, confirm: true, ...NO_REDIRECTS }),
    );
    await challenge(stripeJs(setupAction), "complete");
    keep("SetupIntent", "setup authenticated", await stripe.setupIntents.retrieve(setupAction.id));
    const always = await card(digitsOf(THREE_DS_ALWAYS_CARD));
    await stripe.paymentMethods.attach(always.id, { customer: customer.id });
    const setupFail = await stripe.setupIntents.create({ customer: customer.id, payment_method: always.id, confirm: true, ...NO_REDIRECTS });
    await challenge(stripeJs(setupFail), "fail");
    keep("SetupIntent", "setup authentication failed", await stripe.setupIntents.retrieve(setupFail.id));
    const offSession = (await rejection(
      stripe.paymentIntents.create({ amount: 900, currency: "usd", customer: customer.id, payment_method: always.id, confirm: true, ...NO_REDIRECTS, off_session: true }),
    )) as Stripe.errors.StripeCardError;
    expect(offSession.code).toBe("authentication_required");
    keep("PaymentIntent", "off-session authentication_required", offSession.payment_intent);
    const actionSub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], payment_behavior: "default_incomplete" });
    expect(((await rejection(stripe.invoices.pay(actionSub.latest_invoice as string, { payment_method: always.id }))) as Stripe.errors.StripeCardError).code).toBe(
      "invoice_payment_intent_requires_action",
    );
    const actionInvoice = keep(
      "Invoice",
      "invoice requiring action",
      await stripe.invoices.retrieve(actionSub.latest_invoice as string, { expand: ["payments.data.payment.payment_intent"] }),
    );
    keep("PaymentIntent", "invoice's intent requiring action", actionInvoice.payments?.data[0]?.payment.payment_intent);
    await stripe.subscriptions.cancel(actionSub.id);
    // The renewal declined above is retried a day later (next_payment_attempt, attempt_count).
    clock.advanceDays(1);
    await sandbox.advance();
    for (const item of (await stripe.invoices.list({ customer: customer.id, limit: 100 })).data) keep("Invoice", "invoices.list after a retry", item);

    // Events: every webhook received, and the API's own
    for (const event of events) keep("Event", `webhook ${event.type}`, event);
    for (const event of (await stripe.events.list({ limit: 100 })).data) keep("Event", `events.list ${event.type}`, event);
    const kinds = new Set(events.map((e) => e.type));
    for (const type of [
      "customer.created",
      "payment_method.attached",
      "payment_intent.succeeded",
      "payment_intent.payment_failed",
      "charge.refunded",
      "invoice.paid",
      "invoice.payment_failed",
      "customer.subscription.created",
      "customer.subscription.deleted",
      "checkout.session.completed",
      "checkout.session.expired",
      "setup_intent.succeeded",
      "setup_intent.requires_action",
      "setup_intent.setup_failed",
      "payment_intent.requires_action",
      "invoice.payment_action_required",
    ]) {
      expect(kinds, type).toContain(type);
    }
  });

  it("the check itself finds a missing field, a wrong null, an unknown enum value and an invented field", () => {
    const refund = seen.find((entry) => entry.type === "Refund")?.value as Record<string, unknown>;
    expect(stripeTypeProblems("Refund", refund, TYPES)).toEqual([]);
    const { balance_transaction: _gone, ...missing } = refund;
    expect(stripeTypeProblems("Refund", missing, TYPES)).toEqual([expect.stringMatching(/^Refund\.balance_transaction: missing/)]);
    expect(stripeTypeProblems("Refund", { ...refund, amount: null }, TYPES)).toEqual([expect.stringMatching(/^Refund\.amount: null/)]);
    expect(stripeTypeProblems("Refund", { ...refund, object: "refunds" }, TYPES)).toEqual([expect.stringMatching(/^Refund\.object: "refunds"/)]);
    expect(stripeTypeProblems("Refund", { ...refund, livemode: false }, TYPES)).toEqual(["Refund.livemode: not in Refund"]);
    expect(stripeTypeProblems("Refund", { ...refund, metadata: { n: 1 } }, TYPES)).toEqual(['Refund.metadata["n"]: 1 is not a string']);
  });

  it.each(TYPES)("every %s answered conforms to Stripe.%s", (type) => {
    const objects = seen.filter((entry) => entry.type === type);
    expect(objects.length, `no ${type} was answered`).toBeGreaterThan(0);
    const problems = objects.flatMap(({ where, value }) => stripeTypeProblems(type, value, TYPES).map((p) => `${where}: ${p}`));
    const unique = [...new Set(problems)];
    expect(unique, unique.join("\n")).toEqual([]);
  });
});
