import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { EmailStepForm, NewPasswordForm, OtpStepForm } from "~/components/code-flow";
import { FormAlert, useFlashFormError } from "~/components/form-alert";
import { type PasskeyListItem, PasskeyList } from "~/features/passkeys/passkey-list";
import { passkeyListItem } from "~/features/passkeys/passkey-list.server";
import { RESET_PASSKEYS_FORM } from "~/features/passkeys/passkey-messages";
import { RestartForm } from "~/components/restart-form";
import { AuthPage } from "~/components/auth-page";
import { NewPasswordSchema, OtpSchema } from "~/schemas/index.server";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { codeStepState, handleCodeRequest } from "~/utils/code-flow.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithError, redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { pageMeta } from "~/utils/meta";

// Three-step password reset (identity §2): email, the emailed code with a mm : ss expiry, new password.
// The new sign-in alert's link starts at the last step (reset-password.tsx). A new password does not
// stop a passkey, so when the account has passkeys the reset ends on a fourth page (issue 30): the
// passkeys, each with 'Remove' (plain forms; the API's review token stays in the flow cookie).

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.resetPassword.title", "auth.meta.resetPassword.description");

const PAGE = "/forget-password";
const REVIEW_ENDED = "auth.reset.reviewEnded";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const flow = await readFlow(request, "reset");
  if (!flow) return { step: "email" as const };
  if (flow.passkeyReview) {
    const listed = await createApiClient(request, context).post("/api/auth/reset-password/passkeys", { body: { token: flow.passkeyReview } });
    if (!listed.ok && listed.code !== "link_invalid") throw serviceUnavailable();
    if (!listed.ok) {
      // Expired (30 minutes) or replaced by a newer reset: the reset itself is done.
      throw await redirectWithError("/login", listed.message || REVIEW_ENDED, { headers: { "Set-Cookie": await writeFlow(request, "reset", undefined) } });
    }
    return { step: "passkeys" as const, email: flow.email, passkeys: listed.data.map(passkeyListItem) };
  }
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
    failure: "auth.reset.sendFailed",
    sentMessage: "auth.reset.codeSent",
  });
  if (handled) return handled;

  const flow = await readFlow(request, "reset");
  if (!flow) return redirect("/forget-password");

  if (intent === "verify") {
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("verify", submission);
    const checked = await api.post("/api/auth/reset-password-by-code", { body: { email: flow.email, code: submission.value.code } });
    if (!checked.ok) return formFailure("verify", submission, checked.message || "auth.reset.failed", checked.status, {
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
    if (!reset.ok) return formFailure("reset", submission, reset.message || "auth.reset.failed", reset.status, { errorAt: "" });
    const message = reset.message || "auth.reset.done";
    const review = reset.data.passkey_review;
    if (review) {
      // The account's passkeys still sign in: they are listed next, to remove the unknown ones.
      const cookie = await writeFlow(request, "reset", { email: flow.email, sentAt: flow.sentAt, passkeyReview: review.token });
      return redirectWithSuccess(PAGE, message, { headers: { "Set-Cookie": cookie } });
    }
    // identity §2: on success the server message is shown and the user goes home.
    const cookie = await writeFlow(request, "reset", undefined);
    return redirectWithSuccess("/", message, { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "passkey-remove") {
    if (!flow.passkeyReview) return redirect(PAGE);
    const id = String(formData.get("passkey_id") ?? "");
    if (!/^\d{1,15}$/.test(id)) return redirectWithFormError(PAGE, "auth.reset.passkeyNotFound", { form: RESET_PASSKEYS_FORM });
    const removed = await api.post("/api/auth/reset-password/passkeys/remove", { body: { token: flow.passkeyReview, id: Number(id) } });
    if (removed.ok) return redirectWithSuccess(PAGE, removed.message || "auth.reset.passkeyRemoved");
    if (removed.code === "link_invalid") {
      return redirectWithError("/login", removed.message || REVIEW_ENDED, { headers: { "Set-Cookie": await writeFlow(request, "reset", undefined) } });
    }
    return redirectWithFormError(PAGE, removed.message || "auth.reset.passkeyRemoveFailed", { form: RESET_PASSKEYS_FORM });
  }

  if (intent === "passkeys-done") {
    // identity §2: after the reset the user goes home (which asks an anonymous visitor to sign in).
    return redirect("/", { headers: { "Set-Cookie": await writeFlow(request, "reset", undefined) } });
  }

  throw new Response("Unknown form", { status: 400 });
}

export default function ForgetPasswordPage() {
  const { t } = useTranslation("auth");
  const state = useLoaderData<typeof loader>();
  if (state.step === "passkeys") return <ResetPasskeys email={state.email} passkeys={state.passkeys} />;
  return (
    <AuthPage title={t("auth.reset.title")}>
      {state.step === "email" ? (
        <>
          <p className="muted">{t("auth.reset.intro")}</p>
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
            <Trans t={t} i18nKey="auth.reset.chooseNew" values={{ email: state.email }} components={{ strong: <strong /> }} />
          </p>
          <NewPasswordForm email={state.email} />
          <div className="code-actions">
            <RestartForm label={t("auth.reset.startAgain")} />
          </div>
        </>
      ) : null}
      <p className="auth-footer">
        <Link to="/login">{t("auth.reset.backToSignIn")}</Link>
      </p>
    </AuthPage>
  );
}

/** After the reset: the account's passkeys, which a new password does not stop, with 'Remove' each. */
function ResetPasskeys({ email, passkeys }: { email: string; passkeys: PasskeyListItem[] }) {
  const { t } = useTranslation("auth");
  const flash = useFlashFormError(RESET_PASSKEYS_FORM);
  return (
    <AuthPage title={t("auth.reset.passkeys.title")}>
      <p>
        <Trans t={t} i18nKey="auth.reset.passkeys.text" values={{ email }} components={{ strong: <strong /> }} />
      </p>
      <FormAlert errors={flash ? [flash.message] : null} />
      {passkeys.length === 0 ? (
        <p className="muted">{t("auth.reset.passkeys.none")}</p>
      ) : (
        <PasskeyList passkeys={passkeys} action={PAGE} fields={{ intent: "passkey-remove" }} />
      )}
      <Form method="post" action={PAGE}>
        <input type="hidden" name="intent" value="passkeys-done" />
        <button type="submit" className="button button--primary button--block">
          {t("auth.reset.passkeys.done")}
        </button>
      </Form>
    </AuthPage>
  );
}
