import type { ActionFunctionArgs } from "@remix-run/node";
import { jsonAnswer, jsonError } from "~/features/passkeys/json.server";
import { createApiClient } from "~/utils/api.server";

// The options of a passkey sign-in (for /login's 'Sign in with a passkey' and the browser's autofill),
// as JSON for the browser script: { challengeId, options }.

export const loader = () => jsonError(405, "Use POST.");

export async function action({ request, context }: ActionFunctionArgs) {
  const result = await createApiClient(request, context).post("/api/auth/passkey/options");
  if (!result.ok) return jsonError(result.status, result.message || "Passkeys are unavailable right now.");
  return jsonAnswer({ challengeId: result.data.challenge_id, options: result.data.options });
}
