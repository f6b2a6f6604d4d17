import * as z from "zod/mini";
import { choiceField } from "./fields";

// 'Pay now' on the pay page (/billing/pay): which saved card pays the unpaid renewal.
// A catalogue key (app/locales/<language>/billing.json): the pay page shows it translated.
export const PAY_CARD_REQUIRED = "billing.pay.cardRequired";

export const PayOpenInvoiceSchema = z.object({ payment_method_id: choiceField, idempotency_key: choiceField }).check(
  z.superRefine((value, ctx) => {
    if (!value.payment_method_id || value.payment_method_id.length > 255) {
      ctx.addIssue({ code: "custom", message: PAY_CARD_REQUIRED, path: ["payment_method_id"] });
    }
  }),
);

export type PayOpenInvoiceFields = z.input<typeof PayOpenInvoiceSchema>;
