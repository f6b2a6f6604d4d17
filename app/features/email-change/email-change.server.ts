import { redirect } from "@remix-run/node";
import { EmailChangeStartSchema, OtpSchema } from "~/schemas/index.server";
import { type ApiSchemas, type createApiClient, FIELD_REFUSED } from "~/utils/api.server";
import { codeStepState } from "~/utils/code-flow.server";
import { RESEND_SECONDS, readFlow, secondsLeft, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, formFailure, parseSubmission } from "~/utils/forms.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { translatorOf } from "~/i18n/i18n.server";
import { EMAIL_CARD, EMAIL_START_FORM, EMAIL_VERIFY_FORM } from "./forms";

// 'Change email' on the account home (issue 22, docs/decisions/036): a server-rendered state of the
// page (?dialog=change-email plus the flow cookie), a ModalDialog with JavaScript, like Change Password.

export const EMAIL_DIALOG_URL = "/?dialog=change-email";

// Catalogue keys: the toasts and the forms' alerts show them in the page's language.
const START_FAILED = "account.confirm.codeSendFailed";
const VERIFY_FAILED = "account.emailChange.failed";

type Api = ReturnType<typeof createApiClient>;
/** What the dialog reads of the signed-in account (the API's User, as /api/me and the account home answer it). */
type User = Pick<ApiSchemas["User"], "email" | "has_password">;

/** The dialog's state for the loader, or null when it is closed. */
export async function emailChangeDialogState(request: Request, user: User) {
  if (new URL(request.url).searchParams.get("dialog") !== "change-email") return null;
  const flow = await readFlow(request, "emailChange");
  if (!flow) return null;
  if (flow.step === "code") return { step: "code" as const, code: codeStepState(flow) };
  return {
    step: "start" as const,
    method: user.has_password ? ("password" as const) : ("code" as const),
    currentEmail: user.email,
    auth: flow.authSentAt ? { sentAt: flow.authSentAt, resendIn: secondsLeft(flow.authSentAt, RESEND_SECONDS) } : null,
  };
}

export type EmailChangeDialogState = NonNullable<Awaited<ReturnType<typeof emailChangeDialogState>>>;

/** The dialog's intents (all start with 'email-'); null for any other intent. */
export async function emailChangeAction(intent: string, args: { request: Request; formData: FormData; api: Api; user: User }) {
  const { request, formData, api, user } = args;
  const t = translatorOf(request);
  switch (intent) {
    case "email-open":
    case "email-auth-resend": {
      if (user.has_password) {
        return redirect(EMAIL_DIALOG_URL, { headers: { "Set-Cookie": await writeFlow(request, "emailChange", { step: "start" }) } });
      }
      // An account without a password proves itself with a code sent to its current address.
      const sent = await api.post("/api/account/email/send-auth-code");
      if (!sent.ok) {
        const message = sent.message || START_FAILED;
        return intent === "email-open"
          ? redirectWithFormError("/", message, EMAIL_CARD)
          : redirectWithFormError(EMAIL_DIALOG_URL, message, { form: EMAIL_START_FORM });
      }
      const cookie = await writeFlow(request, "emailChange", { step: "start", authSentAt: Date.now() });
      return redirectWithSuccess(EMAIL_DIALOG_URL, sent.message || t("account.codeSent", { email: user.email }), { headers: { "Set-Cookie": cookie } });
    }

    case "email-start": {
      // The account decides how the change is confirmed, whatever the hidden field says.
      const method = user.has_password ? "password" : "code";
      formData.set("method", method);
      const submission = parseSubmission(formData, EmailChangeStartSchema);
      if (submission.status !== "success") return formFailure(EMAIL_START_FORM, submission);
      const email = submission.value.email.toLowerCase();
      const body = method === "password" ? { email, password: submission.value.password } : { email, code: submission.value.code };
      const started = await api.post("/api/account/email/start", { body });
      if (!started.ok) {
        // A refused address, password or code goes next to its field; anything else (limits, mail) above the form.
        const fieldErrors: Record<string, string[]> = {};
        if (started.code && FIELD_REFUSED.has(started.code)) {
          for (const field of ["email", "password", "code"]) {
            const messages = started.fieldErrors[field];
            if (messages?.length) fieldErrors[field] = messages;
          }
        }
        if (Object.keys(fieldErrors).length > 0) return formFailure(EMAIL_START_FORM, submission, null, 422, { fieldErrors });
        return formFailure(EMAIL_START_FORM, submission, started.message || START_FAILED, started.status, { errorAt: "" });
      }
      const cookie = await writeFlow(request, "emailChange", { step: "code", email, sentAt: Date.now() });
      return redirectWithSuccess(EMAIL_DIALOG_URL, started.message || t("account.codeSent", { email }), { headers: { "Set-Cookie": cookie } });
    }

    case "email-resend": {
      const flow = await readFlow(request, "emailChange");
      if (flow?.step !== "code") return redirect(EMAIL_DIALOG_URL);
      const sent = await api.post("/api/account/email/resend");
      if (!sent.ok) {
        return formFailure(EMAIL_VERIFY_FORM, parseSubmission(formData, OtpSchema), sent.message || START_FAILED, sent.status, { errorAt: "" });
      }
      const cookie = await writeFlow(request, "emailChange", { ...flow, sentAt: Date.now() });
      return redirectWithSuccess(EMAIL_DIALOG_URL, "account.codeResent", { headers: { "Set-Cookie": cookie } });
    }

    case "email-verify": {
      const flow = await readFlow(request, "emailChange");
      if (flow?.step !== "code") return redirect(EMAIL_DIALOG_URL);
      const submission = parseSubmission(formData, OtpSchema);
      if (submission.status !== "success") return formFailure(EMAIL_VERIFY_FORM, submission);
      const verified = await api.post("/api/account/email/verify", { body: { code: submission.value.code } });
      if (!verified.ok) {
        return formFailure(EMAIL_VERIFY_FORM, submission, verified.message || VERIFY_FAILED, verified.status, {
          errorAt: codeErrorAt(verified, "code"),
        });
      }
      const cookie = await writeFlow(request, "emailChange", undefined);
      return redirectWithSuccess("/", verified.message || "account.emailChange.done", { headers: { "Set-Cookie": cookie } });
    }

    case "email-close":
      return redirect("/", { headers: { "Set-Cookie": await writeFlow(request, "emailChange", undefined) } });

    default:
      return null;
  }
}
