import { z } from "zod";
import { localize } from "../../platform/i18n";
import { requestLanguage } from "../envelope";
import { route } from "../contract/route";
import { AUTO_RENEWAL_MESSAGES, setAutoRenewal } from "../../billing/auto-renewal";
import { INVOICE_MESSAGES, creditNotePdf, hostedInvoiceUrl, invoicePdf } from "../../billing/invoices";
import {
  CompletedRefundSchema,
  REFUND_MESSAGES,
  REFUND_WINDOW_DAYS,
  RefundRequestSchema,
  completeCryptoRefund,
  openRefundRequests,
  refundAddressField,
  requestRefund,
  requireAdmin,
} from "../../billing/refunds";
import { HISTORY_PAGE_SIZE, MAX_PAGE_SIZE, PaginationSchema, TransactionSchema, listTransactions } from "../../billing/transactions";
import { body, idField, integerOrDigits } from "../validation";

/** An optional positive integer (a JSON number or digits in form data) up to `max`; missing or blank = `fallback`. */
function pageField(label: string, fallback: number, max: number) {
  const invalid = `The ${label} must be a whole number from 1 to ${max}.`;
  return z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === null || value === "") return fallback;
      const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d{1,6}\s*$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(n) || n < 1 || n > max) {
        ctx.addIssue({ code: "custom", message: invalid });
        return z.NEVER;
      }
      return n;
    })
    .meta({
      description: `From 1 to ${max}.`,
      // Digits are read up to 6 (then the range applies); blank or null is the default.
      override: { anyOf: [...integerOrDigits({ min: 1, maxDigits: 6, max }).anyOf, { const: "" }, { type: "null" }], default: fallback },
    });
}

const transactionsRequest = body({
  page: pageField("page", 1, 100_000),
  per_page: pageField("per page", HISTORY_PAGE_SIZE, MAX_PAGE_SIZE),
}).meta({ id: "TransactionsRequest" });

const autoRenewalRequest = body({
  type: z.enum(["enable", "disable"], { error: "The type must be enable or disable." }).meta({
    description: "enable: the subscription renews at the end of the cycle; disable: it ends then (at least 24 hours before).",
  }),
  subscriptionId: idField("subscription id").meta({ description: "subscriptions.id (the Subscription's id), not Stripe's." }),
}).meta({ id: "AutoRenewalRequest" });

const gatewayField = () =>
  z.string().trim().min(1).max(32).meta({ description: "The transaction's payment_gateway (stripe, bitpay)." });

const cryptoInvoiceParams = z.object({ id: idField("transaction id"), paymentGateway: gatewayField() });
const hostedInvoiceParams = z.object({
  id: idField("transaction id"),
  paymentGateway: gatewayField(),
  walletPaymentType: z.string().trim().min(1).max(32).meta({ description: "The transaction's wallet_payment_type (card, applepay, googlepay)." }),
});

const refundParams = z.object({ id: idField("transaction id") });
const refundRequest = body({ refund_address: refundAddressField() }).meta({ id: "RefundRequestBody" });

export const billingRoutes = [
  route({
    method: "post",
    path: "/api/billing/transactions",
    operationId: "userTransactions",
    tags: ["Billing"],
    summary: "The user's transactions (payment history)",
    description: `Newest first, ${HISTORY_PAGE_SIZE} a page by default (commerce §9). Every payment, paid or 'Payment failed'.`,
    auth: true,
    body: transactionsRequest,
    success: {
      description: "A page of transactions and the pagination",
      data: z.strictObject({ transactions: z.array(TransactionSchema), pagination: PaginationSchema }),
    },
    async handler({ ctx, auth, body }) {
      return { data: await listTransactions(ctx.db, auth.user.id, body.page, body.per_page, ctx.clock.now()) };
    },
  }),

  route({
    method: "post",
    path: "/api/stripe/auto-renewal",
    operationId: "autoRenewal",
    tags: ["Billing", "Subscriptions"],
    summary: "Turn auto-renewal on or off",
    description:
      "For a recurring subscription paid by card: sets cancel_at_period_end at Stripe and on our subscription. Turning it off is refused within 24 hours of the end of the billing cycle (sub_exp_date); turning it on is allowed until the cycle ends (and is then binding for that cycle). While past due (a failed renewal within its grace period) it acts on the open invoice instead: off stops Stripe's retries (auto_advance false; the plan ends at the grace end, uncharged), on resumes them. A PayPal subscription is suspended at PayPal (off) or reactivated (on), with the same 24-hour rule. Crypto, one-time plans and plans paid as one PayPal order have no auto-renewal.",
    auth: true,
    body: autoRenewalRequest,
    success: {
      description: `'${AUTO_RENEWAL_MESSAGES.updated}'`,
      data: z.strictObject({ message: z.string() }),
    },
    errors: {
      404: `'${AUTO_RENEWAL_MESSAGES.notFound}' (also another user's subscription)`,
      409: `'${AUTO_RENEWAL_MESSAGES.ended}'`,
      422: `Invalid fields, '${AUTO_RENEWAL_MESSAGES.tooLate}', or a subscription without auto-renewal (crypto, one-time, a PayPal order).`,
    },
    async handler({ ctx, req, auth, body }) {
      await setAutoRenewal(ctx.notices, auth.user.id, body.subscriptionId, body.type);
      // The spec's copy of the message in data: in the request's language too, as the envelope's.
      return { data: { message: localize(AUTO_RENEWAL_MESSAGES.updated, requestLanguage(req)) }, message: AUTO_RENEWAL_MESSAGES.updated };
    },
  }),

  route({
    method: "get",
    path: "/api/invoice/{id}/{paymentGateway}",
    operationId: "downloadCryptoInvoice",
    tags: ["Billing"],
    summary: "Download a payment's invoice (PDF)",
    description:
      "{id} is the transaction's id, {paymentGateway} its payment_gateway (stripe, bitpay or paypal). Answers our invoice as a PDF attachment named invoice_{id}.pdf: the seller, the buyer's billing details as they were when it was made, its number of the gap-free series (INV-2026-000123, also in the X-Invoice-Number header), the plan and period, net, VAT and total. Only the owner's transactions.",
    auth: true,
    params: cryptoInvoiceParams,
    success: { description: "The invoice as a PDF", raw: { mediaType: "application/pdf", schema: z.string().meta({ format: "binary" }) } },
    errors: { 404: `'${INVOICE_MESSAGES.notFound}'` },
    async handler({ ctx, auth, params, res }) {
      const { number, pdf } = await invoicePdf(ctx.db, ctx.config.seller, auth.user.id, params.id, params.paymentGateway);
      res.setHeader("Cache-Control", "private, no-store");
      res.setHeader("Content-Type", "application/pdf");
      res.setHeader("Content-Disposition", `attachment; filename="invoice_${params.id}.pdf"`);
      res.setHeader("X-Invoice-Number", number);
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.status(200).end(pdf);
    },
  }),

  route({
    method: "get",
    path: "/api/credit-note/{id}/{paymentGateway}",
    operationId: "downloadCreditNote",
    tags: ["Billing"],
    summary: "Download a refunded payment's credit note (PDF)",
    description:
      "{id} is the refunded transaction's id, {paymentGateway} its payment_gateway. Answers the credit note as a PDF attachment named credit_note_{id}.pdf: its number of the gap-free CN series (CN-2026-000007, also in the X-Credit-Note-Number header), the invoice it corrects and the amount refunded. 404 while the payment has no credit note (not refunded). Only the owner's transactions.",
    auth: true,
    params: cryptoInvoiceParams,
    success: { description: "The credit note as a PDF", raw: { mediaType: "application/pdf", schema: z.string().meta({ format: "binary" }) } },
    errors: { 404: `'${INVOICE_MESSAGES.creditNoteNotFound}'` },
    async handler({ ctx, auth, params, res }) {
      const { number, pdf } = await creditNotePdf(ctx.db, ctx.config.seller, auth.user.id, params.id, params.paymentGateway);
      res.setHeader("Cache-Control", "private, no-store");
      res.setHeader("Content-Type", "application/pdf");
      res.setHeader("Content-Disposition", `attachment; filename="credit_note_${params.id}.pdf"`);
      res.setHeader("X-Credit-Note-Number", number);
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.status(200).end(pdf);
    },
  }),

  route({
    method: "get",
    path: "/api/invoice/{id}/{paymentGateway}/{walletPaymentType}",
    operationId: "hostedInvoiceUrl",
    tags: ["Billing"],
    summary: "The hosted invoice page of a card or wallet payment",
    description:
      "{id} is the transaction's id, {paymentGateway} and {walletPaymentType} its payment_gateway and wallet_payment_type. data.url is the gateway's hosted invoice page, to open in a new tab. Only the owner's transactions.",
    auth: true,
    params: hostedInvoiceParams,
    success: { description: "The invoice's url", data: z.strictObject({ url: z.string().meta({ format: "uri" }) }) },
    errors: { 404: `'${INVOICE_MESSAGES.notFound}'` },
    async handler({ ctx, auth, params }) {
      const url = await hostedInvoiceUrl(ctx.db, auth.user.id, params.id, params.paymentGateway, params.walletPaymentType);
      return { data: { url } };
    },
  }),

  route({
    method: "post",
    path: "/api/billing/transactions/{id}/refund",
    operationId: "refundTransaction",
    tags: ["Billing"],
    summary: `The ${REFUND_WINDOW_DAYS}-day money-back guarantee: refund a payment`,
    description: `Once per account and once per customer (an email or a card that already had a refund, even on a deleted account, is refused: 409), for the account's first paid payment, within ${REFUND_WINDOW_DAYS} days of it by the product's clock (the history's \`refundable\` flag says the same). A card or wallet payment is refunded in full through the card gateway (idempotent on the transaction: any number of posts make one refund); the transaction becomes 'refunded', the subscription it bought ends now, and an email confirms it. A crypto payment cannot be returned automatically: \`refund_address\` is required and a request is recorded for staff (GET /api/admin/refund-requests); the subscription ends now too. Posting again for the same transaction answers the same outcome.`,
    auth: true,
    params: refundParams,
    body: refundRequest,
    success: {
      description: `'${REFUND_MESSAGES.refunded}' or '${REFUND_MESSAGES.requested}'`,
      data: z.strictObject({ status: z.enum(["refunded", "requested"]) }),
    },
    errors: {
      404: `'${REFUND_MESSAGES.notFound}' (also another user's transaction)`,
      409: `Not covered by the guarantee: '${REFUND_MESSAGES.alreadyUsed}', '${REFUND_MESSAGES.notFirst}', '${REFUND_MESSAGES.notPaid}' or '${REFUND_MESSAGES.tooLate}'`,
      422: `Invalid fields; for a crypto payment '${REFUND_MESSAGES.addressRequired}' (under refund_address)`,
      502: `'${REFUND_MESSAGES.gatewayFailed}' (nothing changed on our side; a retry continues the same refund)`,
    },
    async handler({ ctx, auth, params, body }) {
      const outcome = await requestRefund(
        ctx.notices,
        { userId: auth.user.id, email: auth.user.email, transactionId: params.id, refundAddress: body.refund_address },
      );
      return { data: { status: outcome.status }, message: outcome.message };
    },
  }),

  route({
    method: "get",
    path: "/api/admin/refund-requests",
    operationId: "adminRefundRequests",
    tags: ["Billing"],
    summary: "Staff: open crypto refund requests",
    description:
      "Crypto refunds are sent by hand: this lists the requests still open, oldest first. Authorization: Bearer <ADMIN_API_TOKEN> (configuration), not a user's token. Without ADMIN_API_TOKEN configured the endpoint answers 404.",
    auth: false,
    admin: true,
    success: { description: "The open requests", data: z.strictObject({ refund_requests: z.array(RefundRequestSchema) }) },
    errors: {
      401: `'${REFUND_MESSAGES.adminUnauthorized}' (no or another bearer token)`,
      404: "ADMIN_API_TOKEN is not configured",
    },
    async handler({ ctx, req }) {
      requireAdmin(ctx.config.adminApiToken, req.get("authorization"));
      return { data: { refund_requests: await openRefundRequests(ctx.db) } };
    },
  }),

  route({
    method: "post",
    path: "/api/admin/refund-requests/{id}/done",
    operationId: "adminCompleteRefundRequest",
    tags: ["Billing"],
    summary: "Staff: a crypto refund was sent",
    description:
      "Marks the crypto refund request {id} (GET /api/admin/refund-requests) as sent: the payment becomes 'refunded', its credit note (CN-…, referring to its invoice, with the invoice's VAT share taken back) is issued, and the customer gets the refund email naming it. Again for the same request: the same answer, nothing more. Authorization: Bearer <ADMIN_API_TOKEN>.",
    auth: false,
    admin: true,
    params: z.object({ id: idField("refund request id") }),
    body: body({
      reference: z.string().trim().max(200).optional().meta({ description: "The transfer's reference (e.g. the blockchain transaction id), kept with the refund." }),
    }).meta({ id: "CompleteRefundRequestBody" }),
    success: { description: "The refund, done", data: z.strictObject({ refund: CompletedRefundSchema }) },
    errors: {
      401: `'${REFUND_MESSAGES.adminUnauthorized}' (no or another bearer token)`,
      404: `'${REFUND_MESSAGES.requestNotFound}' (no crypto refund request with this id), or ADMIN_API_TOKEN is not configured`,
    },
    async handler({ ctx, req, params, body: input }) {
      requireAdmin(ctx.config.adminApiToken, req.get("authorization"));
      return { data: { refund: await completeCryptoRefund(ctx.notices, params.id, input.reference || null) } };
    },
  }),
];
