/**
 * The Stripe sandbox driven through the real Stripe SDK (REST on its own loopback port), its hosted
 * pages through fetch like a browser without JavaScript, and its webhooks verified with the SDK's
 * constructEvent — on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
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
import * as billing from "../../api/sandboxes/stripe/billing";
import * as catalog from "../../api/sandboxes/stripe/catalog";
import * as checkout from "../../api/sandboxes/stripe/checkout";
import * as customers from "../../api/sandboxes/stripe/customers";
import * as params from "../../api/sandboxes/stripe/params";
import * as payments from "../../api/sandboxes/stripe/payments";
import * as planChanges from "../../api/sandboxes/stripe/plan-changes";
import { z } from "zod";
import { MemoryLogger, type TestDatabase, databases, listen } from "./harness";
import { DECLINED_CARD, digitsOf, GOOD_CARD, NO_FUNDS_CARD } from "../support/cards";
import { TestClock } from "../support/clock";

/** What the product sends without a return_url (a confirm with redirects allowed needs one, as at Stripe). */
const NO_REDIRECTS = { automatic_payment_methods: { enabled: true, allow_redirects: "never" } } as const;

const SANDBOX_MESSAGE = "This is a sandbox: only test cards are accepted, such as 4242 4242 4242 4242.";
const CARDS = { visa: GOOD_CARD, declined: DECLINED_CARD, insufficient: digitsOf(NO_FUNDS_CARD) };

/** Calendar months in UTC (the sandbox's period arithmetic). */
function addMonths(unix: number, months: number): number {
  const d = new Date(unix * 1000);
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const out = new Date(d);
  out.setUTCFullYear(year, month, Math.min(d.getUTCDate(), last));
  return Math.floor(out.getTime() / 1000);
}

function expectCardError(error: unknown, code: string, message: string): Stripe.errors.StripeCardError {
  expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
  const cardError = error as Stripe.errors.StripeCardError;
  expect(cardError.code).toBe(code);
  expect(cardError.message).toBe(message);
  expect(cardError.statusCode).toBe(402);
  return cardError;
}

/**
 * The hashes (objects) of a request schema that would take a key they do not declare (not strict),
 * named as Stripe names parameters: through optional, default, pipes (transforms, preprocess), unions,
 * arrays and records.
 */
function looseHashes(schema: z.ZodType, path: string): string[] {
  const def = (schema as any)._zod.def;
  switch (def.type) {
    case "object": {
      const strict = def.catchall?._zod.def.type === "never";
      return [...(strict ? [] : [path]), ...Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, inner]) => looseHashes(inner, `${path}[${key}]`))];
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return looseHashes(def.innerType, path);
    case "pipe":
      return [...looseHashes(def.in, path), ...looseHashes(def.out, path)];
    case "union":
      return (def.options as z.ZodType[]).flatMap((option) => looseHashes(option, path));
    case "array":
      return looseHashes(def.element, `${path}[0]`);
    case "record":
      return looseHashes(def.valueType, `${path}[key]`);
    default:
      return [];
  }
}

/** Stripe's refusal of a confirm that allows redirects without a return_url ("Payment Intent" or "Setup Intent"). */
const returnUrlRequired = (what: string) =>
  `A \`return_url\` must be specified because this ${what} is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set \`automatic_payment_methods[enabled]\` to \`true\` and \`automatic_payment_methods[allow_redirects]\` to \`never\` when creating Setup Intents and Payment Intents.`;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe.each(databases({ postgres: "concurrent idempotency keys, two instances on one store" }))("Stripe sandbox ($name)", (kind) => {
  let database: TestDatabase;
  let db: Database;
  let sandbox: StripeSandbox;
  let stripe: Stripe;
  let restPort: number;
  let browserBase: string;
  let closeRest: () => Promise<void>;
  let closeBrowser: () => Promise<void>;
  const clock = new TestClock();
  const logger = new MemoryLogger();
  /** Every webhook received (verified with the SDK), in order. */
  const events: Stripe.Event[] = [];
  const deliveryProblems: string[] = [];
  let failDeliveries = 0;

  const card = (number: string, extra: { exp_month?: number; exp_year?: number; cvc?: string } = {}) =>
    stripe.paymentMethods.create({
      type: "card",
      card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: "123", ...extra },
      billing_details: { name: "Ada Lovelace", address: { postal_code: "10115" } },
    });
  const eventsAbout = (id: string) => events.filter((e) => (e.data.object as { id?: string }).id === id);
  const typesAbout = (id: string) => eventsAbout(id).map((e) => e.type);

  async function customerWithCard(number: string, email = "ada@example.com") {
    const customer = await stripe.customers.create({ email, name: "Ada" });
    const pm = await card(number);
    await stripe.paymentMethods.attach(pm.id, { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } });
    return { customer, pm };
  }

  let monthlyPrice: Stripe.Price;
  let yearlyPrice: Stripe.Price;

  beforeAll(async () => {
    database = await kind.createMigrated();
    db = createDatabase(database.url);
    const browserApp = express();
    browserApp.use((req, res, next) => sandbox.browserRouter(req, res, next));
    browserApp.use((req, res) => void res.status(404).send(`fell through: ${req.path}`));
    const browser = await listen(browserApp);
    browserBase = `http://127.0.0.1:${browser.port}`;
    closeBrowser = browser.close;
    const verifier = new Stripe(SANDBOX_SECRET_KEY, { apiVersion: SANDBOX_API_VERSION });
    sandbox = createStripeSandbox({
      db,
      clock,
      publicUrl: browserBase,
      logger,
      async deliverEvent(payload, signature) {
        if (failDeliveries > 0) {
          failDeliveries--;
          throw new Error("webhook endpoint down");
        }
        try {
          events.push(verifier.webhooks.constructEvent(payload, signature, SANDBOX_WEBHOOK_SECRET));
        } catch (error) {
          deliveryProblems.push(String(error));
        }
      },
    });
    const rest = await sandbox.listen();
    restPort = rest.port;
    closeRest = rest.close;
    stripe = new Stripe(SANDBOX_SECRET_KEY, {
      host: "127.0.0.1",
      port: restPort,
      protocol: "http",
      apiVersion: SANDBOX_API_VERSION,
      maxNetworkRetries: 1,
    });
    monthlyPrice = await stripe.prices.create({
      currency: "usd",
      unit_amount: 1199,
      recurring: { interval: "month" },
      lookup_key: "monthly",
      product_data: { name: "VPN 1 Month" },
    });
    yearlyPrice = await stripe.prices.create({
      currency: "usd",
      unit_amount: 11976,
      recurring: { interval: "year" },
      product_data: { name: "VPN 1 Year" },
    });
  });

  afterAll(async () => {
    await closeRest?.();
    await closeBrowser?.();
    await db?.destroy();
    await database?.drop();
  });

  it("refuses requests without the sandbox's secret key, and answers 404 for unknown ids", async () => {
    const none = await fetch(`http://127.0.0.1:${restPort}/v1/customers/cus_x`);
    expect(none.status).toBe(401);
    expect((await none.json()).error.type).toBe("invalid_request_error");
    const wrong = await fetch(`http://127.0.0.1:${restPort}/v1/customers/cus_x`, { headers: { authorization: "Bearer sk_live_abcdefghijkl" } });
    expect(wrong.status).toBe(401);
    expect(JSON.stringify(await wrong.json())).not.toContain("sk_live_abcdefghijkl");

    const error = await rejection(stripe.customers.retrieve("cus_nope"));
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const missing = error as Stripe.errors.StripeInvalidRequestError;
    expect(missing.statusCode).toBe(404);
    expect(missing.code).toBe("resource_missing");
    expect(missing.message).toBe("No such customer: 'cus_nope'");
    expect(missing.param).toBe("id");
  });

  it("refuses unknown parameters and invalid values as Stripe does, and keeps no refusal under an idempotency key", async () => {
    const invalid = async (promise: Promise<unknown>) => {
      const error = await rejection(promise);
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      const refused = error as Stripe.errors.StripeInvalidRequestError;
      expect(refused.statusCode).toBe(400);
      expect(refused.type).toBe("StripeInvalidRequestError");
      return { code: refused.code, param: refused.param, message: refused.message };
    };
    const before = (await stripe.customers.list({ limit: 100 })).data.length;

    // A misspelt parameter fails, as it would live, instead of making a customer without an email.
    expect(await invalid(stripe.customers.create({ emial: "typo@example.com" } as Stripe.CustomerCreateParams))).toEqual({
      code: "parameter_unknown",
      param: "emial",
      message: "Received unknown parameter: emial",
    });
    expect((await stripe.customers.list({ limit: 100 })).data.length).toBe(before);
    // Nested parameters, retrieves and lists are declared too.
    expect(
      await invalid(
        stripe.paymentMethods.create({
          type: "card",
          card: { number: CARDS.visa, exp_month: 12, exp_year: 2040, cvc: "123", colour: "blue" },
        } as Stripe.PaymentMethodCreateParams),
      ),
    ).toMatchObject({ code: "parameter_unknown", param: "card[colour]" });
    const customer = await stripe.customers.create({ email: "strict@example.com" });
    expect(await invalid(stripe.customers.retrieve(customer.id, { expnd: ["x"] } as Stripe.CustomerRetrieveParams))).toMatchObject({
      code: "parameter_unknown",
      param: "expnd",
    });
    expect(await invalid(stripe.invoices.list({ custmer: customer.id } as Stripe.InvoiceListParams))).toMatchObject({
      code: "parameter_unknown",
      param: "custmer",
    });

    // Invalid values: Stripe's codes where it has one (parameter_invalid_integer, ...), none for an enum or a currency.
    const intent = { amount: 1750, currency: "usd" };
    const zzz = await invalid(stripe.paymentIntents.create({ ...intent, currency: "zzz" }));
    expect(zzz).toMatchObject({ code: undefined, param: "currency" });
    expect(zzz.message).toMatch(/^Invalid currency: zzz\. Stripe currently supports these currencies: .*\busd\b/);
    expect(await invalid(stripe.paymentIntents.create({ ...intent, amount: "12x" as unknown as number }))).toEqual({
      code: "parameter_invalid_integer",
      param: "amount",
      message: "Invalid integer: 12x",
    });
    expect(
      await invalid(stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthlyPrice.id }], payment_behavior: "sometimes" as "allow_incomplete" })),
    ).toEqual({
      code: undefined,
      param: "payment_behavior",
      message: "Invalid payment_behavior: must be one of default_incomplete, allow_incomplete, or error_if_incomplete",
    });
    expect(await invalid(stripe.subscriptions.create({ customer: " ", items: [{ price: monthlyPrice.id }] }))).toMatchObject({
      code: "parameter_invalid_string_blank",
      param: "customer",
    });
    expect(await invalid(stripe.subscriptions.create({ customer: "", items: [{ price: monthlyPrice.id }] }))).toMatchObject({
      code: "parameter_invalid_empty",
      param: "customer",
    });
    expect(await invalid(stripe.subscriptions.create({ items: [{ price: monthlyPrice.id }] } as Stripe.SubscriptionCreateParams))).toEqual({
      code: "parameter_missing",
      param: "customer",
      message: "Missing required param: customer.",
    });

    // The refused request was not kept under its key: the corrected retry with the same key runs, and is kept.
    const key = "strict-retry-1";
    expect(await invalid(stripe.customers.create({ emial: "retry@example.com" } as Stripe.CustomerCreateParams, { idempotencyKey: key }))).toMatchObject({
      code: "parameter_unknown",
    });
    const created = await stripe.customers.create({ email: "retry@example.com" }, { idempotencyKey: key });
    expect(created.email).toBe("retry@example.com");
    const replayed = await stripe.customers.create({ email: "retry@example.com" }, { idempotencyKey: key });
    expect(replayed.id).toBe(created.id);
    expect(replayed.lastResponse.headers["idempotent-replayed"]).toBe("true");
    const payKey = "strict-retry-2";
    const pm = await card(CARDS.visa);
    await invalid(stripe.paymentIntents.create({ ...intent, ...NO_REDIRECTS, currency: "zzz", payment_method: pm.id, confirm: true }, { idempotencyKey: payKey }));
    const paid = await stripe.paymentIntents.create({ ...intent, ...NO_REDIRECTS, payment_method: pm.id, confirm: true }, { idempotencyKey: payKey });
    expect(paid.status).toBe("succeeded");
  });

  it("refuses unknown parameters inside nested hashes too, with Stripe's parameter_unknown", async () => {
    const unknown = async (promise: Promise<unknown>) => {
      const error = await rejection(promise);
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      const refused = error as Stripe.errors.StripeInvalidRequestError;
      return { status: refused.statusCode, type: refused.rawType, code: refused.code, param: refused.param, message: refused.message };
    };
    const refusal = (param: string) => ({
      status: 400,
      type: "invalid_request_error",
      code: "parameter_unknown",
      param,
      message: `Received unknown parameter: ${param}`,
    });
    const customer = await stripe.customers.create({ email: "nested@example.com" });
    const prices = (await stripe.prices.list({ limit: 100 })).data.length;
    expect(
      await unknown(
        stripe.prices.create({
          currency: "usd",
          unit_amount: 500,
          recurring: { interval: "month", colour: "blue" },
          product_data: { name: "Colourful" },
        } as Stripe.PriceCreateParams),
      ),
    ).toEqual(refusal("recurring[colour]"));
    expect((await stripe.prices.list({ limit: 100 })).data.length).toBe(prices);
    expect(
      await unknown(
        stripe.subscriptions.create({
          customer: customer.id,
          items: [{ price: monthlyPrice.id }],
          payment_behavior: "default_incomplete",
          payment_settings: { save_default_payment_method: "on_subscription", colour: "blue" },
        } as Stripe.SubscriptionCreateParams),
      ),
    ).toEqual(refusal("payment_settings[colour]"));
    expect((await stripe.subscriptions.list({ customer: customer.id })).data).toEqual([]);
    const session = (lineItem: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      stripe.checkout.sessions.create({
        mode: "payment",
        success_url: "https://portal.example/done",
        line_items: [{ quantity: 1, ...lineItem }],
        ...extra,
      } as Stripe.Checkout.SessionCreateParams);
    const priceData = { currency: "usd", unit_amount: 700, product_data: { name: "Once" } };
    expect(await unknown(session({ price_data: { ...priceData, colour: "blue" } }))).toEqual(refusal("line_items[0][price_data][colour]"));
    expect(await unknown(session({ price_data: { ...priceData, recurring: { interval: "month", colour: "blue" } } }))).toEqual(
      refusal("line_items[0][price_data][recurring][colour]"),
    );
    expect(await unknown(session({ price_data: priceData }, { payment_intent_data: { description: "x", colour: "blue" } }))).toEqual(
      refusal("payment_intent_data[colour]"),
    );
    // What the product sends is still taken.
    expect((await session({ price_data: priceData }, { payment_intent_data: { description: "x", setup_future_usage: "off_session" } })).url).toMatch(/^http/);
  });

  it("declares every request hash strict, at any depth (z.strictObject), so no unknown parameter is ever ignored", () => {
    const modules: Record<string, Record<string, unknown>> = { billing, catalog, checkout, customers, params, payments, planChanges };
    const loose: string[] = [];
    let schemas = 0;
    for (const [name, exports] of Object.entries(modules)) {
      for (const [key, value] of Object.entries(exports)) {
        if (!(value instanceof z.ZodType)) continue;
        schemas++;
        loose.push(...looseHashes(value, `${name}.${key}`));
      }
    }
    expect(schemas).toBeGreaterThan(30);
    expect(loose).toEqual([]);
  });

  it("makes PaymentMethods from the test cards only", async () => {
    const pm = await card(CARDS.visa);
    expect(pm.id).toMatch(/^pm_\w{20,}$/);
    expect(pm).toMatchObject({
      object: "payment_method",
      type: "card",
      livemode: false,
      customer: null,
      card: { brand: "visa", last4: "4242", exp_month: 12, funding: "credit" },
      billing_details: { name: "Ada Lovelace", address: { postal_code: "10115" } },
      metadata: {},
    });
    expect(JSON.stringify(pm)).not.toContain(digitsOf(GOOD_CARD));

    expectCardError(await rejection(card("4111 1111 1111 1111")), "incorrect_number", SANDBOX_MESSAGE);
    expectCardError(await rejection(card(CARDS.visa, { exp_month: 1, exp_year: 2020 })), "expired_card", "Your card has expired.");
    expectCardError(await rejection(card(CARDS.visa, { cvc: "12" })), "incorrect_cvc", "Your card's security code is incorrect.");
    // The expiry is judged by the business clock.
    const nextYear = new Date(clock.now().getTime() + 400 * 86_400_000);
    clock.advanceDays(800);
    expectCardError(
      await rejection(card(CARDS.visa, { exp_month: nextYear.getUTCMonth() + 1, exp_year: nextYear.getUTCFullYear() })),
      "expired_card",
      "Your card has expired.",
    );
    clock.reset();
  });

  it("keeps customers and their cards: attach, default, list, detach", async () => {
    const customer = await stripe.customers.create({ email: "grace@example.com", name: "Grace", metadata: { user_id: "7" } });
    expect(customer).toMatchObject({ object: "customer", email: "grace@example.com", metadata: { user_id: "7" }, livemode: false });
    expect(customer.id).toMatch(/^cus_/);
    expect(typesAbout(customer.id)).toContain("customer.created");

    const first = await card(CARDS.visa);
    const second = await card(CARDS.insufficient);
    const attached = await stripe.paymentMethods.attach(first.id, { customer: customer.id });
    expect(attached.customer).toBe(customer.id);
    await stripe.paymentMethods.attach(second.id, { customer: customer.id });
    expect(typesAbout(first.id)).toEqual(["payment_method.attached"]);

    const listed = await stripe.customers.listPaymentMethods(customer.id, { type: "card" });
    expect(listed.object).toBe("list");
    expect(listed.has_more).toBe(false);
    expect(listed.data.map((pm) => pm.id)).toEqual([second.id, first.id]);
    const alsoListed = await stripe.paymentMethods.list({ customer: customer.id, type: "card" });
    expect(alsoListed.data.map((pm) => pm.id)).toEqual([second.id, first.id]);

    const updated = await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: first.id } });
    expect(updated.invoice_settings.default_payment_method).toBe(first.id);
    const expanded = await stripe.customers.retrieve(customer.id, { expand: ["invoice_settings.default_payment_method"] });
    expect(((expanded as Stripe.Customer).invoice_settings.default_payment_method as Stripe.PaymentMethod).card?.last4).toBe("4242");

    const renewed = await stripe.paymentMethods.update(second.id, { card: { exp_month: 6, exp_year: new Date().getUTCFullYear() + 5 } });
    expect(renewed.card?.exp_month).toBe(6);
    const detached = await stripe.paymentMethods.detach(first.id);
    expect(detached.customer).toBeNull();
    const after = (await stripe.customers.retrieve(customer.id)) as Stripe.Customer;
    expect(after.invoice_settings.default_payment_method).toBeNull();
    expect((await stripe.paymentMethods.list({ customer: customer.id })).data.map((pm) => pm.id)).toEqual([second.id]);
  });

  it("charges a one-time PaymentIntent, declines the test cards that decline, and refunds", async () => {
    const customer = await stripe.customers.create({ email: "once@example.com" });
    const pm = await card(CARDS.visa);
    const intent = await stripe.paymentIntents.create({
      amount: 4999,
      currency: "usd",
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      setup_future_usage: "off_session",
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      metadata: { kind: "one_time" },
    });
    expect(intent).toMatchObject({ status: "succeeded", amount: 4999, amount_received: 4999, metadata: { kind: "one_time" } });
    expect(intent.latest_charge).toMatch(/^ch_/);
    expect(typesAbout(intent.id)).toEqual(["payment_intent.succeeded"]);
    expect((await stripe.paymentMethods.retrieve(pm.id)).customer).toBe(customer.id);

    const declined = await card(CARDS.declined);
    const error = expectCardError(
      await rejection(
        stripe.paymentIntents.create({ amount: 4999, currency: "usd", customer: customer.id, payment_method: declined.id, confirm: true, ...NO_REDIRECTS }),
      ),
      "card_declined",
      "Your card was declined.",
    );
    expect(error.decline_code).toBe("generic_decline");
    expect(error.payment_intent?.status).toBe("requires_payment_method");
    expect(error.payment_intent?.last_payment_error?.message).toBe("Your card was declined.");
    expect(typesAbout(error.payment_intent?.id ?? "")).toEqual(["payment_intent.payment_failed"]);

    const poor = await card(CARDS.insufficient);
    const pending = await stripe.paymentIntents.create({ amount: 999, currency: "usd", payment_method: poor.id, ...NO_REDIRECTS });
    expect(pending.status).toBe("requires_confirmation");
    const insufficient = expectCardError(
      await rejection(stripe.paymentIntents.confirm(pending.id)),
      "card_declined",
      "Your card has insufficient funds.",
    );
    expect(insufficient.decline_code).toBe("insufficient_funds");

    const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 });
    expect(refund).toMatchObject({ object: "refund", status: "succeeded", amount: 1000, payment_intent: intent.id, charge: intent.latest_charge });
    const refundedEvent = eventsAbout(intent.latest_charge as string).find((e) => e.type === "charge.refunded");
    expect((refundedEvent?.data.object as Stripe.Charge | undefined)?.amount_refunded).toBe(1000);
    // Both of Stripe's events for a refund (refund.created for every refund since 2024-10-28.acacia), in Stripe's order.
    expect(typesAbout(refund.id)).toEqual(["refund.created"]);
    expect((eventsAbout(refund.id)[0]!.data.object as Stripe.Refund).amount).toBe(1000);
    expect(events.indexOf(refundedEvent!)).toBe(events.indexOf(eventsAbout(refund.id)[0]!) - 1);
    const tooMuch = await rejection(stripe.refunds.create({ payment_intent: intent.id, amount: 5000 }));
    expect(tooMuch).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });

  it("enables automatic_payment_methods by default, as Stripe does, and then asks a confirm for return_url", async () => {
    const customer = await stripe.customers.create({ email: "automatic@example.com" });
    const pm = await card(CARDS.visa);
    // Neither payment_method_types nor automatic_payment_methods: the Dashboard's methods, redirects allowed.
    const open = await stripe.paymentIntents.create({ amount: 1200, currency: "usd", customer: customer.id });
    expect(open.automatic_payment_methods).toEqual({ enabled: true, allow_redirects: "always" });
    expect(open.payment_method_types).toEqual(["card"]);
    expect((await stripe.paymentIntents.retrieve(open.id)).automatic_payment_methods).toEqual({ enabled: true, allow_redirects: "always" });
    // Sent: kept as sent. A list of methods instead (allowed_payment_method_types, this API version's
    // payment_method_types, which it no longer takes): none.
    const never = { enabled: true, allow_redirects: "never" } as const;
    expect((await stripe.paymentIntents.create({ amount: 1200, currency: "usd", automatic_payment_methods: never })).automatic_payment_methods).toEqual(never);
    const cardOnly = await stripe.paymentIntents.create({ amount: 1200, currency: "usd", allowed_payment_method_types: ["card"] });
    expect(cardOnly).toMatchObject({ automatic_payment_methods: null, allowed_payment_method_types: ["card"], payment_method_types: ["card"] });
    expect(
      await rejection(stripe.paymentIntents.create({ amount: 1200, currency: "usd", payment_method_types: ["card"] } as Stripe.PaymentIntentCreateParams)),
    ).toMatchObject({ code: "parameter_unknown", param: "payment_method_types" });

    // Redirects allowed and no return_url: Stripe refuses the confirm (400, nothing charged).
    const refused = async (promise: Promise<unknown>, what: string) => {
      const error = await rejection(promise);
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
      expect((error as Stripe.errors.StripeInvalidRequestError).statusCode).toBe(400);
      expect((error as Stripe.errors.StripeInvalidRequestError).message).toBe(returnUrlRequired(what));
    };
    const intents = async () => (await db.selectFrom("stripe_sandbox_objects").select("id").where("type", "=", "payment_intent").execute()).length;
    const before = await intents();
    await refused(stripe.paymentIntents.create({ amount: 1200, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true }), "Payment Intent");
    await refused(
      stripe.paymentIntents.create({
        amount: 1200,
        currency: "usd",
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        automatic_payment_methods: { enabled: true, allow_redirects: "always" },
      }),
      "Payment Intent",
    );
    expect(await intents()).toBe(before);
    await refused(stripe.paymentIntents.confirm(open.id, { payment_method: pm.id }), "Payment Intent");
    expect((await stripe.paymentIntents.retrieve(open.id)).status).toBe("requires_payment_method");
    expect(typesAbout(open.id)).toEqual([]);
    // With a return_url, with redirects off, or with card only, it pays.
    expect((await stripe.paymentIntents.confirm(open.id, { payment_method: pm.id, return_url: "https://portal.example/back" })).status).toBe("succeeded");
    const base = { amount: 1200, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true } as const;
    expect((await stripe.paymentIntents.create({ ...base, automatic_payment_methods: never })).status).toBe("succeeded");
    expect((await stripe.paymentIntents.create({ ...base, allowed_payment_method_types: ["card"] })).status).toBe("succeeded");

    // SetupIntents alike.
    const setup = await stripe.setupIntents.create({ customer: customer.id });
    expect(setup.automatic_payment_methods).toEqual({ enabled: true, allow_redirects: "always" });
    await refused(stripe.setupIntents.create({ customer: customer.id, payment_method: pm.id, confirm: true }), "Setup Intent");
    await refused(stripe.setupIntents.confirm(setup.id, { payment_method: pm.id }), "Setup Intent");
    expect((await stripe.setupIntents.confirm(setup.id, { payment_method: pm.id, return_url: "https://portal.example/cards" })).status).toBe("succeeded");
    expect((await stripe.setupIntents.create({ customer: customer.id, payment_method: pm.id, confirm: true, automatic_payment_methods: never })).status).toBe(
      "succeeded",
    );
  });

  it("answers one object to 20 concurrent requests with one idempotency key", async () => {
    const customer = await stripe.customers.create({ email: "idem@example.com" });
    const pm = await card(CARDS.visa);
    const params = { amount: 1500, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS } as const;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => stripe.paymentIntents.create(params, { idempotencyKey: "k1" })),
    );
    const ids = new Set(answers.map((a) => a.id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    const charges = await db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", "charge").execute();
    expect(charges.filter((row) => (JSON.parse(row.data) as Stripe.Charge).payment_intent === id)).toHaveLength(1);
    const intents = await db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", "payment_intent").execute();
    expect(intents.filter((row) => (JSON.parse(row.data) as Stripe.PaymentIntent).amount === 1500)).toHaveLength(1);
    expect(typesAbout(id as string)).toEqual(["payment_intent.succeeded"]);

    const reused = await rejection(stripe.paymentIntents.create({ ...params, amount: 1600 }, { idempotencyKey: "k1" }));
    expect(reused).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it("creates a default_incomplete subscription that invoices.pay makes active, events in order", async () => {
    const found = await stripe.prices.list({ lookup_keys: ["monthly"], active: true, limit: 1 });
    expect(found.data.map((p) => p.id)).toEqual([monthlyPrice.id]);
    const customer = await stripe.customers.create({ email: "sub@example.com" });
    const pm = await card(CARDS.visa);
    await stripe.paymentMethods.attach(pm.id, { customer: customer.id });
    const mark = events.length;
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: monthlyPrice.id, quantity: 1 }],
      default_payment_method: pm.id,
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      metadata: { user_id: "1", plan_id: "1" },
      expand: ["latest_invoice.confirmation_secret", "latest_invoice.payments"],
    });
    expect(sub.id).toMatch(/^sub_/);
    expect(sub.status).toBe("incomplete");
    const item = sub.items.data[0]!;
    expect(item.price.id).toBe(monthlyPrice.id);
    expect(item.current_period_end).toBe(addMonths(item.current_period_start, 1));
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ status: "open", amount_due: 1199, billing_reason: "subscription_create", currency: "usd" });
    expect(invoice.number).toMatch(/^SBX-\d{4}$/);
    expect(invoice.hosted_invoice_url).toBe(`${browserBase}/dev/stripe/invoices/${invoice.id}`);
    expect(invoice.parent?.subscription_details?.subscription).toBe(sub.id);
    expect(invoice.parent?.subscription_details?.metadata).toEqual({ user_id: "1", plan_id: "1" });
    expect(invoice.confirmation_secret?.client_secret).toMatch(/^pi_\w+_secret_\w+$/);
    expect(invoice.payments?.data[0]?.payment.payment_intent).toMatch(/^pi_/);
    expect(invoice.lines.data[0]?.period).toEqual({ start: item.current_period_start, end: item.current_period_end });
    // Not expanded: includable fields stay out.
    const plain = await stripe.invoices.retrieve(invoice.id);
    expect(plain.confirmation_secret).toBeUndefined();
    expect(plain.payments).toBeUndefined();

    const paid = await stripe.invoices.pay(invoice.id, { payment_method: pm.id }, { idempotencyKey: "pay-1" });
    expect(paid).toMatchObject({ status: "paid", amount_paid: 1199, amount_remaining: 0 });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active.status).toBe("active");
    expect(active.default_payment_method).toBe(pm.id);

    const order = events.slice(mark).map((e) => e.type);
    expect(order.slice(0, 3)).toEqual(["customer.subscription.created", "invoice.created", "invoice.finalized"]);
    const updated = events.slice(mark).findIndex((e) => e.type === "customer.subscription.updated");
    expect(order.indexOf("invoice.paid")).toBeGreaterThan(order.indexOf("payment_intent.succeeded"));
    expect(updated).toBeGreaterThan(order.indexOf("invoice.paid"));
    const updatedEvent = events[mark + updated]!;
    expect((updatedEvent.data.object as Stripe.Subscription).status).toBe("active");
    expect(updatedEvent.data.previous_attributes).toMatchObject({ status: "incomplete" });
    expect(updatedEvent).toMatchObject({ api_version: SANDBOX_API_VERSION, livemode: false, pending_webhooks: 1, object: "event" });
    const stored = await stripe.events.retrieve(updatedEvent.id);
    expect(stored.type).toBe("customer.subscription.updated");

    const invoices = await stripe.invoices.list({ subscription: sub.id });
    expect(invoices.data.map((i) => i.id)).toEqual([invoice.id]);
  });

  it("error_if_incomplete with a declined card answers the card error and leaves nothing", async () => {
    const { customer } = await customerWithCard(CARDS.declined, "declined@example.com");
    const mark = events.length;
    const error = await rejection(
      stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: monthlyPrice.id }],
        payment_behavior: "error_if_incomplete",
      }),
    );
    expectCardError(error, "card_declined", "Your card was declined.");
    expect((await stripe.subscriptions.list({ customer: customer.id, status: "all" })).data).toEqual([]);
    expect(events.slice(mark).filter((e) => e.type.startsWith("customer.subscription"))).toEqual([]);

    // allow_incomplete (the default) keeps an incomplete subscription with an open, failed invoice.
    const incomplete = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthlyPrice.id }] });
    expect(incomplete.status).toBe("incomplete");
    const invoice = await stripe.invoices.retrieve(incomplete.latest_invoice as string);
    expect(invoice).toMatchObject({ status: "open", attempted: true, attempt_count: 1 });
    expect(typesAbout(invoice.id)).toContain("invoice.payment_failed");
    const canceled = await stripe.subscriptions.cancel(incomplete.id, {}, { idempotencyKey: "cancel-1" });
    expect(canceled.status).toBe("canceled");
    expect((await stripe.invoices.retrieve(invoice.id)).status).toBe("void");
    expect(typesAbout(incomplete.id)).toContain("customer.subscription.deleted");
  });

  it("takes a promotion code's coupon off every invoice and a once coupon off the first only", async () => {
    const forever = await stripe.coupons.create({ amount_off: 500, currency: "usd", duration: "forever", name: "FIVE" });
    const promo = await stripe.promotionCodes.create({ code: "FIVEOFF", promotion: { type: "coupon", coupon: forever.id } });
    expect((await stripe.promotionCodes.list({ code: "fiveoff" })).data.map((p) => p.id)).toEqual([promo.id]);
    const { customer } = await customerWithCard(CARDS.visa, "promo@example.com");
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: monthlyPrice.id }],
      discounts: [{ promotion_code: promo.id }],
      expand: ["latest_invoice", "discounts"],
    });
    expect(sub.status).toBe("active");
    expect((sub.latest_invoice as Stripe.Invoice).amount_paid).toBe(699);
    expect((sub.discounts[0] as Stripe.Discount).source.coupon).toBe(forever.id);
    expect((await stripe.coupons.retrieve(forever.id)).times_redeemed).toBe(1);
  });

  it("pays a Checkout Session on the hosted page (no JavaScript)", async () => {
    const once = await stripe.coupons.create({ id: "portal_WELCOME10", percent_off: 10, duration: "once", name: "WELCOME10" });
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer_email: "Checkout.Person@example.com",
      line_items: [{ price: yearlyPrice.id, quantity: 1 }],
      discounts: [{ coupon: once.id }],
      success_url: "https://portal.example.com/checkout/done?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://portal.example.com/checkout?cancelled=1",
      metadata: { user_id: "9", plan_id: "5" },
      subscription_data: { metadata: { user_id: "9", plan_id: "5" } },
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(session).toMatchObject({ status: "open", payment_status: "unpaid", mode: "subscription", amount_total: 10778, subscription: null });
    expect(session.url).toBe(`${browserBase}/dev/stripe/checkout/${session.id}`);

    const page = await fetch(session.url!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain("Secure payment (sandbox)");
    expect(html).toContain("VPN 1 Year");
    expect(html).toContain("Checkout.Person@example.com");
    for (const label of ["Card number", "Expiry (MM / YY)", "CVC", "Cardholder name", "Postal code"]) {
      expect(html).toMatch(new RegExp(`<label for="[a-z_]+">${label.replace(/[()/]/g, "\\$&")}</label>`));
    }
    expect(html).toContain("<button type=\"submit\">Pay $107.78</button>");
    expect(html).toContain('href="https://portal.example.com/checkout?cancelled=1">Cancel</a>');
    expect(html).toContain("4242 4242 4242 4242");
    expect(html).not.toMatch(/<script|style=/i);

    const post = (form: Record<string, string>) =>
      fetch(session.url!, { method: "POST", body: new URLSearchParams(form), redirect: "manual" });
    const filled = {
      card_number: CARDS.declined,
      card_expiry: "12 / 39",
      card_cvc: "123",
      billing_name: "Checkout <Person>",
      billing_postal_code: "10115",
    };

    const blank = await post({ ...filled, card_number: "", billing_name: "" });
    expect(blank.status).toBe(422);
    const blankHtml = await blank.text();
    expect(blankHtml).toContain("Your card number is incomplete.");
    expect(blankHtml).toContain("Please enter the cardholder name");

    const unknown = await post({ ...filled, card_number: "4111 1111 1111 1111" });
    expect(unknown.status).toBe(422);
    expect(await unknown.text()).toContain(SANDBOX_MESSAGE.replace("'", "&#39;"));

    const declined = await post(filled);
    expect(declined.status).toBe(402);
    const declinedHtml = await declined.text();
    expect(declinedHtml).toContain('role="alert"><p>Your card was declined.</p>');
    expect(declinedHtml).toContain('value="Checkout &lt;Person&gt;"');
    expect(declinedHtml).toContain('value="12 / 39"');
    // The card number and CVC are never sent back.
    expect(declinedHtml).toMatch(/<input id="card_number"[^>]* value="">/);
    expect(declinedHtml).toMatch(/<input id="card_cvc"[^>]* value="">/);
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe("open");

    const mark = events.length;
    const paid = await post({ ...filled, card_number: CARDS.visa });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`https://portal.example.com/checkout/done?session_id=${session.id}`);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["subscription", "line_items"] });
    expect(done).toMatchObject({ status: "complete", payment_status: "paid", customer_details: { email: "Checkout.Person@example.com" } });
    const sub = done.subscription as Stripe.Subscription;
    expect(sub.status).toBe("active");
    expect(sub.metadata).toEqual({ user_id: "9", plan_id: "5" });
    expect(done.line_items?.data[0]?.amount_total).toBe(10778);
    expect(Object.keys(done).filter((key) => key.startsWith("_"))).toEqual([]);
    const invoice = await stripe.invoices.retrieve(done.invoice as string);
    expect(invoice).toMatchObject({ status: "paid", amount_paid: 10778, subtotal: 11976 });
    const pm = await stripe.paymentMethods.retrieve(sub.default_payment_method as string);
    expect(pm).toMatchObject({ customer: done.customer, card: { last4: "4242" } });

    const types = events.slice(mark).map((e) => e.type);
    expect(types.at(-1)).toBe("checkout.session.completed");
    expect(types).toEqual(expect.arrayContaining(["customer.created", "payment_method.attached", "invoice.paid"]));
    const completed = events.at(-1)!.data.object as Stripe.Checkout.Session;
    expect(completed).toMatchObject({ id: session.id, subscription: sub.id, invoice: invoice.id, payment_status: "paid" });

    // A second submit charges nothing more; the page now says the session is complete.
    const again = await post({ ...filled, card_number: CARDS.visa });
    expect(again.status).toBe(303);
    expect(events.length).toBe(mark + types.length);
    const closed = await (await fetch(session.url!)).text();
    expect(closed).toContain("This checkout session is complete");
  });

  it("pays a one-time Checkout Session and saves the card", async () => {
    const price = await stripe.prices.create({ currency: "usd", unit_amount: 17999, product_data: { name: "VPN 5 Years" } });
    const customer = await stripe.customers.create({ email: "five@example.com" });
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      customer: customer.id,
      line_items: [{ price: price.id, quantity: 1 }],
      success_url: "https://portal.example.com/done?session_id={CHECKOUT_SESSION_ID}",
      payment_intent_data: { metadata: { kind: "one_time" }, setup_future_usage: "off_session" },
    });
    const res = await fetch(session.url!, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ card_number: CARDS.visa, card_expiry: "0139", card_cvc: "4321", billing_name: "Five", billing_postal_code: "99999" }),
    });
    expect(res.status).toBe(303);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent.payment_method"] });
    const intent = done.payment_intent as Stripe.PaymentIntent;
    expect(intent).toMatchObject({ status: "succeeded", amount: 17999, metadata: { kind: "one_time" } });
    expect((intent.payment_method as Stripe.PaymentMethod).customer).toBe(customer.id);
  });

  it("saves a card with a SetupIntent (every test card: they decline only when charged)", async () => {
    const customer = await stripe.customers.create({ email: "setup@example.com" });
    const pm = await card(CARDS.declined);
    const setup = await stripe.setupIntents.create({ customer: customer.id, payment_method: pm.id, confirm: true, usage: "off_session", ...NO_REDIRECTS });
    expect(setup).toMatchObject({ object: "setup_intent", status: "succeeded", payment_method: pm.id });
    expect(setup.id).toMatch(/^seti_/);
    expect(typesAbout(setup.id)).toEqual(["setup_intent.succeeded"]);
    expect((await stripe.paymentMethods.retrieve(pm.id)).customer).toBe(customer.id);
    const waiting = await stripe.setupIntents.create({ customer: customer.id });
    expect((await stripe.setupIntents.retrieve(waiting.id)).status).toBe("requires_payment_method");
  });

  it("tokenizes a card for the inline form with the publishable key", async () => {
    const url = `${browserBase}/dev/stripe/v1/payment_methods`;
    const form = new URLSearchParams({
      type: "card",
      "card[number]": CARDS.visa,
      "card[exp_month]": "11",
      "card[exp_year]": "40",
      "card[cvc]": "123",
      "billing_details[name]": "Inline",
      "billing_details[address][postal_code]": "12345",
    });
    const ok = await fetch(url, { method: "POST", body: form, headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}` } });
    expect(ok.status).toBe(200);
    const pm = (await ok.json()) as Stripe.PaymentMethod;
    expect(pm).toMatchObject({ object: "payment_method", card: { last4: "4242", exp_year: 2040 }, billing_details: { name: "Inline" } });
    expect((await stripe.paymentMethods.retrieve(pm.id)).id).toBe(pm.id);

    const json = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "card", card: { number: digitsOf(DECLINED_CARD), exp_month: 1, exp_year: 2041, cvc: "999" } }),
    });
    expect(json.status).toBe(200);
    expect(((await json.json()) as Stripe.PaymentMethod).card?.last4).toBe("0002");

    const real = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${SANDBOX_PUBLISHABLE_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "card", card: { number: "5105 1051 0510 5100", exp_month: 1, exp_year: 2041, cvc: "999" } }),
    });
    expect(real.status).toBe(402);
    expect((await real.json()).error).toMatchObject({ type: "card_error", code: "incorrect_number", message: SANDBOX_MESSAGE });

    const secret = await fetch(url, { method: "POST", body: form, headers: { authorization: `Bearer ${SANDBOX_SECRET_KEY}` } });
    expect(secret.status).toBe(401);
    for (const path of ["/somewhere-else", "/dev/stripe", "/dev/stripe/nothing-here"]) {
      expect(await (await fetch(`${browserBase}${path}`)).text()).toBe(`fell through: ${path}`);
    }
  });

  it("retries a webhook whose delivery failed on the next advance()", async () => {
    failDeliveries = 1;
    const customer = await stripe.customers.create({ email: "retry@example.com" });
    expect(typesAbout(customer.id)).toEqual([]);
    const warning = logger.lines.find((line) => line.includes("customer.created"));
    expect(warning).toMatch(/webhook evt_\w+ \(customer\.created\) failed/);
    expect(warning).not.toContain("retry@example.com");
    await sandbox.advance();
    expect(typesAbout(customer.id)).toEqual(["customer.created"]);
  });

  it("advance() renews, fails, cancels at period end — once, even when called twice", async () => {
    const renewing = await customerWithCard(CARDS.visa, "renew@example.com");
    const monthly = await stripe.subscriptions.create({ customer: renewing.customer.id, items: [{ price: monthlyPrice.id }] });
    const onceCoupon = await stripe.coupons.create({ percent_off: 50, duration: "once" });
    const discounted = await stripe.subscriptions.create({
      customer: renewing.customer.id,
      items: [{ price: monthlyPrice.id }],
      discounts: [{ coupon: onceCoupon.id }],
    });

    const failing = await customerWithCard(CARDS.visa, "fail@example.com");
    const doomed = await stripe.subscriptions.create({ customer: failing.customer.id, items: [{ price: monthlyPrice.id }] });
    expect(doomed.status).toBe("active");
    const poor = await card(CARDS.insufficient);
    await stripe.paymentMethods.attach(poor.id, { customer: failing.customer.id });
    await stripe.subscriptions.update(doomed.id, { default_payment_method: poor.id });

    const leaving = await customerWithCard(CARDS.visa, "leave@example.com");
    const ending = await stripe.subscriptions.create({ customer: leaving.customer.id, items: [{ price: monthlyPrice.id }] });
    const marked = await stripe.subscriptions.update(ending.id, { cancel_at_period_end: true });
    expect(marked).toMatchObject({ cancel_at_period_end: true, status: "active" });
    const markedEvent = eventsAbout(ending.id).at(-1)!;
    expect(markedEvent.type).toBe("customer.subscription.updated");
    expect(markedEvent.data.previous_attributes).toMatchObject({ cancel_at_period_end: false });

    const abandoned = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: monthlyPrice.id }],
      success_url: "https://portal.example.com/done",
      cancel_url: "https://portal.example.com/back",
    });

    const start = monthly.items.data[0]!.current_period_start;
    clock.advanceSeconds(addMonths(start, 3) + 3600 - Math.floor(clock.now().getTime() / 1000));
    const mark = events.length;
    await Promise.all([sandbox.advance(), sandbox.advance()]);

    // Three monthly renewals, each paid, invoice.paid before the subscription's update.
    const renewals = (await stripe.invoices.list({ subscription: monthly.id })).data.filter((i) => i.billing_reason === "subscription_cycle");
    expect(renewals).toHaveLength(3);
    expect(renewals.every((i) => i.status === "paid" && i.amount_paid === 1199)).toBe(true);
    expect(renewals.map((i) => i.lines.data[0]!.period.start).sort()).toEqual([1, 2, 3].map((n) => addMonths(start, n)));
    const current = await stripe.subscriptions.retrieve(monthly.id);
    expect(current.status).toBe("active");
    expect(current.items.data[0]!.current_period_end).toBe(addMonths(start, 4));
    const flow = events.slice(mark).filter(
      (e) =>
        (e.type === "invoice.paid" && renewals.some((r) => r.id === (e.data.object as Stripe.Invoice).id)) ||
        (e.type === "customer.subscription.updated" && (e.data.object as Stripe.Subscription).id === monthly.id),
    );
    expect(flow.map((e) => e.type)).toEqual(Array.from({ length: 3 }, () => ["invoice.paid", "customer.subscription.updated"]).flat());

    // A once coupon: the first invoice only.
    const discountedInvoices = (await stripe.invoices.list({ subscription: discounted.id })).data;
    expect(discountedInvoices.map((i) => i.amount_due).sort((a, b) => a - b)).toEqual([599, 1199, 1199, 1199]);

    // A declined renewal: invoice.payment_failed, past_due; the next period end unpaid cancels it.
    const failed = (await stripe.invoices.list({ subscription: doomed.id })).data.filter((i) => i.billing_reason === "subscription_cycle");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ status: "open", attempted: true });
    expect(typesAbout(failed[0]!.id)).toContain("invoice.payment_failed");
    const doomedEvents = eventsAbout(doomed.id);
    expect(doomedEvents.some((e) => (e.data.object as Stripe.Subscription).status === "past_due")).toBe(true);
    expect(doomedEvents.at(-1)?.type).toBe("customer.subscription.deleted");
    const gone = await stripe.subscriptions.retrieve(doomed.id);
    expect(gone.status).toBe("canceled");
    expect(gone.ended_at).toBe(addMonths(doomed.items.data[0]!.current_period_start, 2));

    // cancel_at_period_end: deleted at the period's end, never renewed.
    const ended = await stripe.subscriptions.retrieve(ending.id);
    expect(ended.status).toBe("canceled");
    expect(ended.ended_at).toBe(ending.items.data[0]!.current_period_end);
    expect(eventsAbout(ending.id).at(-1)?.type).toBe("customer.subscription.deleted");
    expect((await stripe.invoices.list({ subscription: ending.id })).data).toHaveLength(1);

    // Checkout Sessions expire after 24 hours.
    expect((await stripe.checkout.sessions.retrieve(abandoned.id)).status).toBe("expired");
    expect(typesAbout(abandoned.id)).toEqual(["checkout.session.expired"]);
    const expiredPage = await fetch(`${browserBase}/dev/stripe/checkout/${abandoned.id}`);
    const expiredHtml = await expiredPage.text();
    expect(expiredHtml).toContain("This checkout session has expired.");
    expect(expiredHtml).toContain('href="https://portal.example.com/back"');

    const before = events.length;
    await sandbox.advance();
    expect(events.length).toBe(before);
    expect((await stripe.invoices.list({ subscription: monthly.id })).data).toHaveLength(4);
  });

  it("shows the hosted invoice page, and pays an open invoice there", async () => {
    const { customer } = await customerWithCard(CARDS.declined, "hosted@example.com");
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: yearlyPrice.id }] });
    const invoice = await stripe.invoices.retrieve(sub.latest_invoice as string);
    expect(invoice.status).toBe("open");
    const path = new URL(invoice.hosted_invoice_url!).pathname;
    const page = await fetch(`${browserBase}${path}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(invoice.number!);
    expect(html).toContain(new Date(invoice.created * 1000).toISOString().slice(0, 10));
    expect(html).toContain("hosted@example.com");
    expect(html).toContain("1 × VPN 1 Year (at $119.76 / year)");
    expect(html).toContain("$119.76");
    expect(html).toContain('<dd class="status">Open</dd>');
    expect(html).not.toMatch(/<script|style=/i);

    const pay = await fetch(`${browserBase}${path}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ card_number: CARDS.visa, card_expiry: "10/38", card_cvc: "123", billing_name: "Hosted", billing_postal_code: "1000" }),
    });
    expect(pay.status).toBe(303);
    const paidHtml = await (await fetch(`${browserBase}${path}`)).text();
    expect(paidHtml).toContain('<dd class="status">Paid</dd>');
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("active");

    const missing = await fetch(`${browserBase}/dev/stripe/invoices/in_nope`);
    expect(missing.status).toBe(404);
  });

  it("keeps its state in the database: a second instance knows it and shares idempotency keys", async () => {
    const customer = await stripe.customers.create({ email: "persist@example.com" });
    const other = createStripeSandbox({ db, clock, publicUrl: browserBase, deliverEvent: async () => {} });
    const rest = await other.listen();
    try {
      const client = new Stripe(SANDBOX_SECRET_KEY, { host: "127.0.0.1", port: rest.port, protocol: "http", apiVersion: SANDBOX_API_VERSION });
      expect(((await client.customers.retrieve(customer.id)) as Stripe.Customer).email).toBe("persist@example.com");
      // Two instances, one key, concurrent requests: one payment.
      const pm = await card(CARDS.visa);
      const params = { amount: 2500, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS } as const;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? client : stripe).paymentIntents.create(params, { idempotencyKey: "k2" })),
      );
      expect(new Set(answers.map((a) => a.id)).size).toBe(1);
      const intents = await db.selectFrom("stripe_sandbox_objects").select("data").where("type", "=", "payment_intent").execute();
      expect(intents.filter((row) => (JSON.parse(row.data) as Stripe.PaymentIntent).amount === 2500)).toHaveLength(1);

      // Two instances advancing at once renew a period once.
      const pmForSub = await card(CARDS.visa);
      await stripe.paymentMethods.attach(pmForSub.id, { customer: customer.id });
      const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthlyPrice.id }], default_payment_method: pmForSub.id });
      const end = sub.items.data[0]!.current_period_end;
      clock.advanceSeconds(end + 60 - Math.floor(clock.now().getTime() / 1000));
      await Promise.all([sandbox.advance(), other.advance(), sandbox.advance(), other.advance()]);
      const invoices = (await stripe.invoices.list({ subscription: sub.id })).data;
      expect(invoices.map((i) => i.billing_reason)).toEqual(["subscription_cycle", "subscription_create"]);
      expect((await stripe.subscriptions.retrieve(sub.id)).items.data[0]!.current_period_start).toBe(end);
    } finally {
      await rest.close();
    }
    expect(deliveryProblems).toEqual([]);
  });
});
