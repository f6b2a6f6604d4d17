import type { ActionFunctionArgs } from "@remix-run/node";
import { jsonAnswer, jsonError, readJsonObject } from "~/features/passkeys/json.server";
import { PASSKEY_CLIENT_MESSAGES } from "~/features/passkeys/passkey-messages";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";

// Adds the passkey the browser just made: the script posts { challengeId, name, response } (JSON).
// The answer is { message } or { error, field? } (a name error belongs next to 'Passkey name').

export const loader = () => jsonError(405, "Use POST.");

export async function action({ request, context }: ActionFunctionArgs) {
  const token = await requireToken(request);
  const body = await readJsonObject(request);
  if (!body) return jsonError(400, PASSKEY_CLIENT_MESSAGES.failed);
  const result = await createApiClient(request, context, token).post("/api/account/passkeys", {
    body: {
      challenge_id: typeof body.challengeId === "string" ? body.challengeId : "",
      name: typeof body.name === "string" ? body.name : "",
      response: body.response as ApiSchemas["PasskeyRegistrationResponse"],
    },
  });
  if (!result.ok) {
    const nameError = result.fieldErrors.name?.[0];
    if (nameError) return jsonError(result.status, nameError, "name");
    const message = result.code === "validation_failed" ? PASSKEY_CLIENT_MESSAGES.failed : result.message;
    return jsonError(result.status, message || PASSKEY_CLIENT_MESSAGES.failed);
  }
  return jsonAnswer({ message: result.message || "Passkey added." });
}
