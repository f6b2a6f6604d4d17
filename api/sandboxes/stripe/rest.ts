import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from "express";
import { z } from "zod";
import { createTaxCalculation, taxCalculationCreateParams, taxCalculationLineItemsParams } from "./tax-calculations";
import {
  cancelSubscription,
  confirmInvoiceIntent,
  createSubscription,
  invoiceListParams,
  invoicePayParams,
  invoiceUpdateParams,
  listInvoices,
  listSubscriptions,
  payInvoice,
  subscriptionCreateParams,
  subscriptionListParams,
  subscriptionUpdateParams,
  updateInvoice,
  updateSubscription,
} from "./billing";
import {
  couponCreateParams,
  createCoupon,
  createPrice,
  createProduct,
  createPromotionCode,
  listPrices,
  listPromotionCodes,
  priceCreateParams,
  priceListParams,
  productCreateParams,
  promotionCodeCreateParams,
  promotionCodeListParams,
} from "./catalog";
import {
  checkoutSessionCreateParams,
  checkoutSessionListParams,
  createCheckoutSession,
  expireCheckoutSession,
  listCheckoutSessions,
} from "./checkout";
import type { Ops, Runner } from "./context";
import {
  attachParams,
  attachPaymentMethod,
  createCustomer,
  createPaymentMethod,
  customerCreateParams,
  customerListParams,
  customerUpdateParams,
  detachPaymentMethod,
  paymentMethodCreateParams,
  paymentMethodListParams,
  paymentMethodUpdateParams,
  updateCustomer,
  updatePaymentMethod,
  createTaxId,
  deleteTaxId,
  taxIdCreateParams,
} from "./customers";
import { complete } from "./complete";
import { SandboxError } from "./errors";
import type { SandboxFaults } from "./faults";
import type { Answer, IdempotencyKeys } from "./idempotency";
import { newId } from "./ids";
import { paginate } from "./lists";
import type { ObjectType, SandboxObjects } from "./objects";
import { parse, zBool, zExpand, zListParams, zText } from "./params";
import {
  cancelPaymentIntent,
  confirmPaymentIntent,
  confirmSetupIntent,
  createPaymentIntent,
  createRefund,
  createSetupIntent,
  paymentIntentCancelParams,
  paymentIntentConfirmParams,
  paymentIntentCreateParams,
  paymentIntentUpdateParams,
  refundCreateParams,
  setupIntentConfirmParams,
  setupIntentCreateParams,
  updatePaymentIntent,
} from "./payments";
import {
  cancelSchedule,
  changeSubscriptionPrice,
  createSchedule,
  invoicePreviewParams,
  isPriceChange,
  listSchedules,
  previewInvoice,
  releaseSchedule,
  scheduleCancelParams,
  scheduleCreateParams,
  scheduleListParams,
  scheduleReleaseParams,
  scheduleUpdateParams,
  subscriptionPriceChangeParams,
  updateSchedule,
} from "./plan-changes";
import type { Renderer } from "./render";
import type { SandboxStore } from "./store";

/*
 * The REST API (/v1/...), the subset of Stripe's that the product uses, for the real SDK.
 * Bodies are form-encoded in bracket notation (parsed by qs); GET and DELETE take their parameters
 * from the query string. Every answer is Stripe's JSON: the object, a list, or `{ error }`.
 */

export interface RestDeps {
  store: SandboxStore;
  renderer: Renderer;
  runner: Runner;
  idempotency: IdempotencyKeys;
  faults: SandboxFaults;
  secretKeyPrefix: string;
  apiVersion: string;
  logger: Pick<Console, "error">;
}

interface RouteInput {
  id: string;
  params: unknown;
  expand: string[];
  path: string;
}

type Route = (input: RouteInput) => Promise<unknown>;

const expandParams = z.strictObject({ expand: zExpand });
/** A retrieve, detach or expire takes nothing but `expand` (taken off before the route sees the rest). */
const noParams = z.strictObject({});
const listOnlyParams = z.strictObject({ ...zListParams });
/** Stripe's cancel parameters; the sandbox always cancels at once, without a final invoice. */
const subscriptionCancelParams = z.strictObject({
  invoice_now: zBool.optional(),
  prorate: zBool.optional(),
  cancellation_details: z.strictObject({ comment: zText.optional(), feedback: zText.optional() }).optional(),
});
const typeListParams = z.strictObject({ type: z.literal("card").optional(), ...zListParams });
const eventListParams = z.strictObject({ type: z.string().optional(), ...zListParams });

/** The API key of a request: Bearer, or Basic with the key as user name (curl -u sk_test_…:). */
function apiKeyOf(req: Request): string | null {
  const header = req.get("authorization") ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer?.[1]) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic?.[1]) return Buffer.from(basic[1], "base64").toString("utf8").split(":")[0] || null;
  return null;
}

/** Enough of a key to recognise it, never the whole of it. */
function maskKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 8)}${"*".repeat(key.length - 12)}${key.slice(-4)}` : "****";
}

/** An injected failure (faults.ts): a 500 that the SDK retries, or a connection dropped without an answer. */
function failAnswer(res: Response, kind: "error" | "reset"): void {
  if (kind === "reset") {
    res.socket?.destroy();
    return;
  }
  res.status(500).json({ error: { type: "api_error", message: "An error occurred with our connection to Stripe. (sandbox fault)" } });
}

function stripeError(status: number, message: string): Answer {
  return { status, body: { error: { type: "invalid_request_error", message } } };
}

export function createRestApp(deps: RestDeps): Express {
  const { store, renderer, runner, idempotency } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "extended");

  app.use((req, res, next) => {
    res.setHeader("Request-Id", newId("req_"));
    res.setHeader("Stripe-Version", deps.apiVersion);
    const key = apiKeyOf(req);
    if (!key) {
      const { status, body } = stripeError(
        401,
        "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      );
      res.status(status).json(body);
      return;
    }
    if (!key.startsWith(deps.secretKeyPrefix)) {
      const { status, body } = stripeError(401, `Invalid API Key provided: ${maskKey(key)}`);
      res.status(status).json(body);
      return;
    }
    next();
  });
  app.use(express.urlencoded({ extended: true, limit: "1mb", parameterLimit: 5000 }));
  app.use(express.json({ limit: "1mb" }));

  const handle =
    (route: Route): RequestHandler =>
    async (req, res) => {
      const params: unknown = req.method === "POST" ? req.body : req.query;
      const answer = async (): Promise<Answer> => {
        try {
          // Every endpoint takes expand[]; the route's own (strict) schema sees the other parameters.
          const { expand: sentExpand, ...rest } = (params && typeof params === "object" ? params : {}) as Record<string, unknown>;
          const { expand } = parse(expandParams, { expand: sentExpand });
          const body = await route({ id: String(req.params.id ?? ""), params: rest, expand: expand ?? [], path: req.path });
          return { status: 200, body };
        } catch (error) {
          // A request that failed validation never began: nothing is kept under its Idempotency-Key.
          if (error instanceof SandboxError) return { status: error.status, body: { error: error.body }, keep: !error.validation };
          deps.logger.error(`Stripe sandbox: ${req.method} ${req.path} failed:`, error);
          return { status: 500, body: { error: { type: "api_error", message: "An error occurred in the Stripe sandbox." } } };
        }
      };
      const fault = deps.faults.take(req.method, req.path);
      if (fault?.when === "before") {
        if (fault.kind === "delay") await deps.faults.wait(fault.delayMs);
        else return failAnswer(res, fault.kind);
      }
      const key = req.get("idempotency-key");
      const mutating = req.method === "POST" || req.method === "DELETE";
      const result =
        mutating && key
          ? await idempotency.run(key, { method: req.method, path: req.path, params }, answer)
          : { ...(await answer()), replayed: false };
      if (fault?.when === "after") {
        // The work is done (and kept under its key); only the answer is lost.
        if (fault.kind === "delay") await deps.faults.wait(fault.delayMs);
        else return failAnswer(res, fault.kind);
      }
      if (res.destroyed || req.socket.destroyed) return;
      if (key) res.setHeader("Idempotency-Key", key);
      if (result.replayed) res.setHeader("Idempotent-Replayed", "true");
      res.status(result.status).json(result.body);
    };

  const get = (path: string, route: Route) => app.get(path, handle(route));
  const post = (path: string, route: Route) => app.post(path, handle(route));
  const del = (path: string, route: Route) => app.delete(path, handle(route));

  /** Runs an operation under the lock and answers its object, expanded. */
  const mutate = <K extends ObjectType>(type: K, expand: string[], op: (ops: Ops) => Promise<SandboxObjects[K]>) =>
    runner.run(async (ops) => renderer.render(type, await op(ops), expand));
  const read = async <K extends ObjectType>(type: K, id: string, expand: string[]) =>
    renderer.render(type, await store.require(type, id), expand);
  /** GET /v1/<objects>/:id: takes only expand[]. */
  const retrieve =
    <K extends ObjectType>(type: K): Route =>
    ({ id, params, expand }) => {
      parse(noParams, params);
      return read(type, id, expand);
    };
  const list = <K extends ObjectType>(
    type: K,
    items: SandboxObjects[K][],
    page: z.output<typeof listOnlyParams>,
    input: RouteInput,
  ) => renderer.renderList(type, paginate(items, page), input.path, input.expand);

  // Customers
  post("/v1/customers", ({ params, expand }) => {
    const p = parse(customerCreateParams, params);
    return mutate("customer", expand, (ops) => createCustomer(ops, p));
  });
  get("/v1/customers", async (input) => {
    const p = parse(customerListParams, input.params);
    const customers = (await store.list("customer")).filter((c) => !p.email || c.email === p.email);
    return list("customer", customers, p, input);
  });
  get("/v1/customers/:id", retrieve("customer"));
  post("/v1/customers/:id", ({ id, params, expand }) => {
    const p = parse(customerUpdateParams, params);
    return mutate("customer", expand, (ops) => updateCustomer(ops, id, p));
  });
  // Tax ids (Stripe Tax reads them: a verified EU VAT id reverse charges). Kept on the customer, answered as Stripe's TaxId.
  post("/v1/customers/:id/tax_ids", async ({ id, params }) => {
    const p = parse(taxIdCreateParams, params);
    return runner.run((ops) => createTaxId(ops, id, p));
  });
  get("/v1/customers/:id/tax_ids", async (input) => {
    const customer = await store.require("customer", input.id);
    const data = [...(customer._tax_ids ?? [])].reverse();
    return { object: "list", data, has_more: false, url: `/v1/customers/${input.id}/tax_ids` };
  });
  del("/v1/customers/:id/tax_ids/:tax_id", ({ id, path }) => runner.run((ops) => deleteTaxId(ops, id, decodeURIComponent(path.split("/").pop() ?? ""))));
  get("/v1/customers/:id/payment_methods", async (input) => {
    const p = parse(typeListParams, input.params);
    await store.require("customer", input.id);
    return list("payment_method", await store.list("payment_method", input.id), p, input);
  });

  // Payment methods
  post("/v1/payment_methods", ({ params, expand }) => {
    const p = parse(paymentMethodCreateParams, params);
    return mutate("payment_method", expand, (ops) => createPaymentMethod(ops, p));
  });
  get("/v1/payment_methods", async (input) => {
    const p = parse(paymentMethodListParams, input.params);
    const methods = p.customer ? await store.list("payment_method", p.customer) : [];
    return list("payment_method", methods, p, input);
  });
  get("/v1/payment_methods/:id", retrieve("payment_method"));
  post("/v1/payment_methods/:id", ({ id, params, expand }) => {
    const p = parse(paymentMethodUpdateParams, params);
    return mutate("payment_method", expand, (ops) => updatePaymentMethod(ops, id, p));
  });
  post("/v1/payment_methods/:id/attach", ({ id, params, expand }) => {
    const p = parse(attachParams, params);
    return mutate("payment_method", expand, (ops) => attachPaymentMethod(ops, id, p.customer));
  });
  post("/v1/payment_methods/:id/detach", ({ id, params, expand }) => {
    parse(noParams, params);
    return mutate("payment_method", expand, (ops) => detachPaymentMethod(ops, id));
  });

  // Products, prices, coupons, promotion codes
  post("/v1/products", ({ params, expand }) => {
    const p = parse(productCreateParams, params);
    return mutate("product", expand, (ops) => createProduct(ops, p));
  });
  get("/v1/products/:id", retrieve("product"));
  post("/v1/prices", ({ params, expand }) => {
    const p = parse(priceCreateParams, params);
    return mutate("price", expand, (ops) => createPrice(ops, p));
  });
  get("/v1/prices", async (input) => {
    const p = parse(priceListParams, input.params);
    return list("price", await listPrices(store, p), p, input);
  });
  get("/v1/prices/:id", retrieve("price"));
  post("/v1/coupons", ({ params, expand }) => {
    const p = parse(couponCreateParams, params);
    return mutate("coupon", expand, (ops) => createCoupon(ops, p));
  });
  get("/v1/coupons/:id", retrieve("coupon"));
  post("/v1/promotion_codes", ({ params, expand }) => {
    const p = parse(promotionCodeCreateParams, params);
    return mutate("promotion_code", expand, (ops) => createPromotionCode(ops, p));
  });
  get("/v1/promotion_codes", async (input) => {
    const p = parse(promotionCodeListParams, input.params);
    return list("promotion_code", await listPromotionCodes(store, p), p, input);
  });
  get("/v1/promotion_codes/:id", retrieve("promotion_code"));

  // Subscriptions and invoices
  post("/v1/subscriptions", ({ params, expand }) => {
    const p = parse(subscriptionCreateParams, params);
    return mutate("subscription", expand, (ops) => createSubscription(ops, p));
  });
  get("/v1/subscriptions", async (input) => {
    const p = parse(subscriptionListParams, input.params);
    return list("subscription", await listSubscriptions(store, p), p, input);
  });
  get("/v1/subscriptions/:id", retrieve("subscription"));
  post("/v1/subscriptions/:id", ({ id, params, expand }) => {
    if (isPriceChange(params)) {
      const change = parse(subscriptionPriceChangeParams, params);
      return mutate("subscription", expand, (ops) => changeSubscriptionPrice(ops, id, change));
    }
    const p = parse(subscriptionUpdateParams, params);
    return mutate("subscription", expand, (ops) => updateSubscription(ops, id, p));
  });
  del("/v1/subscriptions/:id", ({ id, params, expand }) => {
    parse(subscriptionCancelParams, params);
    return mutate("subscription", expand, (ops) => cancelSubscription(ops, id));
  });
  get("/v1/invoices", async (input) => {
    const p = parse(invoiceListParams, input.params);
    return list("invoice", await listInvoices(store, p), p, input);
  });
  // Plan changes (plan-changes.ts): the preview of a change's invoice, and subscription schedules.
  post("/v1/invoices/create_preview", ({ params, expand }) => {
    const p = parse(invoicePreviewParams, params);
    return runner.run(async (ops) => renderer.render("invoice", await previewInvoice(ops, p), expand));
  });
  post("/v1/subscription_schedules", ({ params, expand }) => {
    const p = parse(scheduleCreateParams, params);
    return mutate("subscription_schedule", expand, (ops) => createSchedule(ops, p));
  });
  get("/v1/subscription_schedules", async (input) => {
    const p = parse(scheduleListParams, input.params);
    return list("subscription_schedule", await listSchedules({ store }, p), p, input);
  });
  get("/v1/subscription_schedules/:id", retrieve("subscription_schedule"));
  post("/v1/subscription_schedules/:id", ({ id, params, expand }) => {
    const p = parse(scheduleUpdateParams, params);
    return mutate("subscription_schedule", expand, (ops) => updateSchedule(ops, id, p));
  });
  post("/v1/subscription_schedules/:id/release", ({ id, params, expand }) => {
    parse(scheduleReleaseParams, params);
    return mutate("subscription_schedule", expand, (ops) => releaseSchedule(ops, id));
  });
  post("/v1/subscription_schedules/:id/cancel", ({ id, params, expand }) => {
    parse(scheduleCancelParams, params);
    return mutate("subscription_schedule", expand, (ops) => cancelSchedule(ops, id));
  });
  get("/v1/invoices/:id", retrieve("invoice"));
  get("/v1/invoices/:id/lines", async (input) => {
    parse(listOnlyParams, input.params);
    const invoice = await store.require("invoice", input.id);
    return complete(structuredClone(invoice.lines));
  });
  post("/v1/invoices/:id", ({ id, params, expand }) => {
    const p = parse(invoiceUpdateParams, params);
    return mutate("invoice", expand, (ops) => updateInvoice(ops, id, p));
  });
  post("/v1/invoices/:id/pay", ({ id, params, expand }) => {
    const p = parse(invoicePayParams, params);
    return mutate("invoice", expand, (ops) => payInvoice(ops, id, p));
  });

  // Stripe Tax's calculations (the one-time PaymentIntent's tax; tax-calculations.ts)
  post("/v1/tax/calculations", ({ params }) => {
    const p = parse(taxCalculationCreateParams, params);
    return runner.run(async (ops) => renderer.render("tax_calculation", await createTaxCalculation(ops, p), []));
  });
  get("/v1/tax/calculations/:id", retrieve("tax_calculation"));
  get("/v1/tax/calculations/:id/line_items", async (input) => {
    parse(taxCalculationLineItemsParams, input.params);
    const calculation = await store.require("tax_calculation", input.id);
    return { object: "list", data: calculation._line_items, has_more: false, url: `/v1/tax/calculations/${input.id}/line_items` };
  });

  // Payment intents, refunds, setup intents
  post("/v1/payment_intents", ({ params, expand }) => {
    const p = parse(paymentIntentCreateParams, params);
    return mutate("payment_intent", expand, (ops) => createPaymentIntent(ops, p));
  });
  get("/v1/payment_intents/:id", retrieve("payment_intent"));
  post("/v1/payment_intents/:id", ({ id, params, expand }) => {
    const p = parse(paymentIntentUpdateParams, params);
    return mutate("payment_intent", expand, (ops) => updatePaymentIntent(ops, id, p));
  });
  post("/v1/payment_intents/:id/confirm", ({ id, params, expand }) => {
    const p = parse(paymentIntentConfirmParams, params);
    return mutate("payment_intent", expand, async (ops) => {
      const intent = await ops.store.require("payment_intent", id);
      return intent._invoice ? confirmInvoiceIntent(ops, intent, p) : confirmPaymentIntent(ops, id, p);
    });
  });
  post("/v1/payment_intents/:id/cancel", ({ id, params, expand }) => {
    const p = parse(paymentIntentCancelParams, params);
    return mutate("payment_intent", expand, (ops) => cancelPaymentIntent(ops, id, p));
  });
  get("/v1/charges/:id", retrieve("charge"));
  post("/v1/refunds", ({ params, expand }) => {
    const p = parse(refundCreateParams, params);
    return mutate("refund", expand, (ops) => createRefund(ops, p));
  });
  get("/v1/refunds/:id", retrieve("refund"));
  post("/v1/setup_intents", ({ params, expand }) => {
    const p = parse(setupIntentCreateParams, params);
    return mutate("setup_intent", expand, (ops) => createSetupIntent(ops, p));
  });
  get("/v1/setup_intents/:id", retrieve("setup_intent"));
  post("/v1/setup_intents/:id/confirm", ({ id, params, expand }) => {
    const p = parse(setupIntentConfirmParams, params);
    return mutate("setup_intent", expand, (ops) => confirmSetupIntent(ops, id, p));
  });

  // Checkout
  post("/v1/checkout/sessions", ({ params, expand }) => {
    const p = parse(checkoutSessionCreateParams, params);
    return mutate("checkout_session", expand, (ops) => createCheckoutSession(ops, p));
  });
  get("/v1/checkout/sessions", async (input) => {
    const p = parse(checkoutSessionListParams, input.params);
    return list("checkout_session", await listCheckoutSessions(store, p), p, input);
  });
  get("/v1/checkout/sessions/:id", retrieve("checkout_session"));
  get("/v1/checkout/sessions/:id/line_items", async (input) => {
    parse(listOnlyParams, input.params);
    const session = await store.require("checkout_session", input.id);
    return complete(structuredClone(session.line_items));
  });
  post("/v1/checkout/sessions/:id/expire", ({ id, params, expand }) => {
    parse(noParams, params);
    return mutate("checkout_session", expand, (ops) => expireCheckoutSession(ops, id));
  });

  // Events
  get("/v1/events", async (input) => {
    const p = parse(eventListParams, input.params);
    const events = (await store.list("event")).filter((e) => !p.type || e.type === p.type);
    return list("event", events, p, input);
  });
  get("/v1/events/:id", retrieve("event"));

  app.use((req, res) => {
    const { status, body } = stripeError(
      404,
      `Unrecognized request URL (${req.method}: ${req.path}). The Stripe sandbox speaks only the subset of Stripe's API that this product uses.`,
    );
    res.status(status).json(body);
  });
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const status = typeof error?.status === "number" && error.status < 500 ? error.status : 400;
    res.status(status).json({ error: { type: "invalid_request_error", message: "Invalid request body." } });
  };
  app.use(onError);
  return app;
}
