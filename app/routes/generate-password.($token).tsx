import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
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

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.setPassword.title", "auth.meta.setPassword.description");

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
  if (!result.ok) return formFailure("reset", submission, result.message || "auth.setPassword.failed", result.status, { errorAt: "" });
  return redirectWithSuccess(signedIn ? "/" : "/login", result.message || "auth.setPassword.done");
}

export default function GeneratePasswordPage() {
  const { t } = useTranslation("auth");
  const { hasToken } = useLoaderData<typeof loader>();
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">{t("auth.setPassword.title")}</h1>
        {hasToken ? (
          <>
            {/* identity §8: its error is inline (the form's alert), with no toast. */}
            <NewPasswordForm />
          </>
        ) : (
          <p className="muted">{t("auth.setPassword.noToken")}</p>
        )}
      </main>
    </div>
  );
}
