import { redirect } from "@remix-run/node";
import { EmailStepSchema, OtpSchema } from "~/schemas/index.server";
import type { ApiResult } from "./api.server";
import { CODE_TTL_SECONDS, readFlow, RESEND_SECONDS, secondsLeft, writeFlow } from "./flow.server";
import { formFailure, parseSubmission } from "./forms.server";
import { redirectWithSuccess } from "./toast.server";

/** The countdowns of a code step, from when the code was sent (the API enforces the same rules). */
export function codeStepState(flow: { email: string; sentAt: number }) {
  return {
    email: flow.email,
    sentAt: flow.sentAt,
    resendIn: secondsLeft(flow.sentAt, RESEND_SECONDS),
    expiresIn: secondsLeft(flow.sentAt, CODE_TTL_SECONDS),
  };
}

type CodeRequestFlow = "loginCode" | "reset";

/**
 * The steps every "email me a code" page shares: start over, send a code for an email, resend it.
 * Returns the response for those intents, or null when the intent is the page's own.
 */
export async function handleCodeRequest(
  intent: string,
  options: {
    request: Request;
    formData: FormData;
    flowKey: CodeRequestFlow;
    pagePath: string;
    send: (email: string) => Promise<ApiResult<null>>;
    failure: string;
    sentMessage: string;
  },
): Promise<Response | ReturnType<typeof formFailure> | null> {
  const { request, formData, flowKey, pagePath, send, failure, sentMessage } = options;
  if (intent === "restart") {
    return redirect(pagePath, { headers: { "Set-Cookie": await writeFlow(request, flowKey, undefined) } });
  }
  if (intent === "send") {
    const submission = parseSubmission(formData, EmailStepSchema);
    if (submission.status !== "success") return formFailure("send", submission);
    const email = submission.value.email!.trim().toLowerCase();
    const sent = await send(email);
    if (!sent.ok) return formFailure("send", submission, sent.message || failure, sent.status);
    const cookie = await writeFlow(request, flowKey, { email, sentAt: Date.now() });
    return redirectWithSuccess(pagePath, sent.message || sentMessage, { headers: { "Set-Cookie": cookie } });
  }
  if (intent === "resend") {
    const flow = await readFlow(request, flowKey);
    if (!flow) return redirect(pagePath);
    const sent = await send(flow.email);
    if (!sent.ok) return formFailure("verify", parseSubmission(formData, OtpSchema), sent.message || failure, sent.status);
    const cookie = await writeFlow(request, flowKey, { email: flow.email, sentAt: Date.now() });
    return redirectWithSuccess(pagePath, "Verification code resent to your email!", { headers: { "Set-Cookie": cookie } });
  }
  return null;
}
