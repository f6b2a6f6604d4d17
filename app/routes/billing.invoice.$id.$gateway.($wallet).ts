import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { billingDocumentOf, pdfDownload } from "~/features/billing-documents/pdf-download.server";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { redirectWithPageError } from "~/utils/toast.server";

// Invoice downloads of the billing page (commerce §7, issue 35). /billing/invoice/{id}/{gateway} passes
// on the API's PDF, our invoice for every gateway, as invoice_{id}.pdf (what the page links);
// /billing/invoice/{id}/{gateway}/{wallet} still resolves a card payment's hosted invoice url at the
// gateway and redirects to it. Failures go back to /billing with 'Failed to fetch invoice'.

/** A catalogue key: Billing shows it translated. */
const FAILED = "billing.invoice.failed";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const document = billingDocumentOf(params);
  if (!document) return redirectWithPageError("/billing", FAILED);
  const { id, gateway } = document;

  if (params.wallet) {
    if (!/^[a-z]{1,32}$/.test(params.wallet)) return redirectWithPageError("/billing", FAILED);
    const api = createApiClient(request, context, token);
    const result = await api.get("/api/invoice/{id}/{paymentGateway}/{walletPaymentType}", {
      params: { path: { id, paymentGateway: gateway, walletPaymentType: params.wallet } },
    });
    return result.ok ? redirect(result.data.url) : redirectWithPageError("/billing", result.message || FAILED);
  }

  // The PDF is not an envelope: the client's file download, on the same typed paths.
  const answer = await createApiClient(request, context, token).getFile("/api/invoice/{id}/{paymentGateway}", {
    params: { path: { id, paymentGateway: gateway } },
    accept: "application/pdf",
  });
  return pdfDownload(answer, `invoice_${id}.pdf`) ?? redirectWithPageError("/billing", FAILED);
}
