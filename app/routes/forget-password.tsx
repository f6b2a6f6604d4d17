import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { EmailStepForm, NewPasswordForm, OtpStepForm } from "~/components/code-flow";
import { RestartForm } from "~/components/restart-form";
import { AuthPage } from "~/components/auth-page";
import { NewPasswordSchema, OtpSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { codeStepState, handleCodeRequest } from "~/utils/code-flow.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { pageMeta } from "~/utils/meta";

// Three-step password reset (identity §2): email, the emailed code with a mm : ss expiry, new password.

export const meta: MetaFunction = () =>
  pageMeta("Reset your password | VPN Account", "Reset the password of your VPN account with a code sent to your email.");

export async function loader({ request }: LoaderFunctionArgs) {
  const flow = await readFlow(request, "reset");
  if (!flow) return { step: "email" as const };
  if (flow.resetToken) return { step: "password" as const, email: flow.email };
  return { step: "code" as const, code: codeStepState(flow) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "send");
  const api = createApiClient(request, context, await getSessionToken(request));

  const handled = await handleCodeRequest(intent, {
    request,
    formData,
    flowKey: "reset",
    pagePath: "/forget-password",
    send: (email) => api.post("/api/auth/forgot-password", { body: { email } }),
    failure: "Failed to send reset password email",
    sentMessage: "We have sent you a reset code.",
  });
  if (handled) return handled;

  const flow = await readFlow(request, "reset");
  if (!flow) return redirect("/forget-password");

  if (intent === "verify") {
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("verify", submission);
    const checked = await api.post("/api/auth/reset-password-by-code", { body: { email: flow.email, code: submission.value.code } });
    if (!checked.ok) return formFailure("verify", submission, checked.message || "Failed to reset password!", checked.status, {
        errorAt: codeErrorAt(checked, "code"),
      });
    const cookie = await writeFlow(request, "reset", { ...flow, resetToken: checked.data.reset_token });
    return redirect("/forget-password", { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "reset") {
    const submission = parseSubmission(formData, NewPasswordSchema);
    if (submission.status !== "success") return formFailure("reset", submission);
    if (!flow.resetToken) return redirect("/forget-password");
    const reset = await api.post("/api/auth/reset-password", {
      body: {
        token: flow.resetToken,
        email: flow.email,
        password: submission.value.password,
        password_confirmation: submission.value.password_confirmation,
      },
    });
    if (!reset.ok) return formFailure("reset", submission, reset.message || "Failed to reset password!", reset.status, { errorAt: "" });
    // identity §2: on success the server message is shown and the user goes home.
    const cookie = await writeFlow(request, "reset", undefined);
    return redirectWithSuccess("/", reset.message || "Your password has been reset.", { headers: { "Set-Cookie": cookie } });
  }

  throw new Response("Unknown form", { status: 400 });
}

export default function ForgetPasswordPage() {
  const state = useLoaderData<typeof loader>();
  return (
    <AuthPage title="Reset your password">
      {state.step === "email" ? (
        <>
          <p className="muted">Enter the email of your account and we will send you a code.</p>
          <EmailStepForm />
        </>
      ) : null}
      {state.step === "code" ? (
        <OtpStepForm state={state.code}>
          <RestartForm />
        </OtpStepForm>
      ) : null}
      {state.step === "password" ? (
        <>
          <p className="muted">
            Choose a new password for <strong>{state.email}</strong>.
          </p>
          <NewPasswordForm email={state.email} />
          <div className="code-actions">
            <RestartForm label="Start again" />
          </div>
        </>
      ) : null}
      <p className="auth-footer">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthPage>
  );
}
