import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { EmailStepForm, OtpStepForm } from "~/components/code-flow";
import { RestartForm } from "~/components/restart-form";
import { AuthPage } from "~/components/auth-page";
import { OtpSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { requireAnonymous } from "~/utils/auth.server";
import { codeStepState, handleCodeRequest } from "~/utils/code-flow.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { commitTokenSession } from "~/utils/session.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { needsSecondFactor, redirectToSecondFactor } from "~/utils/two-factor.server";
import { pageMeta } from "~/utils/meta";
import { languageOnSignIn } from "~/i18n/account-language.server";

// Sign in by emailed code (identity §2 'Get code'): email, then the 6-digit code, with resend.

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.getCode.title", "auth.meta.getCode.description");

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

  const handled = await handleCodeRequest(intent, {
    request,
    formData,
    flowKey: "loginCode",
    pagePath: "/get-code",
    send: (email) => api.post("/api/auth/get-login-code", { body: { email } }),
    failure: "auth.getCode.sendFailed",
    sentMessage: "auth.getCode.sent",
  });
  if (handled) return handled;

  const flow = await readFlow(request, "loginCode");
  if (!flow) return redirect("/get-code");

  if (intent === "verify") {
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("verify", submission);
    const result = await api.post("/api/auth/code-login", { body: { email: flow.email, code: submission.value.code } });
    if (!result.ok) return formFailure("verify", submission, result.message || "auth.error.loginFailed", result.status, { errorAt: codeErrorAt(result, "code") });
    if (needsSecondFactor(result.data)) return redirectToSecondFactor(request, result.data.challenge, {}, new Headers(), ["loginCode"]);
    const headers = new Headers();
    headers.append("Set-Cookie", await commitTokenSession(request, result.data.token));
    // The account's language comes with it (or the account takes the page's): issue 36.
    const languageSet = await languageOnSignIn(request, context, result.data.token, result.data.user);
    if (languageSet) headers.append("Set-Cookie", languageSet);
    appendDeviceCookie(headers, request);
    headers.append("Set-Cookie", await writeFlow(request, "loginCode", undefined));
    return redirect("/", { headers });
  }

  throw new Response("Unknown form", { status: 400 });
}

export default function GetCodePage() {
  const { t } = useTranslation("auth");
  const { code } = useLoaderData<typeof loader>();
  return (
    <AuthPage title={t("auth.getCode.title")}>
      {code ? (
        <OtpStepForm state={code}>
          <RestartForm />
        </OtpStepForm>
      ) : (
        <>
          <p className="muted">{t("auth.getCode.intro")}</p>
          <EmailStepForm />
        </>
      )}
      <p className="auth-footer">
        <Link to="/">{t("auth.getCode.withPassword")}</Link>
      </p>
    </AuthPage>
  );
}
