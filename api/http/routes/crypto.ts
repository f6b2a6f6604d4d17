import type { Request } from "express";
import { z } from "zod";
import { rateLimited } from "../contract/responses";
import { route } from "../contract/route";
import type { ApiContext } from "../context";
import { DomainError } from "../../platform/errors";
import { clientAddressKey } from "../../platform/trust-proxy";
import { minutesOf, tryAgainIn } from "../../platform/rate-limit";
import { text } from "../../platform/i18n";
import { body, emailField, idField, optionalText, requiredText } from "../validation";
import {
  CRYPTO_MESSAGES,
  type CryptoDeps,
  createPurchaseInvoice,
  createRenewalInvoice,
  dueInvoicePath,
  findCryptoInvoice,
  handleBitPayNotification,
  invoiceDetails,
  payDueInvoice,
} from "../../payments/bitpay/payments";
import { findPlan } from "../../payments/plans";
import { TaxLineSchema } from "../../payments/tax";

/** BitPay's invoice notification: the IPN `{event, data: invoice}`, or the legacy invoice itself. Only the invoice id is read. */
const BitPayInvoiceId = z.string().regex(/^[A-Za-z0-9]{1,64}$/).meta({ description: "BitPay's invoice id" });
const BitPayNotificationSchema = z
  .union([
    z.looseObject({
      event: z.looseObject({ code: z.int(), name: z.string() }).optional(),
      data: z.looseObject({ id: BitPayInvoiceId, status: z.string().optional() }),
    }),
    z.looseObject({ id: BitPayInvoiceId, status: z.string().optional() }),
  ])
  .meta({ id: "BitPayNotification" });

/** commerce §3 'invoice_details': what the portal shows of a crypto invoice. */
const InvoiceDetailsSchema = z
  .strictObject({
    id: z.string().meta({ description: "Our invoice id (the due-invoice page's uuid)." }),
    kind: z.enum(["purchase", "renewal"]),
    plan_id: z.int(),
    title: z.string(),
    regular_price: z.number(),
    regular_price_cents: z.int(),
    discounted_price: z.number().meta({ description: "What the invoice asks, USD." }),
    discounted_price_cents: z.int().meta({ description: "The same in cents." }),
    savings_cents: z.int().meta({ description: "regular_price_cents - discounted_price_cents, at least 0." }),
    discount_percent: z.int().meta({ description: "The discount from the regular price, in percent (commerce §5)." }),
    currency: z.string(),
    status: z.string().meta({
      description: "due (a renewal not opened at BitPay yet), creating, or BitPay's: new, paid, confirmed, complete, expired, invalid.",
    }),
    exception_status: z.string().nullable().meta({ description: "BitPay's exceptionStatus: paidLate, paidPartial, paidOver." }),
    paid: z.boolean().meta({ description: "The plan was activated (or renewed) by this invoice." }),
    not_applied: z.boolean().meta({
      description:
        "Paid after another recurring plan was bought: recorded in the billing history ('Payment failed' with the reason), no second plan started; the customer asks for the money back.",
    }),
    invoice_url: z.string().nullable(),
    bitpay_invoice_id: z.string().nullable(),
    amount_paid: z.number().nullable().meta({
      description: "USD that arrived when BitPay reports the invoice underpaid (exception_status paidPartial), else null.",
    }),
    amount_paid_cents: z.int().nullable(),
    amount_missing_cents: z.int().nullable().meta({ description: "What is still missing of an underpaid invoice, in cents; else null." }),
    net_cents: z.int().meta({ description: "What the invoice asks before VAT, in cents (discounted_price_cents less the VAT)." }),
    tax: TaxLineSchema.nullable().meta({ description: "The VAT in what it asks, as the checkout quoted it (issue 35); null where none applies." }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "CryptoInvoiceDetails" });

const uuidParams = z.object({
  id: z.string().max(64).meta({ description: "Our invoice id (uuid)." }),
});

const newInvoiceRequest = body({
  productId: optionalText("product id", 255).meta({ description: "The plan's code (plans.plan_id); informative." }),
  planId: idField("plan id").meta({ description: "plans.id" }),
  amount: requiredText("amount", { max: 20 }).meta({
    description: "Two decimals, from the plan's discounted_price (with the coupon when one is given): '107.76'.",
    examples: ["107.76"],
  }),
  currency: z.literal("USD", { error: "The currency must be USD." }),
  email: emailField(),
  coupon: optionalText("coupon", 64),
}).meta({ id: "CryptoInvoiceRequest" });

const currentInvoiceRequest = body({
  current_invoice_id: requiredText("current invoice id", { max: 64 }).meta({ description: "Our invoice id (uuid)." }),
}).meta({ id: "CurrentInvoiceRequest" });

/** While crypto payments are off these routes are not registered: every one of them may answer 404. */
const OFF = "; 'Not found.' while crypto payments are off (the routes are not registered)";

/** The crypto gateway; these routes are registered only while it is on (api/http/app.ts), hence the 404. */
function cryptoOf(ctx: ApiContext): CryptoDeps {
  if (!ctx.crypto) throw new DomainError("provider_off", "Not found.");
  return ctx.crypto;
}

const INVOICE_URL = z.strictObject({
  invoiceUrl: z.string().meta({ format: "uri", description: "BitPay's invoice page: send the browser there." }),
  id: z.string().meta({ description: "Our invoice id (uuid)." }),
});

/** 'Too many crypto invoices were requested. Please try again in N minutes.' */
export function tooManyCryptoInvoices(retryAfterSeconds: number): string {
  return `Too many crypto invoices were requested. ${tryAgainIn(retryAfterSeconds)}`;
}

/**
 * Each invoice makes BitPay email its buyer, and the buyer's email is whatever the request says: every
 * request counts against the client address and the email before anything else is done (so a
 * parallel burst opens no more than a sequence would), and 429 once either is over its limit.
 */
async function limitCryptoInvoices(ctx: ApiContext, req: Request, email: string): Promise<void> {
  const { maxPerIp, maxPerEmail, windowSeconds } = ctx.config.cryptoInvoices;
  const reserved = await ctx.limiter.reserveAll(
    [
      [`crypto-invoice:ip:${clientAddressKey(req.ip)}`, maxPerIp],
      [`crypto-invoice:email:${email.toLowerCase()}`, maxPerEmail],
    ],
    windowSeconds,
  );
  if ("retryAfterSeconds" in reserved) {
    const wait = reserved.retryAfterSeconds;
    throw new DomainError("rate_limited", tooManyCryptoInvoices(wait), {
      headers: { "Retry-After": String(wait) },
      text: text("messages:crypto.tooManyInvoices", { count: minutesOf(wait) }),
    });
  }
}

export const cryptoRoutes = [
  route({
    method: "post",
    path: "/api/payments/crypto/invoice",
    operationId: "createCryptoInvoice",
    tags: ["Billing"],
    summary: "A crypto invoice for a plan (BitPay)",
    description:
      "Opens a BitPay invoice for the plan at its price (the coupon's total with a coupon, whose redemption is held until the invoice is paid or expires). The browser goes to invoiceUrl and comes back to the checkout with ?crypto={id}. BitPay's notification activates the plan (subscription_by bitpay, never auto-renewing) when the invoice is confirmed. Every request counts against the client address and the email (CRYPTO_INVOICE_MAX_PER_IP_PER_HOUR, default 20; CRYPTO_INVOICE_MAX_PER_EMAIL_PER_HOUR, default 10).",
    auth: true,
    body: newInvoiceRequest,
    success: { description: `'${CRYPTO_MESSAGES.created}'`, data: INVOICE_URL },
    errors: {
      404: `'This plan does not exist.'${OFF}`,
      409: "'You already have a subscription. Change your plan instead.' (subscription_exists: a recurring plan while a recurring subscription runs)",
      422: `Validation; '${CRYPTO_MESSAGES.amountMismatch}'; a coupon that cannot be used ('This coupon code is not valid.', under errors.fields.coupon)`,
      429: rateLimited("'Too many crypto invoices were requested. Please try again in N minutes.'"),
      502: `'${CRYPTO_MESSAGES.failed}' (BitPay could not be reached or refused)`,
    },
    async handler({ ctx, req, auth, body: input }) {
      await limitCryptoInvoices(ctx, req, input.email);
      const plan = await findPlan(ctx.db, input.planId);
      if (!plan) throw new DomainError("not_found", "This plan does not exist.", { field: "planId" });
      const row = await createPurchaseInvoice(cryptoOf(ctx), {
        user: auth.user,
        plan,
        amount: input.amount,
        email: input.email,
        couponCode: input.coupon,
        returnPath: `/subscription/payment/${plan.id}`,
      });
      return { data: { invoiceUrl: row.invoice_url!, id: row.uuid }, message: CRYPTO_MESSAGES.created };
    },
  }),

  route({
    method: "get",
    path: "/api/payments/crypto/invoices/{id}",
    operationId: "cryptoInvoice",
    tags: ["Billing"],
    summary: "One of the account's crypto invoices (invoice_details)",
    auth: true,
    params: uuidParams,
    success: { description: "The invoice", data: z.strictObject({ invoice_details: InvoiceDetailsSchema }) },
    errors: { 404: `'${CRYPTO_MESSAGES.notFound}'${OFF}` },
    async handler({ ctx, auth, params }) {
      const row = await findCryptoInvoice(cryptoOf(ctx), params.id);
      if (!row || row.user_id !== auth.user.id) throw new DomainError("not_found", CRYPTO_MESSAGES.notFound);
      return { data: { invoice_details: await invoiceDetails(cryptoOf(ctx), row) } };
    },
  }),

  route({
    method: "get",
    path: "/api/payments/crypto/due-invoice/{id}",
    operationId: "dueInvoice",
    tags: ["Billing"],
    summary: "A due crypto invoice by its id (the due-invoice page)",
    description: "Public: the id is an unguessable uuid sent by email. A renewal invoice, or a purchase not paid yet.",
    auth: false,
    params: uuidParams,
    success: { description: "The invoice", data: InvoiceDetailsSchema },
    errors: { 404: `'${CRYPTO_MESSAGES.notFound}'${OFF}` },
    async handler({ ctx, params }) {
      const row = await findCryptoInvoice(cryptoOf(ctx), params.id);
      if (!row) throw new DomainError("not_found", CRYPTO_MESSAGES.notFound);
      return { data: await invoiceDetails(cryptoOf(ctx), row) };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/crypto/due-invoice/pay",
    operationId: "payDueInvoice",
    tags: ["Billing"],
    summary: "Pay a due crypto invoice ('Pay with Crypto')",
    description:
      "The open BitPay invoice for it, or a new one when the last expired. The browser goes to invoiceUrl and comes back to the due-invoice page.",
    auth: false,
    body: currentInvoiceRequest,
    success: { description: "Where to pay", data: INVOICE_URL },
    errors: {
      404: `'${CRYPTO_MESSAGES.notFound}'${OFF}`,
      409: `'${CRYPTO_MESSAGES.alreadyPaid}'`,
      502: `'${CRYPTO_MESSAGES.failed}'`,
    },
    async handler({ ctx, body: input }) {
      const row = await payDueInvoice(cryptoOf(ctx), input.current_invoice_id);
      return { data: { invoiceUrl: row.invoice_url!, id: row.uuid } };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/crypto/renewal-invoice",
    operationId: "cryptoRenewalInvoice",
    tags: ["Billing"],
    summary: "A renewal invoice for a crypto plan (current_invoice_id)",
    description:
      "The renewal invoice of the subscription that current_invoice_id paid for (the open one, or a new one). The scheduled job makes and emails these 3 days before a crypto plan ends.",
    auth: true,
    body: currentInvoiceRequest,
    success: {
      description: `'${CRYPTO_MESSAGES.renewalCreated}'`,
      data: z.strictObject({ id: z.string(), due_invoice_path: z.string() }),
    },
    errors: { 404: `'${CRYPTO_MESSAGES.notFound}'${OFF}`, 409: `'${CRYPTO_MESSAGES.notRenewable}'` },
    async handler({ ctx, auth, body: input }) {
      const row = await createRenewalInvoice(cryptoOf(ctx), auth.user, input.current_invoice_id);
      return { data: { id: row.uuid, due_invoice_path: dueInvoicePath(row.uuid) }, message: CRYPTO_MESSAGES.renewalCreated };
    },
  }),

  route({
    method: "post",
    path: "/api/payments/bitpay/notify",
    operationId: "bitpayNotification",
    tags: ["Billing"],
    summary: "BitPay's invoice notification",
    description:
      "Only a trigger: the invoice is fetched from BitPay and its status there is applied (confirmed or complete activates once; expired or invalid does not). The URL carries ?secret=BITPAY_NOTIFICATION_SECRET, compared in constant time.",
    auth: false,
    // Required: a missing secret is refused (403) like a wrong one, so it is parsed as optional.
    query: z.object({
      secret: z
        .string()
        .max(200)
        .optional()
        .meta({ description: "BITPAY_NOTIFICATION_SECRET, as put in the notificationURL.", param: { required: true } }),
    }),
    rawBody: {
      required: true,
      description: "BitPay's invoice notification (the IPN: `{event, data}` with the invoice under data, or the legacy invoice object itself). Only the invoice id is read from it.",
      content: { "application/json": { schema: BitPayNotificationSchema } },
    },
    success: { description: `'${CRYPTO_MESSAGES.received}'`, data: z.null() },
    errors: {
      400: "'The notification names no invoice.' or a body that is not JSON",
      403: `'${CRYPTO_MESSAGES.forged}' (wrong or missing secret)`,
      404: `${OFF.slice(2)}`,
      422: null,
      502: `'${CRYPTO_MESSAGES.failed}' (BitPay could not be asked; BitPay retries)`,
    },
    async handler({ ctx, req, query }) {
      await handleBitPayNotification(cryptoOf(ctx), query.secret, req.body);
      return { data: null, message: CRYPTO_MESSAGES.received };
    },
  }),
];
