import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { EmailStepForm, OtpStepForm } from "~/components/code-flow";
import { RestartForm } from "~/components/restart-form";
import { Logo } from "~/components/logo";
import { Toasts } from "~/components/toasts";
import { EmailStepSchema, OtpSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { requireAnonymous } from "~/utils/auth.server";
import { codeStepState } from "~/utils/code-flow.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { formFailure, parseSubmission, readFormData, type FormFailure } from "~/utils/forms.server";
import { commitTokenSession } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";

// Sign in by emailed code (identity §2 'Get code'): email, then the 6-digit code, with resend.

export const meta: MetaFunction = () => [{ title: "Get Sign In Code | VPN Account" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  const flow = await readFlow(request, "loginCode");
  return { code: flow ? codeStepState(flow) : null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireAnonymous(request);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "send");
  const api = createApiClient(request, context);

  if (intent === "restart") {
    return redirect("/get-code", { headers: { "Set-Cookie": await writeFlow(request, "loginCode", undefined) } });
  }

  if (intent === "send") {
    const submission = parseSubmission(formData, EmailStepSchema);
    if (submission.status !== "success") return formFailure("send", submission);
    const email = submission.value.email!.trim().toLowerCase();
    const sent = await api.getLoginCode({ email });
    if (!sent.ok) return formFailure("send", submission, sent.message || "Failed to get login code!", sent.status);
    const cookie = await writeFlow(request, "loginCode", { email, sentAt: Date.now() });
    return redirectWithSuccess("/get-code", sent.message || "We have sent you a sign-in code.", { headers: { "Set-Cookie": cookie } });
  }

  const flow = await readFlow(request, "loginCode");
  if (!flow) return redirect("/get-code");

  if (intent === "resend") {
    const sent = await api.getLoginCode({ email: flow.email });
    if (!sent.ok) return formFailure("verify", parseSubmission(formData, OtpSchema), sent.message || "Failed to get login code!", sent.status);
    const cookie = await writeFlow(request, "loginCode", { ...flow, sentAt: Date.now() });
    return redirectWithSuccess("/get-code", "Verification code resent to your email!", { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "verify") {
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("verify", submission);
    const result = await api.codeLogin({ email: flow.email, code: submission.value.code!.trim() });
    if (!result.ok) return formFailure("verify", submission, result.message || "Login failed", result.status);
    const headers = new Headers();
    headers.append("Set-Cookie", await commitTokenSession(request, result.data.token));
    headers.append("Set-Cookie", await writeFlow(request, "loginCode", undefined));
    return redirect("/", { headers });
  }

  throw new Response("Unknown form", { status: 400 });
}

export default function GetCodePage() {
  const { code } = useLoaderData<typeof loader>();
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
        <h1 className="auth-title">Get Sign In Code</h1>
        {code ? (
          <OtpStepForm state={code}>
            <RestartForm />
          </OtpStepForm>
        ) : (
          <>
            <p className="muted">We will email you a 6-digit code to sign in with.</p>
            <EmailStepForm />
          </>
        )}
        <p className="auth-footer">
          <Link to="/">Log in with password</Link>
        </p>
      </main>
    </div>
  );
}
