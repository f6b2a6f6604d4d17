import type { ActionFunctionArgs } from "@remix-run/node";
import { jsonAnswer, jsonError, restartAnswer } from "~/features/passkeys/json.server";
import { PASSKEY_CLIENT_MESSAGES } from "~/features/passkeys/passkey-client-messages";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";

// The options to create a passkey for the signed-in account, as JSON for the security page's script.
// The API gives them only to a session that confirmed who is there in the last 5 minutes (issue 30).

export const loader = () => jsonError(405, "Use POST.");

export async function action({ request, context }: ActionFunctionArgs) {
  const token = await requireToken(request);
  const result = await createApiClient(request, context, token).post("/api/account/passkeys/options");
  if (!result.ok && result.code === "confirmation_required") return restartAnswer(request, result.message || PASSKEY_CLIENT_MESSAGES.confirmAgain);
  if (!result.ok) return jsonError(result.status, result.message || "account.passkeys.unavailable", "name");
  return jsonAnswer({ challengeId: result.data.challenge_id, options: result.data.options });
}
