import { createHmac, timingSafeEqual } from "node:crypto";
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from "express";
import { z } from "zod";
import { invalid, notFound, PayPalApiError, unprocessable } from "./errors";
import {
  MAX_INTERVAL_COUNT,
  captureRefundView,
  captureView,
  centsOf,
  newId,
  orderMinimalView,
  planSummaryView,
  planView,
  productView,
  saleRefundView,
  saleView,
  transactionView,
} from "./model";
import type { PayPalService } from "./service";
import { signatureMatches, signedString } from "./webhooks";

/*
 * The REST subset of PayPal's API that the product uses (see README.md), on its own loopback port.
 * Every call but the token needs `Authorization: Bearer <token from /v1/oauth2/token>`; bodies are
 * checked against PayPal's definitions (the fields the sandbox reads; others are accepted and
 * ignored), errors are PayPal's ({name, message, debug_id, details, links}) with PayPal's statuses.
 */

const TOKEN_TTL_SECONDS = 32_400; // PayPal's: 9 hours
const DOCS = "https://developer.paypal.com/docs/api";

export interface Credentials {
  clientId: string;
  clientSecret: string;
  webhookId: string;
  /** Signs the sandbox's webhooks (never leaves the sandbox). */
  webhookSecret: string;
}

/* ---------------------------------------------------------------- tokens (stateless: HMAC of the expiry) */

function tokenSignature(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(`paypal-sandbox-token:${payload}`).digest("base64url");
}

function issueToken(secret: string): string {
  // Real time, like the product's own tokens: moving the business clock never expires one.
  const payload = Buffer.from(String(Date.now() + TOKEN_TTL_SECONDS * 1000)).toString("base64url");
  return `A21AA${payload}.${tokenSignature(secret, payload)}`;
}

function tokenValid(secret: string, token: string): boolean {
  const match = /^A21AA([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!match) return false;
  const expected = Buffer.from(tokenSignature(secret, match[1]!));
  const given = Buffer.from(match[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
  return Number(Buffer.from(match[1]!, "base64url").toString()) > Date.now();
}

/* ---------------------------------------------------------------- request schemas */

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const text = (max: number) => z.string().min(1).max(max);
const url = z.string().max(4000).refine(isHttpUrl, "must be an absolute http(s) URL");
const value = z
  .string()
  .regex(/^\d{1,10}(\.\d{1,2})?$/, "must be a positive amount with at most 2 decimals");
/** PayPal's money; the sandbox holds US dollars only. */
const moneySchema = z.object({ currency_code: z.literal("USD", { error: "the sandbox accepts USD only" }), value }).loose();
const rfc3339 = z.string().refine((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v)), "must be an RFC 3339 date-time");

const experienceContext = z
  .object({
    return_url: url.optional(),
    cancel_url: url.optional(),
    brand_name: text(127).optional(),
    user_action: z.enum(["CONTINUE", "PAY_NOW", "SUBSCRIBE_NOW"]).optional(),
    shipping_preference: z.enum(["GET_FROM_FILE", "NO_SHIPPING", "SET_PROVIDED_ADDRESS"]).optional(),
  })
  .loose();

const orderSchema = z
  .object({
    intent: z.enum(["CAPTURE", "AUTHORIZE"]),
    purchase_units: z
      .array(
        z
          .object({
            reference_id: text(256).optional(),
            amount: moneySchema,
            description: text(127).optional(),
            custom_id: text(255).optional(),
            invoice_id: text(127).optional(),
            soft_descriptor: text(22).optional(),
          })
          .loose(),
      )
      .min(1)
      .max(10),
    payment_source: z.object({ paypal: z.object({ experience_context: experienceContext.optional() }).loose().optional() }).loose().optional(),
    application_context: experienceContext.optional(),
  })
  .loose();

const productSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{6,50}$/).optional(),
    name: text(127),
    description: text(256).optional(),
    type: z.enum(["PHYSICAL", "DIGITAL", "SERVICE"]).default("PHYSICAL"),
    category: z.string().regex(/^[A-Z_]+$/).max(256).optional(),
    image_url: url.optional(),
    home_url: url.optional(),
  })
  .loose();

const frequencySchema = z.object({
  interval_unit: z.enum(["DAY", "WEEK", "MONTH", "YEAR"]),
  interval_count: z.number().int().min(1).default(1),
});

const planSchema = z
  .object({
    product_id: text(50),
    name: text(127),
    status: z.enum(["CREATED", "ACTIVE", "INACTIVE"]).default("ACTIVE"),
    description: text(127).optional(),
    billing_cycles: z
      .array(
        z.object({
          frequency: frequencySchema,
          tenure_type: z.enum(["REGULAR", "TRIAL"]),
          sequence: z.number().int().min(1).max(99),
          total_cycles: z.number().int().min(0).max(999).default(1),
          pricing_scheme: z.object({ fixed_price: moneySchema }).loose().optional(),
        }),
      )
      .min(1)
      .max(12),
    payment_preferences: z
      .object({
        auto_bill_outstanding: z.boolean().default(true),
        setup_fee: moneySchema.optional(),
        setup_fee_failure_action: z.enum(["CONTINUE", "CANCEL"]).default("CANCEL"),
        payment_failure_threshold: z.number().int().min(0).max(999).default(0),
      })
      .loose(),
    taxes: z.object({ percentage: z.string().regex(/^\d{1,3}(\.\d{1,3})?$/), inclusive: z.boolean().default(true) }).optional(),
    quantity_supported: z.boolean().default(false),
  })
  .loose()
  .superRefine((plan, ctx) => {
    plan.billing_cycles.forEach((cycle, i) => {
      const max = MAX_INTERVAL_COUNT[cycle.frequency.interval_unit];
      if (cycle.frequency.interval_count > max) {
        ctx.addIssue({ code: "custom", path: ["billing_cycles", i, "frequency", "interval_count"], message: `at most ${max} for ${cycle.frequency.interval_unit}` });
      }
      if (cycle.tenure_type === "REGULAR" && !cycle.pricing_scheme) {
        ctx.addIssue({ code: "custom", path: ["billing_cycles", i, "pricing_scheme"], message: "a regular billing cycle needs a pricing scheme" });
      }
      if (cycle.tenure_type === "TRIAL" && cycle.total_cycles === 0) {
        ctx.addIssue({ code: "custom", path: ["billing_cycles", i, "total_cycles"], message: "a trial billing cycle runs a finite number of times" });
      }
    });
    const trials = plan.billing_cycles.filter((c) => c.tenure_type === "TRIAL");
    const regular = plan.billing_cycles.filter((c) => c.tenure_type === "REGULAR");
    if (trials.length > 2) ctx.addIssue({ code: "custom", path: ["billing_cycles"], message: "at most 2 trial billing cycles" });
    if (regular.length !== 1) ctx.addIssue({ code: "custom", path: ["billing_cycles"], message: "exactly one regular billing cycle" });
    const sequences = plan.billing_cycles.map((c) => c.sequence);
    if (new Set(sequences).size !== sequences.length) ctx.addIssue({ code: "custom", path: ["billing_cycles"], message: "sequences must be unique" });
    if (regular[0] && trials.some((t) => t.sequence > regular[0]!.sequence)) {
      ctx.addIssue({ code: "custom", path: ["billing_cycles"], message: "trial cycles run before the regular cycle" });
    }
  });

const pricingSchemesSchema = z.object({
  pricing_schemes: z
    .array(z.object({ billing_cycle_sequence: z.number().int().min(1).max(99), pricing_scheme: z.object({ fixed_price: moneySchema }).loose() }))
    .min(1)
    .max(99),
});

const subscriptionSchema = z
  .object({
    plan_id: z.string().min(3).max(50),
    start_time: rfc3339.optional(),
    quantity: z.string().regex(/^\d{1,32}$/).optional(),
    custom_id: z.string().max(127).regex(/^[\x20-\x7e]*$/).optional(),
    plan: z
      .object({
        billing_cycles: z
          .array(
            z.object({
              sequence: z.number().int().min(1).max(99),
              pricing_scheme: z.object({ fixed_price: moneySchema }).loose().optional(),
              total_cycles: z.number().int().min(0).max(999).optional(),
            }),
          )
          .min(1)
          .max(12)
          .optional(),
        payment_preferences: z.object({ payment_failure_threshold: z.number().int().min(0).max(999).optional() }).loose().optional(),
      })
      .loose()
      .optional(),
    subscriber: z.object({}).loose().optional(),
    application_context: experienceContext.optional(),
  })
  .loose();

const reviseSchema = z
  .object({
    plan_id: z.string().min(3).max(50),
    quantity: z.string().regex(/^\d{1,32}$/).optional(),
    plan: z
      .object({
        billing_cycles: z
          .array(
            z.object({
              sequence: z.number().int().min(1).max(99),
              pricing_scheme: z.object({ fixed_price: moneySchema }).loose().optional(),
              total_cycles: z.number().int().min(0).max(999).optional(),
            }),
          )
          .min(1)
          .max(12)
          .optional(),
      })
      .loose()
      .optional(),
    application_context: experienceContext.optional(),
  })
  .loose();

const reasonSchema = z.object({ reason: text(128) });
const captureRefundSchema = z
  .object({ amount: moneySchema.optional(), invoice_id: text(127).optional(), note_to_payer: text(255).optional() })
  .loose();
const saleRefundSchema = z
  .object({
    amount: z.object({ total: value, currency: z.literal("USD", { error: "the sandbox accepts USD only" }) }).loose().optional(),
    invoice_number: text(127).optional(),
    description: text(255).optional(),
  })
  .loose();
const verifySchema = z.object({
  auth_algo: text(100),
  cert_url: text(2000),
  transmission_id: text(100),
  transmission_sig: text(1000),
  transmission_time: text(100),
  webhook_id: text(100),
  webhook_event: z.object({}).loose(),
});
const transactionsQuery = z.object({ start_time: rfc3339, end_time: rfc3339 });
const plansQuery = z.object({
  product_id: z.string().max(50).optional(),
  page_size: z.coerce.number().int().min(1).max(20).default(10),
  page: z.coerce.number().int().min(1).max(100000).default(1),
  total_required: z.enum(["true", "false"]).optional(),
});

/**
 * MISSING_REQUIRED_PARAMETER's description, as each API's published definitions word it
 * (paypal-rest-api-specifications): orders.create-400, catalogs and billing, payments v2. The v1 sale
 * refund and webhook verification define none: the payments wording.
 */
const MISSING_DESCRIPTION = {
  orders: "A required parameter is missing.",
  catalogs: "A required field is missing.",
  billing: "A required field is missing.",
  payments: "A required field / parameter is missing.",
} as const;

/** The value the client sent at `path` (undefined when it is not there). */
function sentAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key as string];
  }
  return value;
}

/**
 * zod issues -> PayPal's 400 with one detail per issue (field as a JSON pointer). A field that is not
 * there (or null) is MISSING_REQUIRED_PARAMETER whatever its type (zod reports a missing enum or
 * literal as a wrong value); one that is there but wrong is INVALID_PARAMETER_VALUE.
 */
function parse<S extends z.ZodType>(
  schema: S,
  input: unknown,
  api: keyof typeof MISSING_DESCRIPTION,
  location: "body" | "query" = "body",
): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw new PayPalApiError(
    400,
    result.error.issues.slice(0, 10).map((issue) => {
      const sent = sentAt(input ?? {}, issue.path);
      const missing = sent === undefined || sent === null;
      return {
        field: `/${issue.path.join("/")}`,
        location,
        issue: missing ? "MISSING_REQUIRED_PARAMETER" : "INVALID_PARAMETER_VALUE",
        description: missing ? MISSING_DESCRIPTION[api] : `The value of a field is invalid: ${issue.message}.`,
      };
    }),
  );
}

const base = (req: Request) => `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`;
const requestIdOf = (req: Request) => {
  const id = req.get("paypal-request-id");
  if (id !== undefined && (id.length === 0 || id.length > 108)) throw invalid("INVALID_PARAMETER_VALUE", "PayPal-Request-Id must be 1 to 108 characters.", "PayPal-Request-Id", "header");
  return id;
};
const wantsRepresentation = (req: Request) => /return=representation/i.test(req.get("prefer") ?? "");

type Handler = (req: Request, res: Response) => Promise<void>;

export function createRestApp(deps: { service: PayPalService; credentials: Credentials; logger: Pick<Console, "error"> }): Express {
  const { service, credentials } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(express.json({ limit: "64kb", type: ["application/json", "application/*+json"] }));
  app.use(express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 10 }));
  app.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    res.set("Paypal-Debug-Id", newId.debug());
    next();
  });

  const wrap =
    (handler: Handler) =>
    (req: Request, res: Response, next: (error?: unknown) => void): void => {
      handler(req, res).catch(next);
    };

  /* OAuth2 client credentials: Basic client_id:secret, grant_type=client_credentials. */
  app.post(
    "/v1/oauth2/token",
    wrap(async (req, res) => {
      const basic = /^Basic (.+)$/i.exec(req.get("authorization") ?? "");
      const [id, ...secret] = basic ? Buffer.from(basic[1]!, "base64").toString().split(":") : [];
      if (id !== credentials.clientId || secret.join(":") !== credentials.clientSecret) {
        res.status(401).json({ error: "invalid_client", error_description: "Client Authentication failed" });
        return;
      }
      const grant = (req.body as Record<string, unknown> | undefined)?.grant_type;
      if (grant !== "client_credentials") {
        res.status(400).json({ error: "unsupported_grant_type", error_description: "Grant Type is NULL or not supported" });
        return;
      }
      res.json({
        scope: "https://uri.paypal.com/services/payments/payment https://uri.paypal.com/services/subscriptions https://uri.paypal.com/services/payments/refund",
        access_token: issueToken(credentials.clientSecret),
        token_type: "Bearer",
        app_id: "APP-80W284485P519543T",
        expires_in: TOKEN_TTL_SECONDS,
        nonce: `${new Date().toISOString().slice(0, 19)}Z${newId.debug()}`,
      });
    }),
  );

  // Everything else needs a live token.
  app.use((req, res, next) => {
    const bearer = /^Bearer (.+)$/i.exec(req.get("authorization") ?? "");
    if (!bearer || !tokenValid(credentials.clientSecret, bearer[1]!)) {
      res.status(401).json({ error: "invalid_token", error_description: "Token signature verification failed" });
      return;
    }
    next();
  });

  /* ---------------------------------------------------------------- orders */

  app.post(
    "/v2/checkout/orders",
    wrap(async (req, res) => {
      const body = parse(orderSchema, req.body, "orders");
      if (body.intent !== "CAPTURE") throw unprocessable("UNSUPPORTED_INTENT", "The sandbox supports intent CAPTURE only.", "/intent");
      if (body.purchase_units.length !== 1) throw unprocessable("MULTIPLE_PURCHASE_UNITS_NOT_SUPPORTED", "The sandbox takes one purchase unit.", "/purchase_units");
      const unit = body.purchase_units[0]!;
      const cents = centsOf(unit.amount.value);
      if (cents <= 0) throw invalid("INVALID_PARAMETER_VALUE", "The value of a field is invalid: the amount must be greater than 0.", "/purchase_units/@reference_id=='default'/amount/value");
      const context = body.payment_source?.paypal?.experience_context ?? body.application_context;
      const { order, created } = await service.createOrder(
        {
          amount_cents: cents,
          reference_id: unit.reference_id,
          description: unit.description,
          custom_id: unit.custom_id,
          invoice_id: unit.invoice_id,
          soft_descriptor: unit.soft_descriptor,
          payment_source_paypal: body.payment_source?.paypal !== undefined,
          return_url: context?.return_url,
          cancel_url: context?.cancel_url,
          brand_name: context?.brand_name,
        },
        requestIdOf(req),
      );
      res.status(created ? 201 : 200).json(
        wantsRepresentation(req) ? service.orderResource(order) : orderMinimalView(order, base(req), service.publicUrl),
      );
    }),
  );

  app.get(
    "/v2/checkout/orders/:id",
    wrap(async (req, res) => {
      const found = await service.getOrder(String(req.params.id));
      if (!found) throw notFound();
      res.json(service.orderResource(found.order, found.capture));
    }),
  );

  app.post(
    "/v2/checkout/orders/:id/capture",
    wrap(async (req, res) => {
      const { order, capture, created } = await service.captureOrder(String(req.params.id), requestIdOf(req));
      res.status(created ? 201 : 200).json(service.orderResource(order, capture));
    }),
  );

  app.get(
    "/v2/payments/captures/:id",
    wrap(async (req, res) => {
      const capture = await service.getCapture(String(req.params.id));
      if (!capture) throw notFound();
      res.json(captureView(capture, base(req)));
    }),
  );

  app.post(
    "/v2/payments/captures/:id/refund",
    wrap(async (req, res) => {
      const body = parse(captureRefundSchema, req.body, "payments");
      const { refund, created } = await service.refund(
        "capture",
        String(req.params.id),
        { amount_cents: body.amount ? centsOf(body.amount.value) : undefined, invoice_id: body.invoice_id, note_to_payer: body.note_to_payer },
        requestIdOf(req),
      );
      res.status(created ? 201 : 200).json(captureRefundView(refund, base(req)));
    }),
  );

  app.get(
    "/v2/payments/refunds/:id",
    wrap(async (req, res) => {
      const refund = await service.getRefund(String(req.params.id));
      if (refund?.kind !== "capture") throw notFound();
      res.json(captureRefundView(refund, base(req)));
    }),
  );

  /* ---------------------------------------------------------------- v1 sales (subscription payments) */

  app.get(
    "/v1/payments/refund/:id",
    wrap(async (req, res) => {
      const refund = await service.getRefund(String(req.params.id));
      if (refund?.kind !== "sale") {
        throw new PayPalApiError(404, [], { name: "INVALID_RESOURCE_ID", message: "Requested resource ID was not found." });
      }
      res.json(saleRefundView(refund, base(req)));
    }),
  );

  app.get(
    "/v1/payments/sale/:id",
    wrap(async (req, res) => {
      const sale = await service.getSale(String(req.params.id));
      if (!sale || sale.state === "declined") {
        throw new PayPalApiError(404, [], { name: "INVALID_RESOURCE_ID", message: "Requested resource ID was not found." });
      }
      res.json(saleView(sale, base(req)));
    }),
  );

  app.post(
    "/v1/payments/sale/:id/refund",
    wrap(async (req, res) => {
      const body = parse(saleRefundSchema, req.body, "payments");
      const sale = await service.getSale(String(req.params.id));
      if (!sale || sale.state === "declined") {
        throw new PayPalApiError(404, [], { name: "INVALID_RESOURCE_ID", message: "Requested resource ID was not found." });
      }
      const { refund, created } = await service.refund(
        "sale",
        sale.id,
        { amount_cents: body.amount ? centsOf(body.amount.total) : undefined, invoice_id: body.invoice_number },
        requestIdOf(req),
      );
      res.status(created ? 201 : 200).json(saleRefundView(refund, base(req)));
    }),
  );

  /* ---------------------------------------------------------------- catalog products */

  app.post(
    "/v1/catalogs/products",
    wrap(async (req, res) => {
      const body = parse(productSchema, req.body, "catalogs");
      const product = await service.createProduct({
        id: body.id,
        name: body.name,
        description: body.description,
        type: body.type,
        category: body.category,
        image_url: body.image_url,
        home_url: body.home_url,
      });
      res.status(201).json(productView(product, base(req)));
    }),
  );

  app.get(
    "/v1/catalogs/products",
    wrap(async (req, res) => {
      const products = await service.listProducts();
      res.json({
        products: products.map((p) => ({ id: p.id, name: p.name, ...(p.description ? { description: p.description } : {}), create_time: p.create_time, links: productView(p, base(req)).links.slice(0, 1) })),
        links: [{ href: `${base(req)}/v1/catalogs/products`, rel: "self", method: "GET" }],
      });
    }),
  );

  app.get(
    "/v1/catalogs/products/:id",
    wrap(async (req, res) => {
      const product = await service.getProduct(String(req.params.id));
      if (!product) throw notFound();
      res.json(productView(product, base(req)));
    }),
  );

  /* ---------------------------------------------------------------- billing plans */

  app.post(
    "/v1/billing/plans",
    wrap(async (req, res) => {
      const body = parse(planSchema, req.body, "billing");
      const plan = await service.createPlan({
        product_id: body.product_id,
        name: body.name,
        status: body.status,
        description: body.description,
        billing_cycles: body.billing_cycles.map((c) => ({
          frequency: c.frequency,
          tenure_type: c.tenure_type,
          sequence: c.sequence,
          total_cycles: c.total_cycles,
          ...(c.pricing_scheme ? { pricing_scheme: { fixed_price: { currency_code: "USD", value: c.pricing_scheme.fixed_price.value } } } : {}),
        })),
        payment_preferences: {
          auto_bill_outstanding: body.payment_preferences.auto_bill_outstanding,
          ...(body.payment_preferences.setup_fee ? { setup_fee: { currency_code: "USD", value: body.payment_preferences.setup_fee.value } } : {}),
          setup_fee_failure_action: body.payment_preferences.setup_fee_failure_action,
          payment_failure_threshold: body.payment_preferences.payment_failure_threshold,
        },
        taxes: body.taxes,
        quantity_supported: body.quantity_supported,
      });
      res.status(201).json(planView(plan, base(req)));
    }),
  );

  app.get(
    "/v1/billing/plans",
    wrap(async (req, res) => {
      const query = parse(plansQuery, req.query, "billing", "query");
      const plans = await service.listPlans(query.product_id);
      const page = plans.slice((query.page - 1) * query.page_size, query.page * query.page_size);
      res.json({
        plans: page.map((plan) => planSummaryView(plan, base(req))),
        ...(query.total_required === "true" ? { total_items: plans.length, total_pages: Math.ceil(plans.length / query.page_size) } : {}),
        links: [{ href: `${base(req)}${req.originalUrl}`, rel: "self", method: "GET" }],
      });
    }),
  );

  app.get(
    "/v1/billing/plans/:id",
    wrap(async (req, res) => {
      const plan = await service.getPlan(String(req.params.id));
      if (!plan) throw notFound();
      res.json(planView(plan, base(req)));
    }),
  );

  app.post(
    "/v1/billing/plans/:id/activate",
    wrap(async (req, res) => {
      await service.setPlanStatus(String(req.params.id), "ACTIVE");
      res.status(204).end();
    }),
  );
  app.post(
    "/v1/billing/plans/:id/deactivate",
    wrap(async (req, res) => {
      await service.setPlanStatus(String(req.params.id), "INACTIVE");
      res.status(204).end();
    }),
  );
  app.post(
    "/v1/billing/plans/:id/update-pricing-schemes",
    wrap(async (req, res) => {
      const body = parse(pricingSchemesSchema, req.body, "billing");
      await service.updatePricing(
        String(req.params.id),
        body.pricing_schemes.map((s) => ({ billing_cycle_sequence: s.billing_cycle_sequence, ...s.pricing_scheme.fixed_price })),
      );
      res.status(204).end();
    }),
  );

  /* ---------------------------------------------------------------- subscriptions */

  app.post(
    "/v1/billing/subscriptions",
    wrap(async (req, res) => {
      const body = parse(subscriptionSchema, req.body, "billing");
      const context = body.application_context;
      const { sub, created } = await service.createSubscription(
        {
          plan_id: body.plan_id,
          start_time: body.start_time,
          quantity: body.quantity,
          custom_id: body.custom_id,
          override: body.plan
            ? {
                billing_cycles: body.plan.billing_cycles?.map((c) => ({
                  sequence: c.sequence,
                  price: c.pricing_scheme ? c.pricing_scheme.fixed_price.value : undefined,
                  total_cycles: c.total_cycles,
                })),
                payment_failure_threshold: body.plan.payment_preferences?.payment_failure_threshold,
              }
            : undefined,
          return_url: context?.return_url,
          cancel_url: context?.cancel_url,
          brand_name: context?.brand_name,
        },
        requestIdOf(req),
      );
      res.status(created ? 201 : 200).json(await service.subscriptionResource(sub));
    }),
  );

  app.get(
    "/v1/billing/subscriptions/:id",
    wrap(async (req, res) => {
      const sub = await service.getSubscription(String(req.params.id));
      if (!sub) throw notFound();
      res.json(await service.subscriptionResource(sub));
    }),
  );

  // A change of plan: the buyer consents on the approve link; the answer is PayPal's (plan_id, plan_overridden, links).
  app.post(
    "/v1/billing/subscriptions/:id/revise",
    wrap(async (req, res) => {
      const body = parse(reviseSchema, req.body, "billing");
      const context = body.application_context;
      const { sub, revision } = await service.reviseSubscription(String(req.params.id), {
        plan_id: body.plan_id,
        override: body.plan
          ? {
              billing_cycles: body.plan.billing_cycles?.map((c) => ({
                sequence: c.sequence,
                price: c.pricing_scheme ? c.pricing_scheme.fixed_price.value : undefined,
                total_cycles: c.total_cycles,
              })),
            }
          : undefined,
        return_url: context?.return_url,
        cancel_url: context?.cancel_url,
        brand_name: context?.brand_name,
      });
      res.json({
        plan_id: revision.plan_id,
        plan_overridden: revision.plan_overridden,
        links: [{ href: service.revisionApprovalUrl(sub, revision), rel: "approve", method: "GET" }],
      });
    }),
  );

  for (const action of ["suspend", "activate", "cancel"] as const) {
    app.post(
      `/v1/billing/subscriptions/:id/${action}`,
      wrap(async (req, res) => {
        const { reason } = parse(reasonSchema, req.body, "billing");
        await service.setSubscriptionStatus(String(req.params.id), action, reason);
        res.status(204).end();
      }),
    );
  }

  app.get(
    "/v1/billing/subscriptions/:id/transactions",
    wrap(async (req, res) => {
      const query = parse(transactionsQuery, req.query, "billing", "query");
      const sub = await service.getSubscription(String(req.params.id));
      if (!sub) throw notFound();
      const from = Date.parse(query.start_time);
      const to = Date.parse(query.end_time);
      const sales = (await service.sales(sub.id)).filter((s) => Date.parse(s.create_time) >= from && Date.parse(s.create_time) <= to);
      res.json({
        transactions: sales.map(transactionView),
        total_items: sales.length,
        total_pages: 1,
        links: [{ href: `${base(req)}${req.originalUrl}`, rel: "SELF", method: "GET" }],
      });
    }),
  );

  /* ---------------------------------------------------------------- webhooks */

  app.post(
    "/v1/notifications/verify-webhook-signature",
    wrap(async (req, res) => {
      const body = parse(verifySchema, req.body, "payments");
      // The signed CRC is of the event as sent: the sandbox's bodies are JSON.stringify output, which a
      // parse and stringify reproduce exactly.
      const signed = signedString(body.transmission_id, body.transmission_time, body.webhook_id, JSON.stringify(body.webhook_event));
      const ok = body.webhook_id === credentials.webhookId && signatureMatches(credentials.webhookSecret, signed, body.transmission_sig);
      res.json({ verification_status: ok ? "SUCCESS" : "FAILURE" });
    }),
  );

  app.use((_req, _res, next) => next(notFound()));

  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const debugId = String(res.get("Paypal-Debug-Id") ?? newId.debug());
    if (error instanceof PayPalApiError) {
      res.status(error.status).json(error.body(debugId, `${DOCS}${req.path.startsWith("/v1/billing") ? "/subscriptions/v1/" : req.path.startsWith("/v1") ? "/payments/v1/" : "/orders/v2/"}`));
      return;
    }
    const status = typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) {
      deps.logger.error(`PayPal sandbox: ${req.method} ${req.path} failed:`, error);
      res.status(500).json({ name: "INTERNAL_SERVER_ERROR", message: "An internal server error has occurred.", debug_id: debugId, links: [] });
      return;
    }
    res.status(400).json(
      new PayPalApiError(400, [{ issue: "MALFORMED_REQUEST_JSON", description: "The request JSON is not well formed." }]).body(debugId, `${DOCS}/orders/v2/`),
    );
  };
  app.use(onError);
  return app;
}
