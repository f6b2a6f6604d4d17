import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { createApiClient } from "~/utils/api.server";
import { requireToken } from "~/utils/auth.server";
import { readFormData } from "~/utils/forms.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { PASSKEYS_FORM } from "~/features/passkeys/passkey-messages";

// 'Remove' on the security page's passkey list: a plain form post (it works without JavaScript) that
// goes back to the security page with the outcome.

const SECURITY_PAGE = "/account/security";

export const loader = () => redirect(SECURITY_PAGE);

export async function action({ request, context }: ActionFunctionArgs) {
  const token = await requireToken(request);
  const formData = await readFormData(request);
  const id = String(formData.get("passkey_id") ?? "");
  if (!/^\d{1,15}$/.test(id)) return redirectWithFormError(SECURITY_PAGE, "account.passkeys.notFound", { form: PASSKEYS_FORM });
  const result = await createApiClient(request, context, token).delete("/api/account/passkeys/{id}", { params: { path: { id } } });
  if (!result.ok) return redirectWithFormError(SECURITY_PAGE, result.message || "account.passkeys.removeFailed", { form: PASSKEYS_FORM });
  return redirectWithSuccess(SECURITY_PAGE, result.message || "account.passkeys.removed");
}
