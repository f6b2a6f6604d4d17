import type { ActionFunctionArgs } from "@remix-run/node";
import { jsonAnswer, jsonError, readJsonObject } from "~/features/passkeys/json.server";
import { PASSKEY_CLIENT_MESSAGES } from "~/features/passkeys/passkey-client-messages";
import { type ApiSchemas, createApiClient } from "~/utils/api.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession } from "~/utils/session.server";
import { languageOnSignIn } from "~/i18n/account-language.server";

// Finishes a passkey sign-in: the browser script posts { challengeId, response, oldurl } (JSON); the
// API verifies it and answers a token, kept in the session cookie like every other sign-in. A passkey
// is two factors, so there is no two-factor step. The answer is { redirectTo } (oldurl when it is a
// safe same-origin path, else home) or { error }.

export const loader = () => jsonError(405, "Use POST.");

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readJsonObject(request);
  if (!body) return jsonError(400, PASSKEY_CLIENT_MESSAGES.failed);
  const result = await createApiClient(request, context).post("/api/auth/passkey/login", {
    body: {
      challenge_id: typeof body.challengeId === "string" ? body.challengeId : "",
      response: body.response as ApiSchemas["PasskeyAuthenticationResponse"],
    },
  });
  if (!result.ok) {
    const message = result.code === "validation_failed" ? PASSKEY_CLIENT_MESSAGES.failed : result.message;
    return jsonError(result.status, message || PASSKEY_CLIENT_MESSAGES.failed);
  }
  const oldurl = typeof body.oldurl === "string" ? body.oldurl : null;
  const headers = new Headers();
  headers.append("Set-Cookie", await commitTokenSession(request, result.data.token));
  // The account's language comes with it (or the account takes the page's): issue 36.
  const languageSet = await languageOnSignIn(request, context, result.data.token, result.data.user);
  if (languageSet) headers.append("Set-Cookie", languageSet);
  appendDeviceCookie(headers, request);
  return jsonAnswer({ redirectTo: safeRedirect(oldurl) }, { headers });
}
