/**
 * The Stripe sandbox's test cards beyond 4242, 3-D Secure (requires_action, the challenge page) and
 * the automatic retries of failed renewals, driven through the real Stripe SDK; the challenge page
 * through fetch like a browser without JavaScript. SQLite, and PostgreSQL with TEST_DATABASE_URL
 * (where two sandbox instances on one database race their advance()).
 */
import express from "express";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, createDatabase } from "../../api/platform/db";
import { migrateSandboxes } from "../../api/sandboxes/migrations";
import {
  SANDBOX_API_VERSION,
  SANDBOX_SECRET_KEY,
  SANDBOX_WEBHOOK_SECRET,
  type StripeSandbox,
  createStripeSandbox,
} from "../../api/sandboxes/stripe";
import { AMEX, ATTACH_THEN_DECLINE_CARD, GOOD_CARD, MASTERCARD, THREE_DS_ALWAYS_CARD, THREE_DS_CARD, digitsOf } from "../support/cards";
import { TestClock } from "../support/clock";
import { MemoryLogger, type TestDatabase, databases, listen } from "./harness";

const AUTH_REQUIRED = "Your card was declined. This transaction requires authentication.";
const AUTH_FAILED = "We are unable to authenticate your payment method. Please choose a different payment method and try again.";
const DAY = 86_400;
/** What the product sends without a return_url (a confirm with redirects allowed needs one, as at Stripe). */
const NO_REDIRECTS = { automatic_payment_methods: { enabled: true, allow_redirects: "never" } } as const;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

function cardErrorOf(error: unknown): Stripe.errors.StripeCardError {
  expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
  return error as Stripe.errors.StripeCardError;
}

describe.each(databases({ postgres: "two sandbox instances racing advance()" }))("Stripe sandbox: test cards, 3-D Secure and retries ($name)", (kind) => {
  let database: TestDatabase;
  let db: Database;
  let sandbox: StripeSandbox;
  let second: StripeSandbox;
  let stripe: Stripe;
  let browserBase: string;
  const closers: (() => Promise<void>)[] = [];
  const clock = new TestClock();
  const events: Stripe.Event[] = [];
  let monthly: Stripe.Price;

  const card = (number: string, cvc = "123") =>
    stripe.paymentMethods.create({
      type: "card",
      card: { number: digitsOf(number), exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc },
    });
  const typesAbout = (id: string) => events.filter((e) => (e.data.object as { id?: string }).id === id).map((e) => e.type);

  async function customerWith(number: string) {
    const customer = await stripe.customers.create({ email: `c${Math.random().toString(36).slice(2)}@example.com` });
    const pm = await card(number);
    await stripe.paymentMethods.attach(pm.id, { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: pm.id } });
    return { customer, pm };
  }

  /** GET the challenge, then POST one of its two forms; the answer (redirect not followed). */
  async function answerChallenge(url: string, result: "complete" | "fail"): Promise<Response> {
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Complete authentication");
    expect(html).toContain("Fail authentication");
    expect(html).not.toContain("<script");
    expect(page.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&");
    expect(action).toBeTruthy();
    return fetch(new URL(action!, url), {
      method: "POST",
      body: new URLSearchParams({ result }),
      redirect: "manual",
    });
  }

  function makeSandbox(publicUrl: string): StripeSandbox {
    const verifier = new Stripe(SANDBOX_SECRET_KEY, { apiVersion: SANDBOX_API_VERSION });
    return createStripeSandbox({
      db,
      clock,
      publicUrl,
      logger: new MemoryLogger(),
      async deliverEvent(payload, signature) {
        events.push(verifier.webhooks.constructEvent(payload, signature, SANDBOX_WEBHOOK_SECRET));
      },
    });
  }

  beforeAll(async () => {
    database = await kind.createMigrated();
    db = createDatabase(database.url);
    await migrateSandboxes(db);
    const browserApp = express();
    browserApp.use((req, res, next) => sandbox.browserRouter(req, res, next));
    const browser = await listen(browserApp);
    browserBase = `http://127.0.0.1:${browser.port}`;
    closers.push(browser.close);
    sandbox = makeSandbox(browserBase);
    second = makeSandbox(browserBase);
    const rest = await sandbox.listen();
    closers.push(rest.close);
    stripe = new Stripe(SANDBOX_SECRET_KEY, { host: "127.0.0.1", port: rest.port, protocol: "http", apiVersion: SANDBOX_API_VERSION });
    monthly = await stripe.prices.create({ currency: "usd", unit_amount: 999, recurring: { interval: "month" }, product_data: { name: "VPN 1 Month" } });
  });

  afterAll(async () => {
    for (const close of closers) await close();
    await db?.destroy();
    await database?.drop();
  });

  it("Mastercard and American Express pay like 4242; 0341 saves, then every charge is declined", async () => {
    const mc = await card(MASTERCARD);
    expect(mc.card).toMatchObject({ brand: "mastercard", last4: "4444" });
    const amex = await card(AMEX, "1234");
    expect(amex.card).toMatchObject({ brand: "amex", last4: "0005" });
    for (const pm of [mc, amex]) {
      const paid = await stripe.paymentIntents.create({ amount: 999, currency: "usd", payment_method: pm.id, confirm: true, ...NO_REDIRECTS });
      expect(paid.status).toBe("succeeded");
    }

    const { customer, pm } = await customerWith(ATTACH_THEN_DECLINE_CARD);
    const setup = await stripe.setupIntents.create({ customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS });
    expect(setup.status).toBe("succeeded");
    const declined = cardErrorOf(
      await rejection(stripe.paymentIntents.create({ amount: 999, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS, off_session: true })),
    );
    expect(declined).toMatchObject({ code: "card_declined", decline_code: "generic_decline" });
    // Any other number is still refused.
    expect(cardErrorOf(await rejection(card("4000 0000 0000 3220"))).code).toBe("incorrect_number");
  });

  it("3155 needs authentication on-session: next_action with and without return_url, and the challenge completes it", async () => {
    const { customer, pm } = await customerWith(THREE_DS_CARD);
    const intent = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS });
    expect(intent.status).toBe("requires_action");
    expect(intent.next_action?.type).toBe("use_stripe_sdk");
    const sdk = intent.next_action?.use_stripe_sdk as { type: string; stripe_js: string };
    expect(sdk.type).toBe("three_d_secure_redirect");
    expect(sdk.stripe_js).toMatch(new RegExp(`^${browserBase}/dev/stripe/authenticate/${intent.id}\\?`));
    expect(typesAbout(intent.id)).toContain("payment_intent.requires_action");

    // Confirmed again with a return_url: the redirect form.
    const again = await stripe.paymentIntents.confirm(intent.id, { return_url: "https://portal.example/pay/return?x=1" });
    expect(again.status).toBe("requires_action");
    expect(again.next_action).toMatchObject({
      type: "redirect_to_url",
      redirect_to_url: { return_url: "https://portal.example/pay/return?x=1" },
    });
    const answer = await answerChallenge(again.next_action!.redirect_to_url!.url!, "complete");
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("https://portal.example/pay/return");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      x: "1",
      payment_intent: intent.id,
      payment_intent_client_secret: intent.client_secret,
      redirect_status: "succeeded",
    });
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("succeeded");
    expect(typesAbout(intent.id)).toContain("payment_intent.succeeded");
  });

  it("a failed challenge: requires_payment_method with payment_intent_authentication_failure, and without return_url a page", async () => {
    const { customer, pm } = await customerWith(THREE_DS_CARD);
    const intent = await stripe.paymentIntents.create({
      amount: 1500,
      currency: "usd",
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      return_url: "https://portal.example/back",
    });
    const failed = await answerChallenge(intent.next_action!.redirect_to_url!.url!, "fail");
    expect(failed.status).toBe(303);
    expect(new URL(failed.headers.get("location")!).searchParams.get("redirect_status")).toBe("failed");
    const after = await stripe.paymentIntents.retrieve(intent.id);
    expect(after.status).toBe("requires_payment_method");
    expect(after.last_payment_error).toMatchObject({ code: "payment_intent_authentication_failure", message: AUTH_FAILED });
    expect(typesAbout(intent.id)).toContain("payment_intent.payment_failed");

    const other = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS });
    const page = await answerChallenge((other.next_action!.use_stripe_sdk as { stripe_js: string }).stripe_js, "complete");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Authentication complete");
    // A wrong client secret finds nothing.
    expect((await fetch(`${browserBase}/dev/stripe/authenticate/${other.id}?client_secret=nope`)).status).toBe(404);
  });

  it("3155 set up by a SetupIntent charges off-session without asking; 3184 always asks, off-session fails", async () => {
    const { customer, pm } = await customerWith(THREE_DS_CARD);
    const setup = await stripe.setupIntents.create({ customer: customer.id, payment_method: pm.id, confirm: true, return_url: "https://portal.example/cards" });
    expect(setup.status).toBe("requires_action");
    expect(typesAbout(setup.id)).toContain("setup_intent.requires_action");
    const done = await answerChallenge(setup.next_action!.redirect_to_url!.url!, "complete");
    const back = new URL(done.headers.get("location")!);
    expect(back.searchParams.get("setup_intent")).toBe(setup.id);
    expect(back.searchParams.get("setup_intent_client_secret")).toBe(setup.client_secret);
    expect(back.searchParams.get("redirect_status")).toBe("succeeded");
    expect((await stripe.setupIntents.retrieve(setup.id)).status).toBe("succeeded");
    const offSession = await stripe.paymentIntents.create({ amount: 999, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, ...NO_REDIRECTS, off_session: true });
    expect(offSession.status).toBe("succeeded");

    // Not set up: an off-session charge of 3155 fails too.
    const fresh = await customerWith(THREE_DS_CARD);
    const notSetUp = cardErrorOf(
      await rejection(stripe.paymentIntents.create({ amount: 999, currency: "usd", customer: fresh.customer.id, payment_method: fresh.pm.id, confirm: true, ...NO_REDIRECTS, off_session: true })),
    );
    expect(notSetUp.code).toBe("authentication_required");

    const always = await customerWith(THREE_DS_ALWAYS_CARD);
    const alwaysSetup = await stripe.setupIntents.create({ customer: always.customer.id, payment_method: always.pm.id, confirm: true, ...NO_REDIRECTS });
    expect(alwaysSetup.status).toBe("requires_action");
    await answerChallenge((alwaysSetup.next_action!.use_stripe_sdk as { stripe_js: string }).stripe_js, "complete");
    const error = cardErrorOf(
      await rejection(
        stripe.paymentIntents.create({ amount: 999, currency: "usd", customer: always.customer.id, payment_method: always.pm.id, confirm: true, ...NO_REDIRECTS, off_session: true }),
      ),
    );
    expect(error.code).toBe("authentication_required");
    expect(error.message).toBe(AUTH_REQUIRED);
    const pi = (error.raw as { payment_intent?: { id: string } }).payment_intent;
    expect((await stripe.paymentIntents.retrieve(pi!.id)).status).toBe("requires_action");

    // A failed SetupIntent challenge.
    const failing = await stripe.setupIntents.create({ customer: always.customer.id, payment_method: always.pm.id, confirm: true, ...NO_REDIRECTS });
    await answerChallenge((failing.next_action!.use_stripe_sdk as { stripe_js: string }).stripe_js, "fail");
    const failed = await stripe.setupIntents.retrieve(failing.id);
    expect(failed.status).toBe("requires_payment_method");
    expect(failed.last_setup_error?.code).toBe("setup_intent_authentication_failure");
    expect(typesAbout(failing.id)).toContain("setup_intent.setup_failed");
  });

  it("invoices.pay with 3184 fails with invoice_payment_intent_requires_action; the challenge pays the invoice", async () => {
    const { customer, pm } = await customerWith(GOOD_CARD);
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], payment_behavior: "default_incomplete" });
    const invoiceId = sub.latest_invoice as string;
    const always = await card(THREE_DS_ALWAYS_CARD);
    await stripe.paymentMethods.attach(always.id, { customer: customer.id });
    const error = cardErrorOf(await rejection(stripe.invoices.pay(invoiceId, { payment_method: always.id })));
    expect(error.code).toBe("invoice_payment_intent_requires_action");
    const invoice = await stripe.invoices.retrieve(invoiceId, { expand: ["payments.data.payment.payment_intent"] });
    expect(invoice.status).toBe("open");
    const intent = invoice.payments!.data[0]!.payment.payment_intent as Stripe.PaymentIntent;
    expect(intent.status).toBe("requires_action");
    expect(typesAbout(invoiceId)).toContain("invoice.payment_action_required");

    await answerChallenge((intent.next_action!.use_stripe_sdk as { stripe_js: string }).stripe_js, "complete");
    expect((await stripe.invoices.retrieve(invoiceId)).status).toBe("paid");
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("active");
    expect(typesAbout(invoiceId)).toEqual(expect.arrayContaining(["invoice.paid", "invoice.payment_succeeded"]));
    expect(pm.id).toBeTruthy();
  });

  it("the hosted invoice page goes through the challenge with a 3-D Secure card and comes back paid", async () => {
    const { customer } = await customerWith(GOOD_CARD);
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], payment_behavior: "default_incomplete" });
    const invoiceId = sub.latest_invoice as string;
    const pay = await fetch(`${browserBase}/dev/stripe/invoices/${invoiceId}`, {
      method: "POST",
      body: new URLSearchParams({ card_number: THREE_DS_CARD, card_expiry: "12 / 40", card_cvc: "123", billing_name: "Ada", billing_postal_code: "10115" }),
      redirect: "manual",
    });
    expect(pay.status).toBe(303);
    const challenge = pay.headers.get("location")!;
    expect(challenge).toContain("/dev/stripe/authenticate/pi_");
    const done = await answerChallenge(challenge, "complete");
    expect(new URL(done.headers.get("location")!).pathname).toBe(`/dev/stripe/invoices/${invoiceId}`);
    expect((await stripe.invoices.retrieve(invoiceId)).status).toBe("paid");
  });

  it("hosted Checkout with a 3-D Secure card goes through the challenge, then to success_url", async () => {
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      line_items: [{ price: monthly.id, quantity: 1 }],
      customer_email: "checkout-3ds@example.com",
      success_url: "https://portal.example/done?session={CHECKOUT_SESSION_ID}",
    });
    const form = { card_number: THREE_DS_CARD, card_expiry: "12 / 40", card_cvc: "123", billing_name: "Ada", billing_postal_code: "10115" };
    const pay = await fetch(`${browserBase}/dev/stripe/checkout/${session.id}`, { method: "POST", body: new URLSearchParams(form), redirect: "manual" });
    expect(pay.status).toBe(303);
    expect((await stripe.checkout.sessions.retrieve(session.id)).status).toBe("open");
    const back = await answerChallenge(pay.headers.get("location")!, "complete");
    expect(new URL(back.headers.get("location")!).pathname).toBe(`/dev/stripe/checkout/${session.id}/return`);
    const finish = await fetch(back.headers.get("location")!, { redirect: "manual" });
    expect(finish.status).toBe(303);
    expect(finish.headers.get("location")).toBe(`https://portal.example/done?session=${session.id}`);
    const completed = await stripe.checkout.sessions.retrieve(session.id);
    expect(completed.status).toBe("complete");
    expect((await stripe.subscriptions.retrieve(completed.subscription as string)).status).toBe("active");

    // A failed challenge leaves the session open, with the message on the page.
    const other = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price_data: { currency: "usd", unit_amount: 500, product_data: { name: "Once" } }, quantity: 1 }],
      success_url: "https://portal.example/done",
    });
    const pay2 = await fetch(`${browserBase}/dev/stripe/checkout/${other.id}`, { method: "POST", body: new URLSearchParams(form), redirect: "manual" });
    const back2 = await answerChallenge(pay2.headers.get("location")!, "fail");
    const refused = await fetch(back2.headers.get("location")!, { redirect: "manual" });
    expect(refused.status).toBe(402);
    expect(await refused.text()).toContain(AUTH_FAILED.replace(/'/g, "&#39;"));
    expect((await stripe.checkout.sessions.retrieve(other.id)).status).toBe("open");
  });

  it("a declined renewal is retried at 1, 3, 5 and 7 days; the subscription stays past_due, then a retry can pay it", async () => {
    clock.reset();
    const { customer, pm } = await customerWith(GOOD_CARD);
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], default_payment_method: pm.id });
    expect(sub.status).toBe("active");
    const periodEnd = sub.items.data[0]!.current_period_end;
    // The card now declines: the subscription's default becomes 0341 (saved, declined when charged).
    const bad = await card(ATTACH_THEN_DECLINE_CARD);
    await stripe.paymentMethods.attach(bad.id, { customer: customer.id });
    await stripe.subscriptions.update(sub.id, { default_payment_method: bad.id });

    const days = (periodEnd - Math.floor(clock.now().getTime() / 1000)) / DAY;
    clock.advanceSeconds(Math.ceil(days * DAY) + 60);
    await Promise.all([sandbox.advance(), second.advance()]);
    const renewed = await stripe.subscriptions.retrieve(sub.id);
    expect(renewed.status).toBe("past_due");
    const invoiceId = renewed.latest_invoice as string;
    let invoice = await stripe.invoices.retrieve(invoiceId);
    expect(invoice).toMatchObject({ status: "open", attempt_count: 1, next_payment_attempt: periodEnd + DAY });
    expect(renewed.items.data[0]!.current_period_start).toBe(periodEnd);

    // Each retry once, even with two instances advancing at once.
    const schedule = [3, 5, 7];
    for (const [i, day] of [1, 3, 5, 7].entries()) {
      clock.advanceDays(i === 0 ? 1 : day - [1, 3, 5, 7][i - 1]!);
      await Promise.all([sandbox.advance(), second.advance(), sandbox.advance()]);
      invoice = await stripe.invoices.retrieve(invoiceId);
      expect(invoice.attempt_count).toBe(i + 2);
      expect(invoice.next_payment_attempt).toBe(schedule[i] === undefined ? null : periodEnd + schedule[i]! * DAY);
    }
    expect(typesAbout(invoiceId).filter((t) => t === "invoice.payment_failed")).toHaveLength(5);
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("past_due");

    // After the last try nothing more happens; paying through the API (another card) makes it active, periods unchanged.
    clock.advanceDays(2);
    await sandbox.advance();
    expect((await stripe.invoices.retrieve(invoiceId)).attempt_count).toBe(5);
    await stripe.invoices.pay(invoiceId, { payment_method: pm.id });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active.status).toBe("active");
    expect(active.items.data[0]!.current_period_start).toBe(periodEnd);
    clock.reset();
  });

  it("a retry that succeeds pays the invoice and makes the subscription active; 3184 renewals ask for action", async () => {
    clock.reset();
    const { customer, pm } = await customerWith(GOOD_CARD);
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: monthly.id }], default_payment_method: pm.id });
    const periodEnd = sub.items.data[0]!.current_period_end;
    const always = await card(THREE_DS_ALWAYS_CARD);
    await stripe.paymentMethods.attach(always.id, { customer: customer.id });
    await stripe.subscriptions.update(sub.id, { default_payment_method: always.id });
    clock.advanceSeconds(periodEnd - Math.floor(clock.now().getTime() / 1000) + 60);
    await sandbox.advance();
    const pastDue = await stripe.subscriptions.retrieve(sub.id);
    expect(pastDue.status).toBe("past_due");
    const invoiceId = pastDue.latest_invoice as string;
    expect(typesAbout(invoiceId)).toEqual(expect.arrayContaining(["invoice.payment_failed", "invoice.payment_action_required"]));
    const invoice = await stripe.invoices.retrieve(invoiceId, { expand: ["payments.data.payment.payment_intent"] });
    expect((invoice.payments!.data[0]!.payment.payment_intent as Stripe.PaymentIntent).status).toBe("requires_action");

    // The customer fixes the card (back to 4242): the next retry pays.
    await stripe.subscriptions.update(sub.id, { default_payment_method: pm.id });
    clock.advanceDays(1);
    await Promise.all([sandbox.advance(), second.advance()]);
    const paid = await stripe.invoices.retrieve(invoiceId);
    expect(paid).toMatchObject({ status: "paid", attempt_count: 2, next_payment_attempt: null });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active.status).toBe("active");
    expect(active.items.data[0]!.current_period_start).toBe(periodEnd);
    expect(typesAbout(invoiceId).filter((t) => t === "invoice.paid")).toHaveLength(1);
    expect(typesAbout(sub.id)).toContain("customer.subscription.updated");
    clock.reset();
  });
});
