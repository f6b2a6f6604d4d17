import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { AuthPage } from "~/components/auth-page";
import { BILLING_AUTO_RENEWAL } from "~/components/cancel-footer";
import { EmailStepForm, OtpStepForm } from "~/components/code-flow";
import { FormAlert } from "~/components/form-alert";
import { RestartForm } from "~/components/restart-form";
import { SubmitButton } from "~/components/submit-button";
import { OtpSchema } from "~/schemas/index.server";
import { createApiClient } from "~/utils/api.server";
import { handleCodeRequest } from "~/utils/code-flow.server";
import { readFlow, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, type FormFailure, formFailure, parseSubmission, readFormData } from "~/utils/forms.server";
import { pageMeta } from "~/utils/meta";
import { getSessionToken } from "~/utils/session.server";
import { redirectWithSuccess } from "~/utils/toast.server";
import { CANCEL_PATH, PROOF_EXPIRED, loadCancelStep, requireProof, restartWithError } from "./cancel.server";

// Cancel without signing in (issue 22, §312k BGB; docs/decisions/038): email, the emailed code, then the
// subscription with 'Cancel auto-renewal' (Billing's words, the spec's), then 'Auto-renewal is off'. Nothing
// about an account is shown before the code is right. A signed-in customer has Billing's control for this,
// and is sent there (issue 33).

const TURN_OFF = "turn-off";

export const meta: MetaFunction = (args) => pageMeta(args, "billing.meta.cancel.title", "billing.meta.cancel.description");

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (await getSessionToken(request)) throw redirect(BILLING_AUTO_RENEWAL);
  return loadCancelStep(request, context);
}

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "send");
  const api = createApiClient(request, context);

  const handled = await handleCodeRequest(intent, {
    request,
    formData,
    flowKey: "cancel",
    pagePath: CANCEL_PATH,
    send: (email) => api.post("/api/anonymous/cancel/send-code", { body: { email } }),
    failure: "billing.cancel.sendFailed",
    sentMessage: "billing.cancel.codeSent",
  });
  if (handled) return handled;

  if (intent === "verify") {
    const flow = await readFlow(request, "cancel");
    if (!flow) return redirect(CANCEL_PATH);
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("verify", submission);
    const verified = await api.post("/api/anonymous/cancel/verify", { body: { email: flow.email, code: submission.value.code } });
    if (!verified.ok) {
      return formFailure("verify", submission, verified.message || "billing.cancel.invalidCode", verified.status, { errorAt: codeErrorAt(verified, "code") });
    }
    const cookie = await writeFlow(request, "cancel", { ...flow, proof: verified.data.proof });
    return redirect(CANCEL_PATH, { headers: { "Set-Cookie": cookie } });
  }

  if (intent === TURN_OFF) {
    const { flow, proof } = await requireProof(request);
    const done = await api.post("/api/anonymous/cancel/turn-off-auto-renewal", { body: { proof } });
    if (!done.ok) {
      if (done.code === "link_invalid") return restartWithError(request, done.message || PROOF_EXPIRED);
      return formFailure(TURN_OFF, null, done.message || "billing.cancel.turnOffFailed", done.status);
    }
    const cookie = await writeFlow(request, "cancel", {
      email: flow.email,
      sentAt: flow.sentAt,
      done: { title: done.data.title, endsOn: done.data.ends_on, turnedOffAt: done.data.turned_off_at },
    });
    return redirectWithSuccess(CANCEL_PATH, done.message || "billing.cancel.done.title", { headers: { "Set-Cookie": cookie } });
  }

  throw new Response("Unknown form", { status: 400 });
}

function TurnOffForm() {
  const { t } = useTranslation("billing");
  const actionData = useActionData<FormFailure | undefined>();
  const idle = useNavigation().state === "idle";
  const error = idle && actionData?.form === TURN_OFF ? actionData.serverError : null;
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={TURN_OFF} />
      <FormAlert id="turn-off-error" errors={error ? [error] : null} />
      <SubmitButton intent={TURN_OFF}>{t("billing.renewal.cancel")}</SubmitButton>
    </Form>
  );
}

export default function CancelPage() {
  const { t } = useTranslation("billing");
  const state = useLoaderData<typeof loader>();
  const strong = { strong: <strong /> };
  return (
    <AuthPage title={t("billing.cancel.title")}>
      {state.step === "email" ? (
        <>
          <p className="muted">{t("billing.cancel.intro")}</p>
          <EmailStepForm button={t("billing.cancel.sendCode")} />
        </>
      ) : null}
      {state.step === "code" ? (
        <OtpStepForm state={state.code}>
          <RestartForm />
        </OtpStepForm>
      ) : null}
      {state.step === "subscription" ? (
        <section aria-labelledby="cancel-subscription-heading" className="cancel-step">
          <h2 id="cancel-subscription-heading">{t("billing.cancel.subscription.title")}</h2>
          <p className="muted">
            <Trans t={t} i18nKey="billing.cancel.subscription.account" values={{ email: state.email }} components={strong} />
          </p>
          {state.subscription ? (
            <>
              <p>
                <Trans t={t} i18nKey="billing.cancel.subscription.plan" values={{ plan: state.subscription.title }} components={strong} />
              </p>
              {state.subscription.renewsOn ? (
                <p>
                  <Trans t={t} i18nKey="billing.cancel.subscription.renewsOn" values={{ date: state.subscription.renewsOn }} components={strong} />
                </p>
              ) : (
                <p>
                  <Trans t={t} i18nKey="billing.cancel.subscription.activeUntil" values={{ date: state.subscription.endsOn }} components={strong} />
                </p>
              )}
              {state.subscription.note ? <p className="muted">{state.subscription.note}</p> : null}
              {state.subscription.canTurnOff ? <TurnOffForm /> : null}
            </>
          ) : (
            <p>{t("billing.cancel.subscription.none")}</p>
          )}
          <div className="code-actions">
            <RestartForm />
          </div>
        </section>
      ) : null}
      {state.step === "done" ? (
        <section aria-labelledby="cancel-done-heading" className="cancel-step">
          <h2 id="cancel-done-heading">{t("billing.cancel.done.title")}</h2>
          <p>
            <Trans t={t} i18nKey="billing.cancel.done.text" values={{ plan: state.title, date: state.endsOn }} components={strong} />
          </p>
          <p className="muted">
            <Trans t={t} i18nKey="billing.cancel.done.emailed" values={{ date: state.turnedOffAt, email: state.email }} components={strong} />
          </p>
          <p className="code-actions">
            <Link to="/">{t("billing.cancel.backHome")}</Link>
          </p>
        </section>
      ) : null}
      <p className="auth-footer">
        <Link to="/login">{t("billing.cancel.signIn")}</Link>
      </p>
    </AuthPage>
  );
}
