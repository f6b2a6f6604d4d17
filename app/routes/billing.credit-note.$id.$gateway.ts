import type { LoaderFunctionArgs } from "@remix-run/node";
import { billingDocumentOf, pdfDownload } from "~/features/billing-documents/pdf-download.server";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { redirectWithPageError } from "~/utils/toast.server";

// A refunded payment's credit note (issue 35): /billing/credit-note/{id}/{gateway} passes on the API's
// PDF as credit_note_{id}.pdf. Failures go back to /billing with 'Failed to fetch credit note'.

/** A catalogue key: Billing shows it translated. */
const FAILED = "billing.creditNote.failed";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const document = billingDocumentOf(params);
  if (!document) return redirectWithPageError("/billing", FAILED);
  const answer = await createApiClient(request, context, token).getFile("/api/credit-note/{id}/{paymentGateway}", {
    params: { path: { id: document.id, paymentGateway: document.gateway } },
    accept: "application/pdf",
  });
  return pdfDownload(answer, `credit_note_${document.id}.pdf`) ?? redirectWithPageError("/billing", FAILED);
}
