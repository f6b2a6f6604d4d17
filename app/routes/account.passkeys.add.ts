import type { ActionFunctionArgs } from "@remix-run/node";
import { jsonAnswer, jsonError, readJsonObject, restartAnswer } from "~/features/passkeys/json.server";
import { PASSKEY_CLIENT_MESSAGES } from "~/features/passkeys/passkey-client-messages";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { readFlow, writeFlow } from "~/utils/flow.server";

// Adds the passkey the browser just made: the script posts { challengeId, response } (JSON); the name
// is the one the confirmed 'Add a passkey' form gave (the flow cookie, issue 30). The answer is
// { message } or { error } (with `restart` when the confirmation has ended: the form comes back).

export const loader = () => jsonError(405, "Use POST.");

export async function action({ request, context }: ActionFunctionArgs) {
  const token = await requireToken(request);
  const body = await readJsonObject(request);
  if (!body) return jsonError(400, PASSKEY_CLIENT_MESSAGES.failed);
  const flow = await readFlow(request, "passkeyAdd");
  if (!flow) return restartAnswer(request, PASSKEY_CLIENT_MESSAGES.confirmAgain);
  const result = await createApiClient(request, context, token).post("/api/account/passkeys", {
    body: {
      challenge_id: typeof body.challengeId === "string" ? body.challengeId : "",
      name: flow.name,
      response: body.response as ApiSchemas["PasskeyRegistrationResponse"],
    },
  });
  if (!result.ok) {
    if (result.code === "confirmation_required") return restartAnswer(request, result.message || PASSKEY_CLIENT_MESSAGES.confirmAgain);
    const message = result.code === "validation_failed" && !result.fieldErrors.name?.length ? PASSKEY_CLIENT_MESSAGES.failed : result.message;
    return jsonError(result.status, message || PASSKEY_CLIENT_MESSAGES.failed);
  }
  // Added: the form is the next thing the page shows.
  return jsonAnswer({ message: result.message || "account.passkeys.added" }, { headers: { "Set-Cookie": await writeFlow(request, "passkeyAdd", undefined) } });
}
