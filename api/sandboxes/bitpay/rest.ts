import express, { type ErrorRequestHandler, type Express, type Response } from "express";
import { z } from "zod";
import { apiView, toCents } from "./invoices";
import type { SandboxService } from "./service";

/*
 * The REST subset of BitPay's API that the product uses, POS facade: POST /invoices and
 * GET /invoices/:id?token=…, answers `{ facade, data }`, errors `{ error }`. X-Accept-Version is
 * accepted, not required. Fields the sandbox does not use (transactionSpeed, guid, ...) are ignored.
 */

const FACADE = "pos/invoice";

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

// Lengths are generous guards, not BitPay's limits.
const optionalText = (max: number) => z.string().max(max).nullish().transform((v) => v ?? undefined);
const optionalUrl = z
  .string()
  .max(2000)
  .refine(isHttpUrl, "must be an absolute http(s) URL")
  .nullish()
  .transform((v) => v ?? undefined);

const createSchema = z.object({
  price: z
    .number({ error: "price must be a number" })
    .refine((v) => Number.isFinite(v) && v > 0, "price must be greater than 0")
    .refine((v) => Math.abs(v * 100 - toCents(v)) < 1e-6, "price has more than 2 decimals for USD"),
  currency: z.literal("USD", { error: 'currency must be "USD" (the sandbox prices in USD only)' }),
  orderId: optionalText(200),
  itemDesc: optionalText(500),
  posData: optionalText(2000),
  notificationURL: optionalUrl,
  redirectURL: optionalUrl,
  closeURL: optionalUrl,
  buyer: z.object({ email: optionalText(254) }).nullish(),
  extendedNotifications: z.boolean().nullish(),
});

function sendError(res: Response, status: number, error: string): void {
  res.status(status).json({ status: "error", error });
}

export function createRestApp(deps: { service: SandboxService; token: string; logger: Pick<Console, "error"> }): Express {
  const { service, token } = deps;
  const app = express();
  app.disable("x-powered-by");
  app.use(express.json({ limit: "32kb" }));
  app.use((_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const unauthorized = (res: Response) =>
    sendError(res, 401, "Unauthorized: this is the crypto sandbox; use its token, BITPAY_SANDBOX_TOKEN.");

  app.post("/invoices", async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (body.token !== token) return unauthorized(res);
      const parsed = createSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return sendError(res, 400, issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "Invalid invoice.");
      }
      const p = parsed.data;
      const invoice = await service.create({
        price: p.price,
        itemDesc: p.itemDesc,
        orderId: p.orderId,
        posData: p.posData,
        buyerEmail: p.buyer?.email,
        redirectURL: p.redirectURL,
        closeURL: p.closeURL,
        notificationURL: p.notificationURL,
        extendedNotifications: p.extendedNotifications ?? false,
      });
      res.json({ facade: FACADE, data: apiView(invoice, service.nowMs()) });
    } catch (error) {
      next(error);
    }
  });

  app.get("/invoices/:id", async (req, res, next) => {
    try {
      if (req.query.token !== token) return unauthorized(res);
      const invoice = await service.get(req.params.id);
      if (!invoice) return sendError(res, 404, "Object not found");
      res.json({ facade: FACADE, data: apiView(invoice, service.nowMs()) });
    } catch (error) {
      next(error);
    }
  });

  app.use((_req, res) => sendError(res, 404, "Not found: the crypto sandbox serves POST /invoices and GET /invoices/:id."));

  const onError: ErrorRequestHandler = (error, req, res, _next) => {
    const status = typeof error?.status === "number" && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) {
      deps.logger.error(`BitPay sandbox: ${req.method} ${req.path} failed:`, error);
      return sendError(res, 500, "An error occurred in the crypto sandbox.");
    }
    sendError(res, status, "Invalid request body.");
  };
  app.use(onError);
  return app;
}
