import type { AppLoadContext } from "@remix-run/node";
import { data } from "@remix-run/node";
import { z } from "zod";
import { REFUND_ADDRESS_PATTERN, REFUND_FORM } from "~/features/refunds/refund-form";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { parseSubmission } from "~/utils/forms.server";
import { redirectWithPageError, redirectWithSuccess } from "~/utils/toast.server";

// The refund step of the billing history: /billing?refund={id} shows what happens and the
// 'Refund my payment' form (a server-rendered dialog, so it works without JavaScript); this posts it
// to the API, which decides eligibility again (a forged post gets its refusal as a flash message).

export const refundSchema = z.object({
  intent: z.literal(REFUND_FORM.intent),
  transactionId: z.coerce.number({ error: REFUND_FORM.failed }).int().positive({ error: REFUND_FORM.failed }),
  // Crypto payments only; the API says when it is required.
  refund_address: z
    .string()
    .trim()
    .regex(new RegExp(`^${REFUND_ADDRESS_PATTERN}$`), { error: REFUND_FORM.addressInvalid })
    .optional(),
});

export type RefundActionData = { refundForm: number; errors: { refund_address?: string } };

export async function refundAction(args: { request: Request; context: AppLoadContext; formData: FormData }): Promise<Response | ReturnType<typeof data<RefundActionData>>> {
  const { request, context, formData } = args;
  const token = await requireToken(request);
  const submission = parseSubmission(formData, refundSchema);
  const transactionId = Number(formData.get("transactionId"));
  const dialog = Number.isSafeInteger(transactionId) && transactionId > 0 ? `/billing?refund=${transactionId}` : "/billing";
  if (submission.status !== "success") {
    const addressError = submission.error?.refund_address?.[0];
    if (addressError && dialog !== "/billing") {
      return data({ refundForm: transactionId, errors: { refund_address: addressError } } satisfies RefundActionData, { status: 400 });
    }
    return redirectWithPageError("/billing", REFUND_FORM.failed);
  }
  const { transactionId: id, refund_address } = submission.value;
  const api = createApiClient(request, context, token);
  const result = await api.post("/api/billing/transactions/{id}/refund", {
    params: { path: { id } },
    body: refund_address ? { refund_address } : {},
  });
  if (result.ok) return redirectWithSuccess("/billing", result.message || REFUND_FORM.refunded);
  const fieldError = result.fieldErrors.refund_address?.[0];
  if (result.code === "validation_failed" && fieldError) return data({ refundForm: id, errors: { refund_address: fieldError } } satisfies RefundActionData, { status: 400 });
  return redirectWithPageError("/billing", result.message || REFUND_FORM.failed);
}
