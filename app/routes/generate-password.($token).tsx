import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { NewPasswordForm } from "~/components/code-flow";
import { Logo } from "~/components/logo";
import { NewPasswordSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { pageMeta } from "~/utils/meta";

// First password for an account created without one (Google/Apple, or a checkout left early); the
// token comes from the "set your password" email.

export const meta: MetaFunction = () => pageMeta("Set your password | VPN Account", "Set the password of your VPN account.");

export async function loader({ params }: LoaderFunctionArgs) {
  return { hasToken: Boolean(params.token) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const submission = parseSubmission(formData, NewPasswordSchema);
  if (!params.token) throw new Response("Not Found", { status: 404 });
  if (submission.status !== "success") return formFailure("reset", submission);
  const signedIn = Boolean(await getSessionToken(request));
  const result = await createApiClient(request, context).post("/api/generate/new-password", {
    body: {
      token: params.token,
      password: submission.value.password,
      password_confirmation: submission.value.password_confirmation,
    },
  });
  // identity §8: shown inline, the server's message first.
  if (!result.ok) return formFailure("reset", submission, result.message || "Failed to generate new password!", result.status, { errorAt: "" });
  return redirectWithSuccess(signedIn ? "/" : "/login", result.message || "Password generated successfully!");
}

export default function GeneratePasswordPage() {
  const { hasToken } = useLoaderData<typeof loader>();
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">Please set your account password</h1>
        {hasToken ? (
          <>
            {/* identity §8: its error is inline (the form's alert), with no toast. */}
            <NewPasswordForm />
          </>
        ) : (
          <p className="muted">This link is missing its token. Open the link from your email again.</p>
        )}
      </main>
    </div>
  );
}
