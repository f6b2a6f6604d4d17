import { redirect } from "@remix-run/node";
import type { AppLoadContext } from "@remix-run/node";
import { createApiClient } from "~/utils/api.server";
import { codeStepState } from "~/utils/code-flow.server";
import { languageOf, translatorFor } from "~/i18n/i18n.server";
import type { Language } from "~/i18n/languages";
import { formattersFor } from "~/i18n/use-formatters";
import { type CancelFlow, readFlow, writeFlow } from "~/utils/flow.server";
import { redirectWithFormError } from "~/utils/toast.server";

// The steps of /cancel (docs/decisions/038), read from the flow cookie; the subscription step asks the
// API with the proof, so a proof that expired (15 minutes) or was used sends the visitor back to the start.

export const CANCEL_PATH = "/cancel";
/** Catalogue keys: the page's alert and the error page show them translated. */
export const PROOF_EXPIRED = "billing.cancel.proofExpired";
const UNREACHABLE = "billing.cancel.unreachable";

/** 'March 5, 2027 at 14:05 UTC' in the portal's words: '05 March, 2027 at 14:05 UTC' (in `language`). */
export function formatDateTimeUtc(value: string, language: Language): string {
  const date = formattersFor(language).longDate(value);
  return translatorFor(language)("billing.cancel.dateTimeUtc", { date, time: new Date(value).toISOString().slice(11, 16) });
}

/** Back to the email step with the message in its form (the flow is forgotten). */
export async function restartWithError(request: Request, message: string): Promise<Response> {
  const headers = new Headers({ "Set-Cookie": await writeFlow(request, "cancel", undefined) });
  return redirectWithFormError(CANCEL_PATH, message, { form: "send" }, { headers });
}

export type CancelStep =
  | { step: "email" }
  | { step: "code"; code: ReturnType<typeof codeStepState> }
  | {
      step: "subscription";
      email: string;
      subscription: {
        title: string;
        renewsOn: string | null;
        endsOn: string | null;
        canTurnOff: boolean;
        note: string | null;
      } | null;
    }
  | { step: "done"; email: string; title: string; endsOn: string; turnedOffAt: string };

export async function loadCancelStep(request: Request, context: AppLoadContext): Promise<CancelStep> {
  const flow: CancelFlow | undefined = await readFlow(request, "cancel");
  if (!flow) return { step: "email" };
  const language = languageOf(request);
  const { longDate } = formattersFor(language);
  if (flow.done) {
    return {
      step: "done",
      email: flow.email,
      title: flow.done.title,
      endsOn: longDate(flow.done.endsOn),
      turnedOffAt: formatDateTimeUtc(flow.done.turnedOffAt, language),
    };
  }
  if (!flow.proof) return { step: "code", code: codeStepState(flow) };

  const api = createApiClient(request, context);
  const shown = await api.post("/api/anonymous/cancel/subscription", { body: { proof: flow.proof } });
  if (!shown.ok) {
    if (shown.code === "link_invalid") throw await restartWithError(request, shown.message || PROOF_EXPIRED);
    throw new Response(shown.message || UNREACHABLE, { status: shown.status >= 500 ? 503 : shown.status });
  }
  const s = shown.data.subscription;
  return {
    step: "subscription",
    email: shown.data.email,
    subscription: s
      ? {
          title: s.title,
          renewsOn: s.renews_on ? longDate(s.renews_on) : null,
          endsOn: s.ends_on ? longDate(s.ends_on) : null,
          canTurnOff: s.can_turn_off,
          note: s.note,
        }
      : null,
  };
}

/** The flow's proof, or the start again. */
export async function requireProof(request: Request): Promise<{ flow: CancelFlow; proof: string }> {
  const flow = await readFlow(request, "cancel");
  if (!flow?.proof) throw redirect(CANCEL_PATH);
  return { flow, proof: flow.proof };
}
