import { redirect } from "@remix-run/node";
import { passkeyListItem } from "~/features/passkeys/passkey-list.server";
import { PASSKEY_CONFIRMATION_SECONDS, PASSKEY_CONFIRM_FORM } from "~/features/passkeys/passkey-messages";
import { PasskeyConfirmSchema } from "~/schemas/index.server";
import { type createApiClient, FIELD_REFUSED, serviceUnavailable } from "~/utils/api.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { formFailure, parseSubmission } from "~/utils/forms.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import type { PasskeyListItem } from "~/features/passkeys/passkey-list";

// The security page's passkeys, server side: the list, and 'Add a passkey' (issue 30). Adding one asks
// again who is there, in a plain form the server checks: the 'Current password' (an account without
// one: a 'Verification code' emailed by 'Send code') and the 'Authentication code' when two-factor is
// on. The API then lets this session add one passkey for 5 minutes; the page keeps the name (flow
// cookie) and shows 'Create passkey', the browser's prompt (JavaScript).

const PAGE = "/account/security";
/** The page stops offering 'Create passkey' a little before the API's confirmation ends. */
const CREATE_WINDOW_MS = (PASSKEY_CONFIRMATION_SECONDS - 10) * 1000;

type Api = ReturnType<typeof createApiClient>;
type User = { email: string; has_password: boolean };

/** The account's passkeys, newest first, as the list shows them. */
export async function loadPasskeys(api: Api): Promise<PasskeyListItem[]> {
  const result = await api.get("/api/account/passkeys");
  if (!result.ok) throw serviceUnavailable();
  return result.data.map(passkeyListItem);
}

/** Where 'Add a passkey' is: confirming who is there, or (confirmed) the browser's prompt. */
export async function passkeyAddState(request: Request, api: Api, user: User) {
  const flow = await readFlow(request, "passkeyAdd");
  if (flow && Date.now() - flow.confirmedAt < CREATE_WINDOW_MS) {
    return { step: "create" as const, name: flow.name };
  }
  const status = await api.get("/api/account/two-factor");
  if (!status.ok) throw serviceUnavailable();
  return {
    step: "confirm" as const,
    method: user.has_password ? ("password" as const) : ("code" as const),
    twoFactor: status.data.enabled,
    email: user.email,
  };
}

export type PasskeyAddState = Awaited<ReturnType<typeof passkeyAddState>>;

/** The passkey intents of the security page (all start with 'passkey-'); null for any other intent. */
export async function passkeyAction(intent: string, args: { request: Request; formData: FormData; api: Api; user: User }) {
  const { request, formData, api, user } = args;
  switch (intent) {
    case "passkey-send-code": {
      const sent = await api.post("/api/account/passkeys/send-code");
      return sent.ok
        ? redirectWithSuccess(PAGE, sent.message || "account.confirm.codeEmailed")
        : redirectWithFormError(PAGE, sent.message || "account.confirm.codeSendFailed", { form: PASSKEY_CONFIRM_FORM });
    }

    case "passkey-confirm": {
      // The account decides how it confirms, whatever the hidden fields say.
      const status = await api.get("/api/account/two-factor");
      if (!status.ok) throw serviceUnavailable();
      formData.set("method", user.has_password ? "password" : "code");
      formData.set("two_factor", status.data.enabled ? "1" : "");
      const submission = parseSubmission(formData, PasskeyConfirmSchema);
      if (submission.status !== "success") return formFailure(PASSKEY_CONFIRM_FORM, submission);
      const { name, password, verification_code, code } = submission.value;
      const body = {
        ...(user.has_password ? { password } : { verification_code }),
        ...(status.data.enabled ? { code: code.replace(/\s/g, "") } : {}),
      };
      const confirmed = await api.post("/api/account/passkeys/confirm", { body });
      if (!confirmed.ok) {
        // A refused password or code goes next to its field; anything else (limits, the API down) above the form.
        const fieldErrors: Record<string, string[]> = {};
        if (confirmed.code && FIELD_REFUSED.has(confirmed.code)) {
          for (const field of ["password", "verification_code", "code"]) {
            const messages = confirmed.fieldErrors[field];
            if (messages?.length) fieldErrors[field] = messages;
          }
        }
        if (Object.keys(fieldErrors).length > 0) return formFailure(PASSKEY_CONFIRM_FORM, submission, null, 422, { fieldErrors });
        return formFailure(PASSKEY_CONFIRM_FORM, submission, confirmed.message || "account.somethingWentWrong", confirmed.status, {
          errorAt: "",
        });
      }
      const cookie = await writeFlow(request, "passkeyAdd", { name, confirmedAt: Date.now() });
      return redirectWithSuccess(PAGE, "account.passkeys.confirmed", { headers: { "Set-Cookie": cookie } });
    }

    case "passkey-cancel":
      return redirect(PAGE, { headers: { "Set-Cookie": await writeFlow(request, "passkeyAdd", undefined) } });

    default:
      return null;
  }
}
