import type { ActionFunctionArgs, HeadersFunction, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, useActionData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormAlert } from "~/components/form-alert";
import { Logo } from "~/components/logo";
import { SubmitButton } from "~/components/submit-button";
import { createApiClient } from "~/utils/api.server";
import { readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { destroySessionCookie } from "~/utils/session.server";

// The link in 'Your email address was changed' (issue 22, docs/decisions/036): a GET only shows what
// the button does (mail scanners that open links change nothing); the POST puts the previous address
// back and signs out everywhere (the API), then this browser's session is cleared too and the page
// says it is done, pointing to sign in.

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.emailRevert.title", "auth.meta.emailRevert.description");

const NO_STORE = { "Cache-Control": "private, no-store" };
export const headers: HeadersFunction = () => NO_STORE;

export async function loader() {
  return null;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await readFormData(request);
  const token = params.token ?? "";
  const result = await createApiClient(request, context).post("/api/account/email/revert", { body: { token } });
  if (!result.ok) {
    const error = result.message || "auth.emailRevert.invalid";
    return data({ error }, { status: result.status >= 400 && result.status < 500 ? result.status : 503, headers: NO_STORE });
  }
  return redirect("/email-revert/done", { headers: { "Set-Cookie": await destroySessionCookie(request) } });
}

export default function EmailRevertPage() {
  const { t } = useTranslation("auth");
  const actionData = useActionData<typeof action>();
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">{t("auth.emailRevert.title")}</h1>
        <p className="muted">{t("auth.emailRevert.text")}</p>
        <Form method="post" id="email-revert">
          <input type="hidden" name="intent" value="revert" />
          <FormAlert errors={actionData?.error ? [actionData.error] : null} />
          <SubmitButton intent="revert" className="button button--primary">
            {t("auth.emailRevert.button")}
          </SubmitButton>
        </Form>
      </main>
    </div>
  );
}
