import type { LoaderFunctionArgs } from "@remix-run/node";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { redirectWithPageError } from "~/utils/toast.server";

// A refunded payment's credit note (issue 35): /billing/credit-note/{id}/{gateway} passes on the API's
// PDF as credit_note_{id}.pdf. Failures go back to /billing with 'Failed to fetch credit note'.

const FAILED = "Failed to fetch credit note";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const id = params.id && /^\d{1,15}$/.test(params.id) ? Number(params.id) : null;
  const gateway = params.gateway ?? "";
  if (!id || !/^[a-z]{1,32}$/.test(gateway)) return redirectWithPageError("/billing", FAILED);
  const answer = await createApiClient(request, context, token).getFile("/api/credit-note/{id}/{paymentGateway}", {
    params: { path: { id, paymentGateway: gateway } },
    accept: "application/pdf",
  });
  if (answer?.status !== 200 || !String(answer.headers["content-type"] ?? "").startsWith("application/pdf")) {
    return redirectWithPageError("/billing", FAILED);
  }
  return new Response(answer.body as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="credit_note_${id}.pdf"`,
      "Cache-Control": "private, no-store",
    },
  });
}
