import { redirect } from "@remix-run/node";
import type * as z from "zod/mini";
import type { $ZodType } from "zod/v4/core";
import { EmailStepSchema, OtpSchema } from "~/schemas/index.server";
import type { ApiResult } from "./api.server";
import { CODE_TTL_SECONDS, type Flows, readFlow, RESEND_SECONDS, secondsLeft, writeFlow } from "./flow.server";
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

type CodeRequestFlow = "loginCode" | "reset" | "signup" | "cancel";

/** A page's email step: its form's schema and the flow state a sent code starts. */
type EmailStep<K extends CodeRequestFlow, Schema extends $ZodType<{ email: string }>> = {
  schema: Schema;
  start: (email: string, value: z.output<Schema>) => NonNullable<Flows[K]>;
};

const plainEmailStep: EmailStep<"loginCode" | "reset" | "cancel", typeof EmailStepSchema> = {
  schema: EmailStepSchema,
  start: (email) => ({ email, sentAt: Date.now() }),
};

/**
 * The steps every "email me a code" page shares (code sign-in, password reset, sign-up): start over,
 * send a code for an email, resend it. Returns the response for those intents, or null when the
 * intent is the page's own. The intents and form names default to restart, send (form 'send'),
 * resend (answered on form 'verify'); sign-up names its own.
 */
export async function handleCodeRequest<K extends CodeRequestFlow, Schema extends $ZodType<{ email: string }> = typeof EmailStepSchema>(
  intent: string,
  options: {
    request: Request;
    formData: FormData;
    flowKey: K;
    pagePath: string;
    send: (email: string) => Promise<ApiResult<null>>;
    /** Shown when the API refused to send without saying why (a catalogue key, as sentMessage). */
    failure: string;
    /** Shown when the code was sent and the API said nothing. */
    sentMessage: string;
    names?: { restart: string; send: string; resend: string; codeForm: string };
    /** The code form a failed resend answers for (its errors are the form's). */
    codeSchema?: $ZodType;
    emailStep?: EmailStep<K, Schema>;
  },
): Promise<Response | ReturnType<typeof formFailure> | null> {
  const { request, formData, flowKey, pagePath, send, failure, sentMessage, codeSchema = OtpSchema } = options;
  const names = options.names ?? { restart: "restart", send: "send", resend: "resend", codeForm: "verify" };
  const emailStep = (options.emailStep ?? plainEmailStep) as unknown as EmailStep<K, Schema>;
  if (intent === names.restart) {
    return redirect(pagePath, { headers: { "Set-Cookie": await writeFlow(request, flowKey, undefined) } });
  }
  if (intent === names.send) {
    const submission = parseSubmission(formData, emailStep.schema);
    if (submission.status !== "success") return formFailure(names.send, submission);
    const value: z.output<Schema> = submission.value;
    const email = value.email.toLowerCase();
    const sent = await send(email);
    if (!sent.ok) return formFailure(names.send, submission, sent.message || failure, sent.status, { errorAt: "" });
    const cookie = await writeFlow(request, flowKey, emailStep.start(email, value));
    return redirectWithSuccess(pagePath, sent.message || sentMessage, { headers: { "Set-Cookie": cookie } });
  }
  if (intent === names.resend) {
    const flow = await readFlow(request, flowKey);
    if (!flow) return redirect(pagePath);
    const sent = await send(flow.email);
    if (!sent.ok) return formFailure(names.codeForm, parseSubmission(formData, codeSchema), sent.message || failure, sent.status, { errorAt: "" });
    // A new code starts the code step again: what the old one earned (a sign-up's verified code, a
    // reset token) is dropped; the rest of the flow (a sign-up's agreements) is kept.
    const resent = { ...flow, code: undefined, resetToken: undefined, proof: undefined, done: undefined, sentAt: Date.now() };
    const cookie = await writeFlow(request, flowKey, resent as Flows[K]);
    return redirectWithSuccess(pagePath, "auth.code.resent", { headers: { "Set-Cookie": cookie } });
  }
  return null;
}
