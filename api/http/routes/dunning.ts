import { z } from "zod";
import { route } from "../contract/route";
import { DUNNING_MESSAGES, payOpenInvoice, paymentFailedOf } from "../../billing/dunning";
import { body, requiredText } from "../validation";
import { idempotencyKeyBadRequest, idempotencyKeyHeader, idempotencyKeyOf, optionalIdempotencyKeyField } from "../idempotency-key";
import { limitPaymentAttempts } from "./payments";

// Failed renewals (docs/decisions/027): what the 'Your last payment failed.' banner shows, and paying
// the open invoice from the pay page.

export const PaymentFailedSchema = z
  .strictObject({
    gateway: z.enum(["stripe", "paypal"]).meta({
      description: "stripe: an open invoice, paid on the pay page (pay_url) or Stripe's hosted page. paypal: PayPal retries the payment itself; the customer checks their PayPal funding at pay_url.",
    }),
    reason: z.string().meta({ description: "Why the last attempt failed (the bank's message), e.g. 'Your card was declined.'" }),
    amount: z.string().meta({ description: "What is due, e.g. '$9.99'.", examples: ["$9.99"] }),
    card: z.string().nullable().meta({ description: "The card charged, e.g. 'Visa ending in 0002'; null when it is no longer saved." }),
    invoice_id: z.string().meta({ description: "Stripe's open invoice (in_...); for PayPal our marker of the unpaid cycle (paypal:<subscription>:<date>)." }),
    grace_until: z.string().meta({ format: "date-time", description: "The plan stays active (Premium) until then; unpaid, it ends then." }),
    pay_url: z.string().meta({ format: "uri", description: "The portal's pay page; for PayPal, PayPal's automatic payments page." }),
    hosted_invoice_url: z.string().nullable().meta({ description: "Stripe's hosted invoice page: pays with a new card, 3-D Secure included." }),
    requires_action: z.boolean().meta({ description: "True when the bank asks the customer to authenticate the payment." }),
  })
  .meta({ id: "PaymentFailed" });

const payOpenInvoiceRequest = body({
  payment_method_id: requiredText("payment method id", { max: 255 }).meta({ description: "A saved card's payment_method_id (pm_...)." }),
  idempotency_key: optionalIdempotencyKeyField("The pay form's key: a double submit is one charge. Omitted (here and in the header): every post is a new attempt."),
}).meta({ id: "PayOpenInvoiceRequest" });

export const dunningRoutes = [
  route({
    method: "get",
    path: "/api/billing/past-due",
    operationId: "pastDue",
    tags: ["Billing"],
    summary: "The unpaid renewal, if any ('Your last payment failed.')",
    description:
      "While a card renewal is unpaid and its grace period lasts (the plan stays active): the reason, the amount, the card, the grace period's end and where to pay. Else payment_failed is null.",
    auth: true,
    success: {
      description: "The unpaid renewal or null",
      data: z.strictObject({ payment_failed: PaymentFailedSchema.nullable() }),
    },
    async handler({ ctx, auth }) {
      return { data: { payment_failed: await paymentFailedOf(ctx.dunning, auth.user.id) } };
    },
  }),

  route({
    method: "post",
    path: "/api/billing/pay-open-invoice",
    operationId: "payOpenInvoice",
    tags: ["Billing"],
    summary: "Pay the unpaid renewal with a saved card",
    description:
      "Pays the open invoice of the past-due subscription with a saved card. paid: the renewal is recorded from the subscription's original period, the plan is no longer past due, and this card pays the next renewals. requires_action: the bank asks for authentication; open hosted_invoice_url (Stripe's invoice page) to pay there. A refused card is a 402 with the bank's message (recorded as 'Payment failed').",
    auth: true,
    headers: idempotencyKeyHeader,
    body: payOpenInvoiceRequest,
    success: {
      description: `'${DUNNING_MESSAGES.paid}' or the page to authenticate on`,
      data: z.strictObject({
        status: z.enum(["paid", "requires_action"]),
        hosted_invoice_url: z.string().optional().meta({ description: "With requires_action: where the customer authenticates and pays." }),
      }),
    },
    errors: {
      400: idempotencyKeyBadRequest,
      402: "The card was refused: the bank's message, e.g. 'Your card was declined.'",
      404: `'${DUNNING_MESSAGES.noOpenInvoice}' or '${DUNNING_MESSAGES.cardNotFound}'`,
      429: "'Too many payment attempts. Please try again later.'",
    },
    async handler({ ctx, req, auth, body: input }) {
      const key = idempotencyKeyOf(req, input.idempotency_key, { required: false });
      await limitPaymentAttempts(ctx, auth.user.id);
      const outcome = await payOpenInvoice(ctx.dunning, auth.user.id, { paymentMethodId: input.payment_method_id, key });
      if (outcome.status === "requires_action") {
        return { data: outcome, message: "Please confirm the payment with your bank." };
      }
      return { data: outcome, message: DUNNING_MESSAGES.paid };
    },
  }),
];
