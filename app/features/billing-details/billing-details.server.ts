import type { AppLoadContext } from "@remix-run/node";
import { BillingDetailsSchema } from "~/schemas/index.server";
import { createApiClient, FIELD_REFUSED } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { formFailure, parseSubmission } from "~/utils/forms.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { BILLING_DETAILS_FORM, BILLING_DETAILS_HREF, BILLING_DETAILS_TEXT, checkoutReturnOf } from "./messages";

// Billing's 'Billing details' tab (issue 35): the account's billing details and the countries from
// GET /api/account/billing-details, saved with PUT. Invoices copy them when they are made.

export type BillingDetailsState = {
  countries: { code: string; name: string; eu: boolean }[];
  saved: { country: string; name: string; address: string; vat_number: string; vat_number_status: string | null } | null;
  failed: boolean;
  /** Opened from a checkout: saving goes back there (the quotes then follow the new details). */
  returnTo: string | null;
};

export async function billingDetailsState(request: Request, context: AppLoadContext): Promise<BillingDetailsState> {
  const token = await requireToken(request);
  const returnTo = checkoutReturnOf(new URL(request.url).searchParams.get("return_to"));
  const answer = await createApiClient(request, context, token).get("/api/account/billing-details");
  if (!answer.ok) return { countries: [], saved: null, failed: true, returnTo };
  const details = answer.data.billing_details;
  return {
    countries: answer.data.countries,
    saved: details
      ? {
          country: details.country,
          name: details.name,
          address: details.address ?? "",
          vat_number: details.vat_number ?? "",
          vat_number_status: details.vat_number_status,
        }
      : null,
    failed: false,
    returnTo,
  };
}

type Submission = ReturnType<typeof parseSubmission<typeof BillingDetailsSchema>>;

function failure(submission: Submission, serverError: string | null = null, status = 400, fieldErrors?: Record<string, string[]>) {
  // Nothing here is a secret: every field comes back as typed.
  return formFailure(BILLING_DETAILS_FORM, submission, serverError, status, { fieldErrors, hideFields: [], errorAt: serverError ? "" : undefined });
}

const FIELDS = new Set(["country", "name", "address", "vat_number"]);

export async function billingDetailsAction(intent: string, args: { request: Request; context: AppLoadContext; formData: FormData }) {
  if (intent !== "save-billing-details") return null;
  const { request, context, formData } = args;
  const token = await requireToken(request);
  const submission = parseSubmission(formData, BillingDetailsSchema);
  if (submission.status !== "success") return failure(submission);
  const { country, name, address, vat_number } = submission.value;
  const saved = await createApiClient(request, context, token).put("/api/account/billing-details", {
    body: { country: country.toUpperCase(), name, address: address || null, vat_number: vat_number || null },
  });
  if (saved.ok) return redirectWithSuccess(checkoutReturnOf(formData.get("return_to")) ?? BILLING_DETAILS_HREF, saved.message || BILLING_DETAILS_TEXT.saved);
  const fields = Object.fromEntries(Object.entries(saved.fieldErrors).filter(([field]) => FIELDS.has(field)));
  if (saved.code && FIELD_REFUSED.has(saved.code) && Object.keys(fields).length > 0) return failure(submission, null, 422, fields);
  return failure(submission, saved.message || BILLING_DETAILS_TEXT.saveFailed, saved.status);
}
