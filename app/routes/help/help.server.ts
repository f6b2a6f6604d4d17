import { type AppLoadContext, data } from "@remix-run/node";
import type { TFunction } from "i18next";
import { portalConfig } from "~/config.server";
import { translatorOf } from "~/i18n/i18n.server";
import { SupportMessageSchema } from "~/schemas/index.server";
import { createApiClient, FIELD_REFUSED } from "~/utils/api.server";
import { ANDROID_APP_URL, IOS_APP_URL } from "~/utils/app-stores";
import { formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { CONTACT_FORM_ID, PRIVATE_CACHE, PUBLIC_CACHE, SENT_MESSAGE, SENT_WITHOUT_COPY } from "./contact";

// /help's loader and action: the apps' downloads, the contact form's prefill (the signed-in account's
// email; a refund request's message from /help?topic=refund&invoice=…) and sending it through the API.

const HELP_PATH = "/help";
/** A catalogue key: the page's alert and toast translate it. */
const SEND_FAILED = "pages.help.contact.sendFailed";

/** Our crypto invoice ids are uuids; anything else in the link is dropped rather than put in the message. */
const INVOICE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type HelpTopic = "question" | "refund";

/** What a link to /help may fill in: ?topic=refund (with &invoice=<id> from an underpaid crypto payment), in the page's language (`t`). */
export function prefillFor(url: URL, t: TFunction): { topic: HelpTopic; message: string } {
  if (url.searchParams.get("topic") !== "refund") return { topic: "question", message: "" };
  const invoice = url.searchParams.get("invoice") ?? "";
  const message = INVOICE_ID.test(invoice)
    ? t("pages.help.contact.prefill.cryptoRefund", { invoice: invoice.toLowerCase() })
    : t("pages.help.contact.prefill.refund");
  return { topic: "refund", message };
}

export async function loadHelp(request: Request, context: AppLoadContext) {
  const url = new URL(request.url);
  const token = await getSessionToken(request);
  const api = createApiClient(request, context, token);
  const [downloads, me] = await Promise.all([api.get("/api/download-links"), token ? api.get("/api/me") : Promise.resolve(null)]);
  const desktop = downloads.ok ? downloads.data : null;
  return data(
    {
      signedIn: Boolean(token),
      formOn: portalConfig().supportForm,
      sent: url.searchParams.get("sent") === "1" ? (url.searchParams.get("copy") === "1" ? "copied" : "sent") : null,
      prefill: { email: me?.ok ? me.data.email : "", ...prefillFor(url, translatorOf(request)) },
      // `name`: a catalogue key (the page translates it).
      downloads: [
        { name: "pages.help.apps.download.ios", href: IOS_APP_URL },
        { name: "pages.help.apps.download.android", href: ANDROID_APP_URL },
        { name: "pages.help.apps.download.windows", href: desktop?.windows ?? null },
        { name: "pages.help.apps.download.mac", href: desktop?.mac ?? null },
      ],
    },
    // Anonymous: the same page for everyone (a CDN may keep it a little); signed in, the account's email is in it.
    { headers: { "Cache-Control": token ? PRIVATE_CACHE : PUBLIC_CACHE, Vary: "Cookie" } },
  );
}

type Submission = ReturnType<typeof parseSubmission<typeof SupportMessageSchema>>;

/** The form again with its errors: per field where the API says which, else above the form. */
function failure(submission: Submission, serverError: string | null = null, status = 400, fieldErrors?: Record<string, string[]>) {
  return formFailure(CONTACT_FORM_ID, submission, serverError, status, {
    fieldErrors,
    headers: { "Cache-Control": PRIVATE_CACHE },
  });
}

export async function sendHelpMessage(request: Request, context: AppLoadContext) {
  const formData = await readFormData(request);
  const submission = parseSubmission(formData, SupportMessageSchema);
  if (submission.status !== "success") return failure(submission);
  // The account's token goes along, so that support sees which account wrote (the reply goes to the email typed).
  const api = createApiClient(request, context, await getSessionToken(request));
  const { email, message, topic } = submission.value;
  const sent = await api.post("/api/support/messages", {
    body: { email: email.toLowerCase(), message, topic: topic === "refund" ? "refund" : "question" },
  });
  // The API sends a copy only to the signed-in account's own address; the page says which happened.
  if (sent.ok) {
    const copied = sent.data.copied === true;
    return redirectWithSuccess(`${HELP_PATH}?sent=1${copied ? "&copy=1" : ""}`, sent.message || (copied ? SENT_MESSAGE : SENT_WITHOUT_COPY));
  }
  const fields = Object.fromEntries(Object.entries(sent.fieldErrors).filter(([name]) => name === "email" || name === "message"));
  if (sent.code && FIELD_REFUSED.has(sent.code) && Object.keys(fields).length > 0) return failure(submission, null, 422, fields);
  // Off (404), too many (429), the mail server down (502) or the API away: said above the form, which keeps what was typed.
  return failure(submission, sent.message || SEND_FAILED, sent.status);
}
