/**
 * The PayPal sandbox through the official SDK (@paypal/paypal-server-sdk, pointed at the stand-in by
 * api/payments/paypal/sdk-base-url.ts) for orders, captures, refunds, plans and subscriptions; plain
 * fetch for what the SDK lacks (catalog products, sale refunds, webhook verification); the approval
 * pages through fetch like a browser without JavaScript; webhooks as the sandbox hands them to the
 * product — on SQLite, and on PostgreSQL when TEST_DATABASE_URL is set. The SDK parses every answer
 * with its own model schemas, so a misshapen answer fails here.
 */
import {
  ApiError,
  CheckoutPaymentIntent,
  Client,
  Environment,
  IntervalUnit,
  OrdersController,
  PaymentsController,
  SubscriptionsController,
  TenureType,
} from "@paypal/paypal-server-sdk";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import express from "express";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { paypalSdkHttpOptions } from "../../api/payments/paypal/sdk-base-url";
import { type Database, createDatabase } from "../../api/platform/db";
import { migrateSandboxes } from "../../api/sandboxes/migrations";
import {
  PAYPAL_SANDBOX_CLIENT_ID,
  PAYPAL_SANDBOX_CLIENT_SECRET,
  PAYPAL_SANDBOX_WEBHOOK_ID,
  type PayPalSandbox,
  createPayPalSandbox,
} from "../../api/sandboxes/paypal";
import { TestClock } from "../support/clock";
import { MemoryLogger, type TestDatabase, databases, listen } from "./harness";

const PORTAL = "https://portal.example.com";
const RETURN = `${PORTAL}/subscription/payment/6?paypal=return`;
const CANCEL = `${PORTAL}/subscription/payment/6?paypal=cancel`;

/**
 * PayPal's published OpenAPI definitions, read at test time from the mirror of
 * paypal/paypal-rest-api-specifications when it is at hand (never copied into this repository):
 * `conforms(file, schema, value)` lists what in `value` breaks `#/components/schemas/<schema>`.
 */
const SPEC_REPO = process.env.PAYPAL_SPEC_REPO ?? "/work/.mirror/paypal+paypal-rest-api-specifications/repo";
const SPEC_FILES = ["checkout_orders_v2", "payments_payment_v2", "payments_payment_v1", "catalogs_products_v1", "billing_subscriptions_v1", "notifications_webhooks_v1"];
function loadDefinitions(): ((file: string, schema: string, value: unknown) => string[]) | null {
  if (!existsSync(SPEC_REPO)) return null;
  // The definitions are OpenAPI 3.0 with PayPal's own formats; their email pattern is not a valid `u` regex.
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false, logger: false });
  addFormats(ajv);
  try {
    for (const file of SPEC_FILES) {
      const text = execFileSync("git", ["-C", SPEC_REPO, "show", `HEAD:openapi/${file}.json`], { encoding: "utf8", maxBuffer: 64 << 20 });
      ajv.addSchema(JSON.parse(text), file);
    }
  } catch {
    return null;
  }
  return (file, schema, value) => {
    const validate = ajv.getSchema(`${file}#/components/schemas/${schema}`);
    if (!validate) return [`no schema ${schema} in ${file}`];
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
  };
}
const conforms = loadDefinitions();

interface Delivered {
  body: string;
  headers: Record<string, string>;
  event: { id: string; event_type: string; resource: Record<string, unknown> & { id: string } };
}

async function apiError(promise: Promise<unknown>): Promise<{ status: number; body: Record<string, any> }> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    return { status: e.statusCode, body: JSON.parse(String(e.body)) };
  }
  throw new Error("expected a PayPal error");
}

describe.each(databases({ postgres: "two instances capturing and billing once: store claims" }))("PayPal sandbox through the SDK ($name)", (kind) => {
  let database: TestDatabase;
  let db: Database;
  let sandbox: PayPalSandbox;
  let closeRest: () => Promise<void>;
  let closeBrowser: () => Promise<void>;
  let restBase: string;
  let browserBase: string;
  let orders: OrdersController;
  let subscriptions: SubscriptionsController;
  let payments: PaymentsController;
  let token: string;
  const clock = new TestClock();
  const logger = new MemoryLogger();
  const delivered: Delivered[] = [];
  let failDeliveries = 0;

  const eventsOf = (id: string) => delivered.filter((d) => d.event.resource.id === id || (d.event.resource as any).billing_agreement_id === id);
  const typesOf = (id: string) => eventsOf(id).map((d) => d.event.event_type);

  beforeAll(async () => {
    database = await kind.create();
    db = createDatabase(database.url);
    await migrateSandboxes(db);
    sandbox = createPayPalSandbox({
      db,
      clock,
      publicUrl: PORTAL,
      logger,
      async deliverWebhook(body, headers) {
        if (failDeliveries > 0) {
          failDeliveries--;
          throw new Error("the product is down");
        }
        delivered.push({ body, headers, event: JSON.parse(body) });
      },
    });
    const rest = await sandbox.listen();
    closeRest = rest.close;
    restBase = `http://127.0.0.1:${rest.port}`;
    const pages = express();
    pages.use(sandbox.browserRouter);
    const browser = await listen(pages);
    closeBrowser = browser.close;
    browserBase = `http://127.0.0.1:${browser.port}`;
    const client = new Client({
      clientCredentialsAuthCredentials: { oAuthClientId: PAYPAL_SANDBOX_CLIENT_ID, oAuthClientSecret: PAYPAL_SANDBOX_CLIENT_SECRET },
      environment: Environment.Sandbox,
      unstable_httpClientOptions: paypalSdkHttpOptions(restBase),
    });
    orders = new OrdersController(client);
    subscriptions = new SubscriptionsController(client);
    payments = new PaymentsController(client);
    const tokenAnswer = await fetch(`${restBase}/v1/oauth2/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${PAYPAL_SANDBOX_CLIENT_ID}:${PAYPAL_SANDBOX_CLIENT_SECRET}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "grant_type=client_credentials",
    });
    token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
  });

  afterAll(async () => {
    await closeRest?.();
    await closeBrowser?.();
    await db?.destroy();
    await database?.drop();
  });

  beforeEach(() => {
    failDeliveries = 0;
  });

  /** A REST call without the SDK (what it lacks), with the bearer token. */
  async function rest(method: string, path: string, body?: unknown) {
    const response = await fetch(`${restBase}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  }

  /** The approval page as the browser reaches it (on the portal's origin: here the test's server). */
  const onBrowser = (href: string) => href.replace(PORTAL, browserBase);

  async function decide(href: string, action: "approve" | "cancel", funding = "balance") {
    const response = await fetch(onBrowser(href), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ funding, action }).toString(),
    });
    expect(response.status).toBe(303);
    return new URL(response.headers.get("location") ?? "");
  }

  async function newOrder(value = "107.76", requestId?: string) {
    const { result, statusCode } = await orders.createOrder({
      paypalRequestId: requestId,
      body: {
        intent: CheckoutPaymentIntent.Capture,
        purchaseUnits: [{ amount: { currencyCode: "USD", value }, customId: "checkout-41", description: "VPN 2 Years" }],
        paymentSource: {
          paypal: {
            experienceContext: {
              returnUrl: RETURN,
              cancelUrl: CANCEL,
              brandName: "VPN Portal",
              userAction: "PAY_NOW" as never,
              shippingPreference: "NO_SHIPPING" as never,
            },
          },
        },
      },
    });
    return { order: result, statusCode };
  }
  const payerAction = (links: { rel: string; href: string }[] | undefined) => links?.find((l) => l.rel === "payer-action")?.href ?? "";

  it("asks for an OAuth2 token on every call and gives one only for the sandbox's client credentials", async () => {
    expect((await fetch(`${restBase}/v2/checkout/orders/ABC`)).status).toBe(401);
    const wrong = await fetch(`${restBase}/v2/checkout/orders/ABC`, { headers: { authorization: "Bearer A21AAforged.sig" } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "invalid_token" });
    const badClient = await fetch(`${restBase}/v1/oauth2/token`, {
      method: "POST",
      headers: { authorization: `Basic ${Buffer.from("someone:else").toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    expect(badClient.status).toBe(401);
    expect(await badClient.json()).toMatchObject({ error: "invalid_client" });
    const missing = await rest("GET", "/v2/checkout/orders/NOSUCHORDER00001");
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ name: "RESOURCE_NOT_FOUND", details: [{ issue: "INVALID_RESOURCE_ID" }] });
    expect(missing.body.debug_id).toMatch(/^[0-9a-f]+$/);
  });

  it("creates an order that the buyer approves on the page, captures it once, and refunds it once", async () => {
    const { order, statusCode } = await newOrder("107.76", "checkout-41-order");
    expect(statusCode).toBe(201);
    expect(order.status).toBe("PAYER_ACTION_REQUIRED");
    const approveUrl = payerAction(order.links);
    expect(approveUrl).toBe(`${PORTAL}/dev/paypal/checkoutnow?token=${order.id}`);

    // The same PayPal-Request-Id answers the same order.
    expect((await newOrder("107.76", "checkout-41-order")).order.id).toBe(order.id);

    const early = await apiError(orders.captureOrder({ id: order.id!, paypalRequestId: "capture-41" }));
    expect(early.status).toBe(422);
    expect(early.body).toMatchObject({ name: "UNPROCESSABLE_ENTITY", details: [{ issue: "ORDER_NOT_APPROVED" }] });

    const page = await (await fetch(onBrowser(approveUrl))).text();
    expect(page).toContain('<html lang="en">');
    expect(page).toContain("VPN Portal");
    expect(page).toContain("$107.76 USD");
    expect(page).toContain(">Approve</button>");
    expect(page).toContain(">Cancel</button>");
    expect(page).toContain('<label for="funding-balance">PayPal balance</label>');
    expect(page).toContain('<label for="funding-declined">Card that is declined</label>');
    expect(page).not.toContain("<script");

    const back = await decide(approveUrl, "approve");
    expect(`${back.origin}${back.pathname}`).toBe(`${PORTAL}/subscription/payment/6`);
    expect(back.searchParams.get("paypal")).toBe("return");
    expect(back.searchParams.get("token")).toBe(order.id);
    expect(back.searchParams.get("PayerID")).toBeTruthy();
    expect(typesOf(order.id!)).toEqual(["CHECKOUT.ORDER.APPROVED"]);

    const approved = (await orders.getOrder({ id: order.id! })).result;
    expect(approved.status).toBe("APPROVED");
    expect(approved.payer?.payerId).toBeTruthy();

    const captured = await orders.captureOrder({ id: order.id!, paypalRequestId: "capture-41" });
    expect(captured.statusCode).toBe(201);
    expect(captured.result.status).toBe("COMPLETED");
    const capture = captured.result.purchaseUnits?.[0]?.payments?.captures?.[0];
    expect(capture).toMatchObject({ status: "COMPLETED", amount: { currencyCode: "USD", value: "107.76" }, customId: "checkout-41" });

    // A second return or a double submit: the same request id answers the same capture, nothing more.
    const again = await orders.captureOrder({ id: order.id!, paypalRequestId: "capture-41" });
    expect(again.result.purchaseUnits?.[0]?.payments?.captures?.[0]?.id).toBe(capture?.id);
    const other = await apiError(orders.captureOrder({ id: order.id!, paypalRequestId: "capture-41-b" }));
    expect(other.body).toMatchObject({ details: [{ issue: "ORDER_ALREADY_CAPTURED" }] });
    const captureEvents = delivered.filter((d) => d.event.event_type === "PAYMENT.CAPTURE.COMPLETED" && d.event.resource.id === capture?.id);
    expect(captureEvents).toHaveLength(1);
    expect(captureEvents[0]!.event.resource).toMatchObject({ custom_id: "checkout-41", supplementary_data: { related_ids: { order_id: order.id } } });

    const refund = await payments.refundCapturedPayment({ captureId: capture!.id!, paypalRequestId: "refund-41", body: {} });
    expect(refund.result).toMatchObject({ status: "COMPLETED", amount: { value: "107.76" } });
    const replay = await payments.refundCapturedPayment({ captureId: capture!.id!, paypalRequestId: "refund-41", body: {} });
    expect(replay.result.id).toBe(refund.result.id);
    const twice = await apiError(payments.refundCapturedPayment({ captureId: capture!.id!, paypalRequestId: "refund-41-b", body: {} }));
    expect(twice.status).toBe(422);
    expect(twice.body).toMatchObject({ details: [{ issue: "CAPTURE_FULLY_REFUNDED" }] });
    expect((await payments.getCapturedPayment({ captureId: capture!.id! })).result.status).toBe("REFUNDED");
    expect((await payments.getRefund({ refundId: refund.result.id! })).result).toMatchObject({ status: "COMPLETED", amount: { value: "107.76" } });
  });

  it("declines the capture when the buyer approved with the declined card, and charges nothing on Cancel", async () => {
    const { order } = await newOrder("9.99");
    await decide(payerAction(order.links), "approve", "declined");
    const declined = await apiError(orders.captureOrder({ id: order.id!, paypalRequestId: "declined-1" }));
    expect(declined.status).toBe(422);
    expect(declined.body).toMatchObject({ details: [{ issue: "INSTRUMENT_DECLINED" }] });
    // As PayPal: the buyer may go back (the `redirect` link) and choose another way to pay.
    const redirect = (declined.body.links as { rel: string; href: string }[]).find((l) => l.rel === "redirect")?.href ?? "";
    expect(redirect).toBe(payerAction(order.links));
    expect(await (await fetch(onBrowser(redirect))).text()).toContain("Choose another way to pay.");
    await decide(redirect, "approve", "balance");
    expect((await orders.captureOrder({ id: order.id!, paypalRequestId: "declined-2" })).result.status).toBe("COMPLETED");

    const { order: cancelled } = await newOrder("9.99");
    const back = await decide(payerAction(cancelled.links), "cancel");
    expect(back.searchParams.get("paypal")).toBe("cancel");
    expect(back.searchParams.get("token")).toBe(cancelled.id);
    expect((await orders.getOrder({ id: cancelled.id! })).result.status).toBe("PAYER_ACTION_REQUIRED");
    expect(typesOf(cancelled.id!)).toEqual([]);
    const page = await (await fetch(onBrowser(payerAction(cancelled.links)))).text();
    expect(page).toContain("nothing was charged");
  });

  it("rejects malformed requests with PayPal's 400 and the field", async () => {
    const bad = await rest("POST", "/v2/checkout/orders", { intent: "CAPTURE", purchase_units: [{ amount: { currency_code: "USD", value: "1.234" } }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ name: "INVALID_REQUEST", details: [{ field: "/purchase_units/0/amount/value", issue: "INVALID_PARAMETER_VALUE" }] });
    const notJson = await fetch(`${restBase}/v2/checkout/orders`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    const unknownPage = await fetch(`${browserBase}/dev/paypal/checkoutnow?token=NOSUCHORDER00001`);
    expect(unknownPage.status).toBe(404);
    const badAction = await fetch(`${browserBase}/dev/paypal/checkoutnow?token=NOSUCHORDER00001`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=steal",
    });
    expect(badAction.status).toBe(400);
  });

  it("answers a missing required field, of any type, with PayPal's MISSING_REQUIRED_PARAMETER", async () => {
    const units = [{ amount: { currency_code: "USD", value: "9.99" } }];
    const missing = (field: string, description: string) => ({
      name: "INVALID_REQUEST",
      message: "Request is not well-formed, syntactically incorrect, or violates schema.",
      details: [{ field, location: "body", issue: "MISSING_REQUIRED_PARAMETER", description }],
      links: [{ href: expect.stringMatching(/#error-MISSING_REQUIRED_PARAMETER$/), rel: "information_link", method: "GET" }],
    });
    // An enum (intent), an array (purchase_units), an object (amount), a string (value), a literal (currency_code):
    // each as PayPal answers a missing field, never zod's text.
    const noIntent = await rest("POST", "/v2/checkout/orders", { purchase_units: units });
    expect(noIntent.status).toBe(400);
    expect(noIntent.body).toMatchObject(missing("/intent", "A required parameter is missing."));
    expect(noIntent.body.details).toHaveLength(1);
    expect(JSON.stringify(noIntent.body)).not.toMatch(/Invalid (input|option)|expected/);
    // As orders.create's 400 is published (issue and its description), when the definitions are at hand.
    if (conforms) expect([...conforms("checkout_orders_v2", "error_400", noIntent.body), ...conforms("checkout_orders_v2", "400", noIntent.body)]).toEqual([]);
    expect((await rest("POST", "/v2/checkout/orders", { intent: "CAPTURE" })).body).toMatchObject(missing("/purchase_units", "A required parameter is missing."));
    expect((await rest("POST", "/v2/checkout/orders", { intent: "CAPTURE", purchase_units: [{}] })).body).toMatchObject(
      missing("/purchase_units/0/amount", "A required parameter is missing."),
    );
    expect((await rest("POST", "/v2/checkout/orders", { intent: "CAPTURE", purchase_units: [{ amount: { currency_code: "USD" } }] })).body).toMatchObject(
      missing("/purchase_units/0/amount/value", "A required parameter is missing."),
    );
    expect((await rest("POST", "/v2/checkout/orders", { intent: "CAPTURE", purchase_units: [{ amount: { value: "9.99" } }] })).body).toMatchObject(
      missing("/purchase_units/0/amount/currency_code", "A required parameter is missing."),
    );
    // Two missing: a detail each. A value that is there but wrong stays INVALID_PARAMETER_VALUE.
    const both = await rest("POST", "/v2/checkout/orders", {});
    expect(both.body.details.map((d: { field: string; issue: string }) => [d.field, d.issue])).toEqual([
      ["/intent", "MISSING_REQUIRED_PARAMETER"],
      ["/purchase_units", "MISSING_REQUIRED_PARAMETER"],
    ]);
    const wrong = await rest("POST", "/v2/checkout/orders", { intent: "SELL", purchase_units: units });
    expect(wrong.body.details).toMatchObject([{ field: "/intent", issue: "INVALID_PARAMETER_VALUE" }]);
    // Each API with the description its published definitions give.
    const product = await rest("POST", "/v1/catalogs/products", { type: "SERVICE" });
    expect(product.status).toBe(400);
    expect(product.body.details).toEqual([{ field: "/name", location: "body", issue: "MISSING_REQUIRED_PARAMETER", description: "A required field is missing." }]);
  });

  async function newProduct() {
    const product = await rest("POST", "/v1/catalogs/products", { name: "VPN", type: "SERVICE", category: "SOFTWARE" });
    expect(product.status).toBe(201);
    expect(product.body).toMatchObject({ id: expect.stringMatching(/^PROD-/), name: "VPN", type: "SERVICE" });
    expect((await rest("GET", `/v1/catalogs/products/${product.body.id}`)).body.id).toBe(product.body.id);
    return product.body.id as string;
  }

  async function newPlan(productId: string, opts: { months?: number; price?: string; trial?: string; threshold?: number } = {}) {
    const regular = {
      frequency: { intervalUnit: IntervalUnit.Month, intervalCount: opts.months ?? 1 },
      tenureType: TenureType.Regular,
      sequence: opts.trial ? 2 : 1,
      totalCycles: 0,
      pricingScheme: { fixedPrice: { currencyCode: "USD", value: opts.price ?? "11.99" } },
    };
    const trial = opts.trial
      ? [
          {
            frequency: { intervalUnit: IntervalUnit.Month, intervalCount: opts.months ?? 1 },
            tenureType: TenureType.Trial,
            sequence: 1,
            totalCycles: 1,
            pricingScheme: { fixedPrice: { currencyCode: "USD", value: opts.trial } },
          },
        ]
      : [];
    const { result } = await subscriptions.createBillingPlan({
      body: {
        productId,
        name: `VPN ${opts.months ?? 1} Month`,
        billingCycles: [...trial, regular],
        paymentPreferences: { autoBillOutstanding: true, paymentFailureThreshold: opts.threshold ?? 3 },
      },
    });
    expect(result.status).toBe("ACTIVE");
    return result.id!;
  }

  async function newSubscription(planId: string, extra: Record<string, unknown> = {}, requestId?: string) {
    const { result } = await subscriptions.createSubscription({
      paypalRequestId: requestId,
      body: {
        planId,
        customId: "checkout-77",
        applicationContext: { returnUrl: RETURN, cancelUrl: CANCEL, brandName: "VPN Portal", userAction: "SUBSCRIBE_NOW" as never },
        ...extra,
      },
    });
    expect(result.status).toBe("APPROVAL_PENDING");
    const approve = result.links?.find((l) => l.rel === "approve")?.href ?? "";
    expect(approve).toMatch(new RegExp(`^${PORTAL}/dev/paypal/webapps/billing/subscriptions\\?ba_token=BA-`));
    return { id: result.id!, approve };
  }

  it("keeps billing plans to PayPal's rules and lists them by product", async () => {
    const productId = await newProduct();
    const tooLong = await rest("POST", "/v1/billing/plans", {
      product_id: productId,
      name: "VPN 2 Years",
      billing_cycles: [{ frequency: { interval_unit: "MONTH", interval_count: 24 }, tenure_type: "REGULAR", sequence: 1, total_cycles: 0, pricing_scheme: { fixed_price: { currency_code: "USD", value: "107.76" } } }],
      payment_preferences: {},
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details[0]).toMatchObject({ field: "/billing_cycles/0/frequency/interval_count", issue: "INVALID_PARAMETER_VALUE" });
    const trial = { frequency: { interval_unit: "MONTH", interval_count: 1 }, tenure_type: "TRIAL", total_cycles: 1, pricing_scheme: { fixed_price: { currency_code: "USD", value: "1.00" } } };
    const threeTrials = await rest("POST", "/v1/billing/plans", {
      product_id: productId,
      name: "Too many trials",
      billing_cycles: [
        { ...trial, sequence: 1 },
        { ...trial, sequence: 2 },
        { ...trial, sequence: 3 },
        { frequency: { interval_unit: "MONTH", interval_count: 1 }, tenure_type: "REGULAR", sequence: 4, total_cycles: 0, pricing_scheme: { fixed_price: { currency_code: "USD", value: "5.00" } } },
      ],
      payment_preferences: {},
    });
    expect(threeTrials.status).toBe(400);

    const planId = await newPlan(productId, { months: 12, price: "59.88" });
    const listed = await subscriptions.listBillingPlans({ productId, pageSize: 20 });
    expect(listed.result.plans?.map((p) => p.id)).toEqual([planId]);
    await subscriptions.updateBillingPlanPricingSchemes({
      id: planId,
      body: { pricingSchemes: [{ billingCycleSequence: 1, pricingScheme: { fixedPrice: { currencyCode: "USD", value: "49.99" } } }] },
    });
    const plan = (await subscriptions.getBillingPlan(planId)).result;
    expect(plan.billingCycles?.[0]?.pricingScheme).toMatchObject({ version: 2, fixedPrice: { value: "49.99" } });
    await subscriptions.deactivateBillingPlan(planId);
    const inactive = await apiError(newSubscription(planId));
    expect(inactive.status).toBe(422);
    await subscriptions.activateBillingPlan(planId);
  });

  it("runs a subscription: approval and first sale, renewals by the clock, suspend, activate, cancel, a sale refund", async () => {
    const productId = await newProduct();
    const planId = await newPlan(productId);
    const created = await newSubscription(planId, {}, "checkout-77-sub");
    expect((await newSubscription(planId, {}, "checkout-77-sub")).id).toBe(created.id);

    const page = await (await fetch(onBrowser(created.approve))).text();
    expect(page).toContain("Subscribe with PayPal (sandbox)");
    expect(page).toContain("$11.99 USD");
    expect(page).toContain('<label for="funding-fails_renewals">Card that fails renewals</label>');

    const back = await decide(created.approve, "approve");
    expect(back.searchParams.get("subscription_id")).toBe(created.id);
    expect(back.searchParams.get("ba_token")).toMatch(/^BA-/);
    expect(back.searchParams.get("paypal")).toBe("return");
    // A second post (back button) changes nothing.
    await decide(created.approve, "approve");

    const active = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(active.status).toBe("ACTIVE");
    expect(active.customId).toBe("checkout-77");
    expect(active.billingInfo?.lastPayment?.amount).toMatchObject({ value: "11.99" });
    expect(active.billingInfo?.cycleExecutions?.[0]).toMatchObject({ tenureType: "REGULAR", cyclesCompleted: 1 });
    const firstBilling = Date.parse(active.billingInfo!.nextBillingTime!);
    expect(firstBilling - clock.now().getTime()).toBeGreaterThan(27 * 86_400_000);
    expect(typesOf(created.id)).toEqual(["BILLING.SUBSCRIPTION.ACTIVATED", "PAYMENT.SALE.COMPLETED"]);
    const sale = eventsOf(created.id).find((d) => d.event.event_type === "PAYMENT.SALE.COMPLETED")!.event.resource;
    expect(sale).toMatchObject({ state: "completed", billing_agreement_id: created.id, custom: "checkout-77", amount: { total: "11.99", currency: "USD" } });

    // Nothing is due yet; then a month later one renewal, once, however often advance() runs.
    await sandbox.advance();
    expect(typesOf(created.id)).toHaveLength(2);
    clock.advanceDays(32);
    await Promise.all([sandbox.advance(), sandbox.advance()]);
    await sandbox.advance();
    expect(typesOf(created.id)).toEqual(["BILLING.SUBSCRIPTION.ACTIVATED", "PAYMENT.SALE.COMPLETED", "PAYMENT.SALE.COMPLETED"]);
    const renewed = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(renewed.billingInfo?.cycleExecutions?.[0]?.cyclesCompleted).toBe(2);
    expect(Date.parse(renewed.billingInfo!.nextBillingTime!)).toBeGreaterThan(firstBilling);

    const transactions = await subscriptions.listSubscriptionTransactions({
      id: created.id,
      startTime: new Date(clock.now().getTime() - 90 * 86_400_000).toISOString(),
      endTime: new Date(clock.now().getTime() + 86_400_000).toISOString(),
    });
    expect(transactions.result.transactions?.map((t) => t.status)).toEqual(["COMPLETED", "COMPLETED"]);

    // Sale refunds (v1, no SDK call): once.
    const refund = await rest("POST", `/v1/payments/sale/${sale.id}/refund`, {});
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ state: "completed", sale_id: sale.id, amount: { total: "11.99", currency: "USD" } });
    const twice = await rest("POST", `/v1/payments/sale/${sale.id}/refund`, {});
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ name: "TRANSACTION_ALREADY_REFUNDED" });
    expect((await rest("GET", `/v1/payments/sale/${sale.id}`)).body.state).toBe("refunded");
    expect((await rest("GET", `/v1/payments/refund/${refund.body.id}`)).body).toMatchObject({ state: "completed", sale_id: sale.id });

    // Auto-renewal off: suspended, not billed; on again: billed from the next billing time ahead.
    await subscriptions.suspendSubscription({ id: created.id, body: { reason: "Auto-renewal turned off" } });
    expect((await subscriptions.getSubscription({ id: created.id })).result.status).toBe("SUSPENDED");
    expect(typesOf(created.id).at(-1)).toBe("BILLING.SUBSCRIPTION.SUSPENDED");
    const twiceSuspended = await apiError(subscriptions.suspendSubscription({ id: created.id, body: { reason: "again" } }));
    expect(twiceSuspended.body).toMatchObject({ details: [{ issue: "SUBSCRIPTION_STATUS_INVALID" }] });
    clock.advanceDays(40);
    await sandbox.advance();
    expect(typesOf(created.id).filter((t) => t === "PAYMENT.SALE.COMPLETED")).toHaveLength(2);
    await subscriptions.activateSubscription({ id: created.id, body: { reason: "Auto-renewal turned on" } });
    const resumed = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(resumed.status).toBe("ACTIVE");
    expect(Date.parse(resumed.billingInfo!.nextBillingTime!)).toBeGreaterThan(clock.now().getTime());
    await sandbox.advance();
    expect(typesOf(created.id).filter((t) => t === "PAYMENT.SALE.COMPLETED")).toHaveLength(2);

    await subscriptions.cancelSubscription({ id: created.id, body: { reason: "Refunded" } });
    expect((await subscriptions.getSubscription({ id: created.id })).result.status).toBe("CANCELLED");
    expect(typesOf(created.id).at(-1)).toBe("BILLING.SUBSCRIPTION.CANCELLED");
    const cancelledTwice = await apiError(subscriptions.cancelSubscription({ id: created.id, body: { reason: "again" } }));
    expect(cancelledTwice.status).toBe(422);
    clock.advanceDays(40);
    await sandbox.advance();
    expect(typesOf(created.id).filter((t) => t === "PAYMENT.SALE.COMPLETED")).toHaveLength(2);
  });

  it("revises a subscription to another plan of the product once the buyer approves: from its next billing, nothing prorated", async () => {
    const productId = await newProduct();
    const monthly = await newPlan(productId);
    const quarterly = await newPlan(productId, { months: 3, price: "26.97" });
    const created = await newSubscription(monthly);
    await decide(created.approve, "approve");
    const before = (await subscriptions.getSubscription({ id: created.id })).result;
    const nextBilling = before.billingInfo!.nextBillingTime!;

    // Another product's plan is refused, as PayPal does; an unknown subscription is 404.
    const otherPlan = await newPlan(await newProduct());
    const incompatible = await apiError(subscriptions.reviseSubscription({ id: created.id, body: { planId: otherPlan } }));
    expect(incompatible.status).toBe(422);
    expect(incompatible.body).toMatchObject({ details: [{ issue: "PLAN_PRODUCT_NOT_COMPATIBLE" }] });
    expect((await apiError(subscriptions.reviseSubscription({ id: "I-NOSUCHSUB000", body: { planId: quarterly } }))).status).toBe(404);

    const revise = () =>
      subscriptions.reviseSubscription({
        id: created.id,
        body: { planId: quarterly, applicationContext: { returnUrl: RETURN, cancelUrl: CANCEL, brandName: "VPN Portal" } },
      });
    const cancelledOne = (await revise()).result;
    expect(cancelledOne).toMatchObject({ planId: quarterly, planOverridden: false });
    const cancelledApprove = cancelledOne.links?.find((l) => l.rel === "approve")?.href ?? "";
    expect(cancelledApprove).toMatch(new RegExp(`^${PORTAL}/dev/paypal/webapps/billing/subscriptions/update\\?subscription_id=${created.id}&ba_token=BA-`));
    // Until the buyer answers, nothing changes; Cancel changes nothing either.
    expect((await subscriptions.getSubscription({ id: created.id })).result.planId).toBe(monthly);
    const page = await (await fetch(onBrowser(cancelledApprove))).text();
    expect(page).toContain("Change your subscription (sandbox)");
    expect(page).toContain("$26.97 USD");
    const cancelled = await decide(cancelledApprove, "cancel");
    expect(cancelled.searchParams.get("paypal")).toBe("cancel");
    expect((await subscriptions.getSubscription({ id: created.id })).result.planId).toBe(monthly);

    const approve = (await revise()).result.links?.find((l) => l.rel === "approve")?.href ?? "";
    const back = await decide(approve, "approve");
    expect(back.searchParams.get("subscription_id")).toBe(created.id);
    expect(back.searchParams.get("paypal")).toBe("return");
    const revised = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(revised.planId).toBe(quarterly);
    expect(revised.billingInfo?.nextBillingTime).toBe(nextBilling);
    expect(typesOf(created.id)).toEqual(["BILLING.SUBSCRIPTION.ACTIVATED", "PAYMENT.SALE.COMPLETED", "BILLING.SUBSCRIPTION.UPDATED"]);

    // The next billing charges the new plan, whose 3-month cycle then runs.
    clock.advanceDays(32);
    await sandbox.advance();
    const sales = eventsOf(created.id).filter((d) => d.event.event_type === "PAYMENT.SALE.COMPLETED");
    expect(sales.map((d) => (d.event.resource as any).amount.total)).toEqual(["11.99", "26.97"]);
    const after = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(Date.parse(after.billingInfo!.nextBillingTime!) - Date.parse(nextBilling)).toBeGreaterThan(85 * 86_400_000);
  });

  it("charges a coupon's first payment through the plan override, then the plan's price", async () => {
    const planId = await newPlan(await newProduct(), { trial: "11.99", price: "11.99" });
    const created = await newSubscription(planId, {
      plan: { billingCycles: [{ sequence: 1, totalCycles: 1, pricingScheme: { fixedPrice: { currencyCode: "USD", value: "8.99" } } }] },
    });
    await decide(created.approve, "approve");
    const sub = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(sub.planOverridden).toBe(true);
    expect(sub.billingInfo?.lastPayment?.amount?.value).toBe("8.99");
    clock.advanceDays(32);
    await sandbox.advance();
    const amounts = eventsOf(created.id)
      .filter((d) => d.event.event_type === "PAYMENT.SALE.COMPLETED")
      .map((d) => (d.event.resource.amount as { total: string }).total);
    expect(amounts).toEqual(["8.99", "11.99"]);
  });

  it("expires a subscription once a finite plan's cycles have run, and charges nothing for a free trial cycle", async () => {
    const productId = await newProduct();
    const plan = await rest("POST", "/v1/billing/plans", {
      product_id: productId,
      name: "VPN trial then 2 months",
      billing_cycles: [
        { frequency: { interval_unit: "WEEK", interval_count: 1 }, tenure_type: "TRIAL", sequence: 1, total_cycles: 1 },
        { frequency: { interval_unit: "MONTH", interval_count: 1 }, tenure_type: "REGULAR", sequence: 2, total_cycles: 2, pricing_scheme: { fixed_price: { currency_code: "USD", value: "4.00" } } },
      ],
      payment_preferences: {},
    });
    expect(plan.status).toBe(201);
    const created = await newSubscription(plan.body.id);
    await decide(created.approve, "approve");
    expect(typesOf(created.id)).toEqual(["BILLING.SUBSCRIPTION.ACTIVATED"]);
    const trial = (await subscriptions.getSubscription({ id: created.id })).result;
    expect(trial.billingInfo?.cycleExecutions?.map((c) => c.cyclesCompleted)).toEqual([1, 0]);
    expect(Date.parse(trial.billingInfo!.nextBillingTime!) - clock.now().getTime()).toBeLessThanOrEqual(7 * 86_400_000);
    clock.advanceDays(8);
    await sandbox.advance();
    clock.advanceDays(32);
    await sandbox.advance();
    clock.advanceDays(32);
    await sandbox.advance();
    expect(typesOf(created.id)).toEqual([
      "BILLING.SUBSCRIPTION.ACTIVATED",
      "PAYMENT.SALE.COMPLETED",
      "PAYMENT.SALE.COMPLETED",
      "BILLING.SUBSCRIPTION.EXPIRED",
    ]);
    expect((await subscriptions.getSubscription({ id: created.id })).result.status).toBe("EXPIRED");
  });

  it("fails renewals on the card that fails them and suspends at the plan's threshold; a declined first payment suspends at once", async () => {
    const productId = await newProduct();
    const planId = await newPlan(productId, { threshold: 2 });
    const failing = await newSubscription(planId);
    await decide(failing.approve, "approve", "fails_renewals");
    expect(typesOf(failing.id)).toEqual(["BILLING.SUBSCRIPTION.ACTIVATED", "PAYMENT.SALE.COMPLETED"]);
    clock.advanceDays(32);
    await sandbox.advance();
    const once = (await subscriptions.getSubscription({ id: failing.id })).result;
    expect(once.status).toBe("ACTIVE");
    expect(once.billingInfo).toMatchObject({ failedPaymentsCount: 1, outstandingBalance: { value: "11.99" } });
    clock.advanceDays(32);
    await sandbox.advance();
    expect(typesOf(failing.id)).toEqual([
      "BILLING.SUBSCRIPTION.ACTIVATED",
      "PAYMENT.SALE.COMPLETED",
      "BILLING.SUBSCRIPTION.PAYMENT.FAILED",
      "BILLING.SUBSCRIPTION.PAYMENT.FAILED",
      "BILLING.SUBSCRIPTION.SUSPENDED",
    ]);
    expect((await subscriptions.getSubscription({ id: failing.id })).result).toMatchObject({
      status: "SUSPENDED",
      billingInfo: { failedPaymentsCount: 2, outstandingBalance: { value: "23.98" } },
    });

    const strictPlan = await newPlan(productId, { threshold: 1 });
    const declined = await newSubscription(strictPlan);
    await decide(declined.approve, "approve", "declined");
    expect(typesOf(declined.id)).toEqual(["BILLING.SUBSCRIPTION.ACTIVATED", "BILLING.SUBSCRIPTION.PAYMENT.FAILED", "BILLING.SUBSCRIPTION.SUSPENDED"]);
    const sub = (await subscriptions.getSubscription({ id: declined.id })).result;
    expect(sub.status).toBe("SUSPENDED");
    expect(sub.billingInfo?.lastPayment).toBeUndefined();

    // Cancel on the approval page: back to cancel_url, still waiting for approval, nothing charged.
    const abandoned = await newSubscription(planId);
    const back = await decide(abandoned.approve, "cancel");
    expect(back.searchParams.get("paypal")).toBe("cancel");
    expect((await subscriptions.getSubscription({ id: abandoned.id })).result.status).toBe("APPROVAL_PENDING");
    expect(typesOf(abandoned.id)).toEqual([]);
  });

  it("signs its webhooks so that only verify-webhook-signature with the right webhook id says SUCCESS, and retries failed deliveries", async () => {
    failDeliveries = 1;
    const { order } = await newOrder("5.00");
    await decide(payerAction(order.links), "approve");
    expect(typesOf(order.id!)).toEqual([]);
    expect(logger.lines.some((l) => l.includes("CHECKOUT.ORDER.APPROVED") && l.includes("retries"))).toBe(true);
    await sandbox.advance();
    expect(typesOf(order.id!)).toEqual(["CHECKOUT.ORDER.APPROVED"]);

    const webhook = eventsOf(order.id!)[0]!;
    const h = webhook.headers;
    expect(Object.keys(h)).toEqual(
      expect.arrayContaining(["paypal-transmission-id", "paypal-transmission-time", "paypal-transmission-sig", "paypal-cert-url", "paypal-auth-algo"]),
    );
    const verify = (event: unknown, webhookId = PAYPAL_SANDBOX_WEBHOOK_ID) =>
      rest("POST", "/v1/notifications/verify-webhook-signature", {
        auth_algo: h["paypal-auth-algo"],
        cert_url: h["paypal-cert-url"],
        transmission_id: h["paypal-transmission-id"],
        transmission_sig: h["paypal-transmission-sig"],
        transmission_time: h["paypal-transmission-time"],
        webhook_id: webhookId,
        webhook_event: event,
      });
    expect((await verify(JSON.parse(webhook.body))).body).toEqual({ verification_status: "SUCCESS" });
    const tampered = JSON.parse(webhook.body);
    tampered.resource.purchase_units[0].amount.value = "0.01";
    expect((await verify(tampered)).body).toEqual({ verification_status: "FAILURE" });
    expect((await verify(JSON.parse(webhook.body), "WH-SOMEONE-ELSE")).body).toEqual({ verification_status: "FAILURE" });
    expect((await rest("POST", "/v1/notifications/verify-webhook-signature", { webhook_id: "x" })).status).toBe(400);
  });

  it("lets two instances on one database capture an order once and bill a cycle once", async () => {
    const other = createPayPalSandbox({
      db,
      clock,
      publicUrl: PORTAL,
      logger,
      async deliverWebhook(body, headers) {
        delivered.push({ body, headers, event: JSON.parse(body) });
      },
    });
    const otherRest = await other.listen();
    try {
      const otherClient = new Client({
        clientCredentialsAuthCredentials: { oAuthClientId: PAYPAL_SANDBOX_CLIENT_ID, oAuthClientSecret: PAYPAL_SANDBOX_CLIENT_SECRET },
        environment: Environment.Sandbox,
        unstable_httpClientOptions: paypalSdkHttpOptions(`http://127.0.0.1:${otherRest.port}`),
      });
      const otherOrders = new OrdersController(otherClient);
      const { order } = await newOrder("20.00");
      await decide(payerAction(order.links), "approve");
      const results = await Promise.allSettled([
        orders.captureOrder({ id: order.id!, paypalRequestId: "race-a" }),
        otherOrders.captureOrder({ id: order.id!, paypalRequestId: "race-b" }),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(JSON.parse(String((lost.reason as ApiError).body))).toMatchObject({ details: [{ issue: "ORDER_ALREADY_CAPTURED" }] });
      expect(delivered.filter((d) => d.event.event_type === "PAYMENT.CAPTURE.COMPLETED" && (d.event.resource as any).supplementary_data?.related_ids?.order_id === order.id)).toHaveLength(1);

      const created = await newSubscription(await newPlan(await newProduct()));
      await decide(created.approve, "approve");
      clock.advanceDays(32);
      await Promise.all([sandbox.advance(), other.advance(), sandbox.advance(), other.advance()]);
      expect(typesOf(created.id).filter((t) => t === "PAYMENT.SALE.COMPLETED")).toHaveLength(2);
      expect((await subscriptions.getSubscription({ id: created.id })).result.billingInfo?.cycleExecutions?.[0]?.cyclesCompleted).toBe(2);
    } finally {
      await otherRest.close();
    }
  });

  it.skipIf(!conforms)("answers as PayPal's published definitions describe them (when the mirror is at hand)", async () => {
    const check = conforms!;
    const problems: string[] = [];
    const expectConforms = (file: string, schema: string, value: unknown) => problems.push(...check(file, schema, value));

    const created = await rest("POST", "/v2/checkout/orders", {
      intent: "CAPTURE",
      purchase_units: [{ amount: { currency_code: "USD", value: "59.88" }, custom_id: "checkout-90" }],
      payment_source: { paypal: { experience_context: { return_url: RETURN, cancel_url: CANCEL } } },
    });
    expectConforms("checkout_orders_v2", "order", created.body);
    const orderId = created.body.id as string;
    expectConforms("checkout_orders_v2", "order", (await rest("GET", `/v2/checkout/orders/${orderId}`)).body);
    await decide(`${PORTAL}/dev/paypal/checkoutnow?token=${orderId}`, "approve");
    expectConforms("checkout_orders_v2", "order", (await rest("GET", `/v2/checkout/orders/${orderId}`)).body);
    const captured = await rest("POST", `/v2/checkout/orders/${orderId}/capture`, {});
    expectConforms("checkout_orders_v2", "order", captured.body);
    const captureId = captured.body.purchase_units[0].payments.captures[0].id as string;
    expectConforms("payments_payment_v2", "capture", (await rest("GET", `/v2/payments/captures/${captureId}`)).body);
    expectConforms("payments_payment_v2", "refund", (await rest("POST", `/v2/payments/captures/${captureId}/refund`, {})).body);
    expectConforms("checkout_orders_v2", "error_422", (await rest("POST", `/v2/checkout/orders/${orderId}/capture`, {})).body);
    expectConforms("checkout_orders_v2", "error_404", (await rest("GET", "/v2/checkout/orders/NOSUCHORDER00001")).body);

    const product = await rest("POST", "/v1/catalogs/products", { name: "VPN", type: "SERVICE" });
    expectConforms("catalogs_products_v1", "product", product.body);
    const plan = await rest("POST", "/v1/billing/plans", {
      product_id: product.body.id,
      name: "VPN 1 Month",
      billing_cycles: [{ frequency: { interval_unit: "MONTH", interval_count: 1 }, tenure_type: "REGULAR", sequence: 1, total_cycles: 0, pricing_scheme: { fixed_price: { currency_code: "USD", value: "11.99" } } }],
      payment_preferences: { payment_failure_threshold: 1 },
    });
    expectConforms("billing_subscriptions_v1", "plan", plan.body);
    expectConforms("billing_subscriptions_v1", "plan_collection", (await rest("GET", `/v1/billing/plans?product_id=${product.body.id}`)).body);
    const sub = await rest("POST", "/v1/billing/subscriptions", {
      plan_id: plan.body.id,
      custom_id: "checkout-91",
      application_context: { return_url: RETURN, cancel_url: CANCEL, user_action: "SUBSCRIBE_NOW", shipping_preference: "NO_SHIPPING" },
    });
    expectConforms("billing_subscriptions_v1", "subscription", sub.body);
    const approve = (sub.body.links as { rel: string; href: string }[]).find((l) => l.rel === "approve")!.href;
    await decide(approve, "approve");
    expectConforms("billing_subscriptions_v1", "subscription", (await rest("GET", `/v1/billing/subscriptions/${sub.body.id}`)).body);
    const sale = eventsOf(sub.body.id).find((d) => d.event.event_type === "PAYMENT.SALE.COMPLETED")!.event.resource;
    expectConforms("payments_payment_v1", "sale", sale);
    expectConforms("payments_payment_v1", "sale", (await rest("GET", `/v1/payments/sale/${sale.id}`)).body);
    const range = `start_time=${encodeURIComponent(new Date(clock.now().getTime() - 86_400_000).toISOString())}&end_time=${encodeURIComponent(new Date(clock.now().getTime() + 86_400_000).toISOString())}`;
    expectConforms("billing_subscriptions_v1", "transactions_list", (await rest("GET", `/v1/billing/subscriptions/${sub.body.id}/transactions?${range}`)).body);
    expectConforms("payments_payment_v1", "detailed_refund", (await rest("POST", `/v1/payments/sale/${sale.id}/refund`, {})).body);
    await rest("POST", `/v1/billing/subscriptions/${sub.body.id}/suspend`, { reason: "Auto-renewal turned off" });
    expectConforms("billing_subscriptions_v1", "subscription", (await rest("GET", `/v1/billing/subscriptions/${sub.body.id}`)).body);
    const failed = await rest("POST", `/v1/billing/subscriptions/${sub.body.id}/suspend`, { reason: "again" });
    expectConforms("billing_subscriptions_v1", "error_422", failed.body);

    const webhook = eventsOf(sub.body.id)[0]!;
    const verified = await rest("POST", "/v1/notifications/verify-webhook-signature", {
      auth_algo: webhook.headers["paypal-auth-algo"],
      cert_url: webhook.headers["paypal-cert-url"],
      transmission_id: webhook.headers["paypal-transmission-id"],
      transmission_sig: webhook.headers["paypal-transmission-sig"],
      transmission_time: webhook.headers["paypal-transmission-time"],
      webhook_id: PAYPAL_SANDBOX_WEBHOOK_ID,
      webhook_event: JSON.parse(webhook.body),
    });
    expectConforms("notifications_webhooks_v1", "verify_webhook_signature_response", verified.body);
    expectConforms("notifications_webhooks_v1", "event", JSON.parse(webhook.body));
    expect(problems).toEqual([]);
  });
});
