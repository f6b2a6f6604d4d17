import type { AppLoadContext } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { SignupCodeSchema, SignupEmailSchema, SignupPasswordSchema } from "~/schemas/index.server";
import { CODE_REFUSED, createApiClient } from "~/utils/api.server";
import { handleCodeRequest } from "~/utils/code-flow.server";
import { readFlow, RESEND_SECONDS, secondsLeft, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, formFailure, parseSubmission } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession } from "~/utils/session.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { languageOnSignIn } from "~/i18n/account-language.server";
import { languageOf } from "~/i18n/i18n.server";

// The three sign-up steps of identity §2/§4, kept in the __flow cookie between requests.

export type SignupStep =
  | { step: "email" }
  | { step: "code"; email: string; secondsLeft: number; sentAt: number }
  | { step: "password"; email: string };

export async function signupState(request: Request): Promise<SignupStep> {
  const flow = await readFlow(request, "signup");
  if (!flow) return { step: "email" };
  if (flow.code) return { step: "password", email: flow.email };
  return { step: "code", email: flow.email, sentAt: flow.sentAt, secondsLeft: secondsLeft(flow.sentAt, RESEND_SECONDS) };
}

export function signupUrl(oldurl: string) {
  return `/login?tab=signup${oldurl ? `&oldurl=${encodeURIComponent(oldurl)}` : ""}`;
}

type Args = { request: Request; context: AppLoadContext; formData: FormData; oldurl: string };

export async function signupAction(intent: string, { request, context, formData, oldurl }: Args) {
  const api = createApiClient(request, context);
  const here = signupUrl(oldurl);

  const handled = await handleCodeRequest(intent, {
    request,
    formData,
    flowKey: "signup",
    pagePath: here,
    send: (email) => api.post("/api/user/temp-signup", { body: { email, isCheckout: false } }),
    failure: "auth.signUp.sendFailed",
    sentMessage: "auth.signUp.codeSentToast",
    names: { restart: "signup-restart", send: "signup-email", resend: "resend", codeForm: "signup-code" },
    codeSchema: SignupCodeSchema,
    emailStep: {
      schema: SignupEmailSchema,
      start: (email, value) => ({ email, agreeTerms: true, agreeMarketing: Boolean(value.agree_margeting), sentAt: Date.now() }),
    },
  });
  if (handled) return handled;

  const flow = await readFlow(request, "signup");
  // A step posted without its earlier steps (expired cookie, another tab finished): start over.
  if (!flow) return redirect(here);

  if (intent === "signup-code") {
    const submission = parseSubmission(formData, SignupCodeSchema);
    if (submission.status !== "success") return formFailure("signup-code", submission);
    const code = submission.value.verification_code;
    const verified = await api.post("/api/user/verify-temp-code", { body: { email: flow.email, verification_code: code } });
    if (!verified.ok) {
      const message = verified.status >= 500 ? "auth.signUp.verifyFailed" : verified.message || "auth.error.invalidCode";
      return formFailure("signup-code", submission, message, verified.status, { errorAt: codeErrorAt(verified, "verification_code") });
    }
    return redirect(here, { headers: { "Set-Cookie": await writeFlow(request, "signup", { ...flow, code }) } });
  }

  if (intent === "signup-password") {
    const submission = parseSubmission(formData, SignupPasswordSchema);
    if (submission.status !== "success") return formFailure("signup-password", submission);
    if (!flow.code) return redirect(here);
    const registered = await api.post("/api/user/register-user", {
      body: {
        email: flow.email,
        password: submission.value.password,
        password_confirmation: submission.value.confirmPassword,
        verification_code: flow.code,
        agreement: flow.agreeTerms ? 1 : 0,
        newsletter: flow.agreeMarketing ? 1 : 0,
        platform: "Web Browser",
        // The language the customer signed up in: the account's emails use it (issue 36).
        language: languageOf(request),
      },
    });
    if (!registered.ok && registered.code && CODE_REFUSED.has(registered.code)) {
      // The code expired or was used up since it was checked: back to the code step, where it can be resent.
      const cookie = await writeFlow(request, "signup", { ...flow, code: undefined });
      return redirectWithFormError(
        here,
        registered.message || "auth.error.invalidCode",
        { form: "signup-code", field: "verification_code" },
        { headers: { "Set-Cookie": cookie } },
      );
    }
    if (!registered.ok) {
      // identity §8: a rejected registration shows the response message; a failed call a generic one.
      const message = registered.status >= 500 ? "auth.signUp.registrationFailedRetry" : registered.message || "auth.signUp.registrationFailed";
      return formFailure("signup-password", submission, message, registered.status, { errorAt: "" });
    }
    const headers = new Headers();
    headers.append("Set-Cookie", await commitTokenSession(request, registered.data.token));
    // The account's language comes with it (or the account takes the page's): issue 36.
    const languageSet = await languageOnSignIn(request, context, registered.data.token, registered.data.user);
    if (languageSet) headers.append("Set-Cookie", languageSet);
    appendDeviceCookie(headers, request);
    headers.append("Set-Cookie", await writeFlow(request, "signup", undefined));
    return redirectWithSuccess(safeRedirect(oldurl), "auth.signUp.success", { headers });
  }

  throw new Response("Unknown form", { status: 400 });
}
