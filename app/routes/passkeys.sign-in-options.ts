import type { LoaderFunctionArgs } from "@remix-run/node";
import { jsonAnswer, jsonError } from "~/features/passkeys/json.server";
import { createApiClient } from "~/utils/api.server";

// The options of a passkey sign-in (for /login's 'Sign in with a passkey' and the browser's autofill),
// as JSON for the browser script: { challengeId, options }. A GET (never cached): asking for a
// challenge changes nothing the person owns, and the sign-in page sends no form until it is used.

export async function loader({ request, context }: LoaderFunctionArgs) {
  const result = await createApiClient(request, context).post("/api/auth/passkey/options");
  if (!result.ok) return jsonError(result.status, result.message || "auth.passkey.unavailable");
  return jsonAnswer({ challengeId: result.data.challenge_id, options: result.data.options });
}
