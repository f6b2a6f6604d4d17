import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { EmailStepForm, NewPasswordForm, OtpStepForm } from "~/components/code-flow";
import { RestartForm } from "~/components/restart-form";
import { Logo } from "~/components/logo";
import { Toasts } from "~/components/toasts";
import { EmailStepSchema, NewPasswordSchema, OtpSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { codeStepState } from "~/utils/code-flow.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { formFailure, parseSubmission, readFormData, type FormFailure } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";

// Three-step password reset (identity §2): email, the emailed code with a mm : ss expiry, new password.

export const meta: MetaFunction = () => [{ title: "Reset your password | VPN Account" }];

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

  if (intent === "restart") {
    return redirect("/forget-password", { headers: { "Set-Cookie": await writeFlow(request, "reset", undefined) } });
  }

  if (intent === "send") {
    const submission = parseSubmission(formData, EmailStepSchema);
    if (submission.status !== "success") return formFailure("send", submission);
    const email = submission.value.email!.trim().toLowerCase();
    const sent = await api.forgotPassword({ email });
    if (!sent.ok) return formFailure("send", submission, sent.message || "Failed to send reset password email", sent.status);
    const cookie = await writeFlow(request, "reset", { email, sentAt: Date.now() });
    return redirectWithSuccess("/forget-password", sent.message || "We have sent you a reset code.", { headers: { "Set-Cookie": cookie } });
  }

  const flow = await readFlow(request, "reset");
  if (!flow) return redirect("/forget-password");

  if (intent === "resend") {
    const sent = await api.forgotPassword({ email: flow.email });
    if (!sent.ok) return formFailure("verify", parseSubmission(formData, OtpSchema), sent.message || "Failed to send reset password email", sent.status);
    const cookie = await writeFlow(request, "reset", { email: flow.email, sentAt: Date.now() });
    return redirectWithSuccess("/forget-password", "Verification code resent to your email!", { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "verify") {
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("verify", submission);
    const checked = await api.resetPasswordByCode({ email: flow.email, code: submission.value.code!.trim() });
    if (!checked.ok) return formFailure("verify", submission, checked.message || "Failed to reset password!", checked.status);
    const cookie = await writeFlow(request, "reset", { ...flow, resetToken: checked.data.reset_token });
    return redirect("/forget-password", { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "reset") {
    const submission = parseSubmission(formData, NewPasswordSchema);
    if (submission.status !== "success") return formFailure("reset", submission);
    if (!flow.resetToken) return redirect("/forget-password");
    const reset = await api.resetPassword({
      token: flow.resetToken,
      email: flow.email,
      password: submission.value.password!,
      password_confirmation: submission.value.password_confirmation!,
    });
    if (!reset.ok) return formFailure("reset", submission, reset.message || "Failed to reset password!", reset.status);
    // identity §2: on success the server message is shown and the user goes home.
    const cookie = await writeFlow(request, "reset", undefined);
    return redirectWithSuccess("/", reset.message || "Your password has been reset.", { headers: { "Set-Cookie": cookie } });
  }

  throw new Response("Unknown form", { status: 400 });
}

export default function ForgetPasswordPage() {
  const state = useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const navigation = useNavigation();
  const serverError = navigation.state === "idle" ? actionData?.serverError : null;
  return (
    <div className="auth-page">
      <Toasts toasts={serverError ? [{ type: "error", message: serverError }] : []} />
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">Reset your password</h1>
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
      </main>
    </div>
  );
}
