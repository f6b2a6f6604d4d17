import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import createClient from "openapi-fetch";
import { apiRequestHeaders, createApiClient } from "~/utils/api.server";
import type { paths } from "~/utils/api-types.generated";
import { requireToken } from "~/utils/auth.server";
import { getEnv } from "~/utils/env.server";
import { redirectWithError } from "~/utils/toast.server";

// Invoice downloads of the billing page (commerce §7). /billing/invoice/{id}/bitpay streams the API's
// PDF as invoice_{id}.pdf; /billing/invoice/{id}/{gateway}/{wallet} resolves the hosted invoice's url
// on the server and redirects to it (the page opens it in a new tab). Failures go back to /billing
// with 'Failed to fetch invoice'.

const FAILED = "Failed to fetch invoice";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const token = await requireToken(request);
  const id = params.id && /^\d{1,15}$/.test(params.id) ? Number(params.id) : null;
  const gateway = params.gateway ?? "";
  if (!id || !/^[a-z]{1,32}$/.test(gateway)) return redirectWithError("/billing", FAILED);

  if (params.wallet) {
    if (!/^[a-z]{1,32}$/.test(params.wallet)) return redirectWithError("/billing", FAILED);
    const api = createApiClient(request, context, token);
    const result = await api.get("/api/invoice/{id}/{paymentGateway}/{walletPaymentType}", {
      params: { path: { id, paymentGateway: gateway, walletPaymentType: params.wallet } },
    });
    return result.ok ? redirect(result.data.url) : redirectWithError("/billing", result.message || FAILED);
  }

  // The PDF is not an envelope, so it bypasses the envelope client, but still on the typed paths.
  const env = getEnv();
  const headers = { ...apiRequestHeaders(request, context, token), Accept: "application/pdf" };
  const client = createClient<paths>({
    baseUrl: env.apiBaseUrl,
    headers,
    fetch: (input) => fetch(input, { signal: AbortSignal.timeout(env.API_TIMEOUT_MS) }),
  });
  let response: Response;
  try {
    ({ response } = await client.GET("/api/invoice/{id}/{paymentGateway}", {
      params: { path: { id, paymentGateway: gateway } },
      parseAs: "stream",
    }));
  } catch {
    return redirectWithError("/billing", FAILED);
  }
  if (response.status !== 200 || !response.body || !response.headers.get("Content-Type")?.startsWith("application/pdf")) {
    await response.body?.cancel().catch(() => undefined);
    return redirectWithError("/billing", FAILED);
  }
  return new Response(response.body, {
    status: 200,
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="invoice_${id}.pdf"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
