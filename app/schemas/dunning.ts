import * as z from "zod/mini";
import { choiceField } from "./fields";

// 'Pay now' on the pay page (/billing/pay): which saved card pays the unpaid renewal.
export const PAY_CARD_REQUIRED = "Please choose a card.";

export const PayOpenInvoiceSchema = z.object({
  payment_method_id: z.pipe(choiceField, z.string().check(z.minLength(1, PAY_CARD_REQUIRED), z.maxLength(255))),
  idempotency_key: choiceField,
});

export type PayOpenInvoiceFields = z.input<typeof PayOpenInvoiceSchema>;
