import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireUser } from "~/utils/auth.server";
import { redirectWithFormError } from "~/utils/toast.server";

// 'Download my data' (issue 22, docs/decisions/036): the account home's plain link to this resource
// route, which passes on the API's copy of the account as a JSON attachment. Over its limit (5 an
// hour) or on any failure, back to the home page with the message in the 'Your data' card.

const DATA_CARD = { form: "home-data" };
const FAILED = "account.dataExport.failed";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { api } = await requireUser(request, context);
  const result = await api.get("/api/account/export");
  if (!result.ok) return redirectWithFormError("/", result.message || FAILED, DATA_CARD);
  const day = result.data.exported_at.slice(0, 10);
  return new Response(`${JSON.stringify(result.data, null, 2)}\n`, {
    status: 200,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="vpn-account-data-${day}.json"`,
      "Cache-Control": "private, no-store",
      // No X-Content-Type-Options here: server.ts's security headers send nosniff on every answer, and
      // the Remix adapter appends a route's headers to those, which would send it twice.
    },
  });
}
