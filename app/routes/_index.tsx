import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { NewPasswordForm, OtpStepForm } from "~/components/code-flow";
import { FormAlert, useFlashFormError } from "~/components/form-alert";
import { MenuShell } from "~/components/menu-shell";
import { FlowDialog } from "~/components/flow-dialog";
import { EmailChangeDialog } from "~/features/email-change/email-change-dialog";
import { emailChangeAction, emailChangeDialogState } from "~/features/email-change/email-change.server";
import { EMAIL_CARD } from "~/features/email-change/forms";
import { NextCharge } from "~/features/next-charge/next-charge";
import { nextChargeView } from "~/features/next-charge/next-charge.server";
import { SubmitButton } from "~/components/submit-button";
import { Toasts } from "~/components/toasts";
import { PaymentFailedBanner } from "~/features/dunning/payment-failed-banner";
import { paymentFailedView } from "~/features/dunning/payment-failed.server";
import { NewPasswordSchema, OtpSchema } from "~/schemas/index.server";
import { loadAccountHome } from "~/utils/account-home.server";
// Fixed store links (identity §2, shared with /help); the desktop links come from the API.
import { ANDROID_APP_URL, IOS_APP_URL } from "~/utils/app-stores";
import { requireUser } from "~/utils/auth.server";
import { codeStepState } from "~/utils/code-flow.server";
import { daysLeft } from "~/utils/dates";
import { languageOf, translatorOf } from "~/i18n/i18n.server";
import { formattersFor } from "~/i18n/use-formatters";
import { portalConfig } from "~/config.server";
import { CODE_TTL_SECONDS, readFlow, secondsLeft, writeFlow } from "~/utils/flow.server";
import { codeErrorAt, formFailure, parseSubmission, readFormData, type FormFailure } from "~/utils/forms.server";
import { redirectWithFormError, redirectWithSuccess } from "~/utils/toast.server";
import { pageMeta } from "~/utils/meta";

export const meta: MetaFunction = (args) => pageMeta(args, "account.meta.home.title", "account.meta.home.description");

// The account home renders the menu layout itself instead of sitting under routes/_app: its one API
// call (/api/account/home) checks the token and reads the user with everything else, where the
// layout's loader would have added a second (docs/decisions/013-performance-budgets.md).
export async function loader({ request, context }: LoaderFunctionArgs) {
  const home = await loadAccountHome(request, context);
  const language = languageOf(request);
  const { longDate } = formattersFor(language);
  // Free: `endedOn` when the account had a plan that ended ('Your plan ended on …', docs/decisions/050), else null.
  let subscription: { plan: "Free"; endedOn: string | null } | { plan: "Premium"; daysLeft: number; activatedOn: string; expiresOn: string } = {
    plan: "Free",
    endedOn: home.ended_plan ? longDate(home.ended_plan.ended_on) : null,
  };
  // The API owns the product's time (its test clock can move it), so days are counted from its "now".
  // A renewal that failed keeps the plan until the end of its grace period (docs/decisions/027).
  const paidUntil = home.payment_failed?.grace_until ?? home.subscription?.sub_exp_date;
  const left = home.subscription && paidUntil ? daysLeft(paidUntil, new Date(home.now)) : 0;
  if (home.subscription && paidUntil && left > 0) {
    subscription = {
      plan: "Premium",
      daysLeft: left,
      activatedOn: longDate(home.subscription.sub_start_date),
      expiresOn: longDate(paidUntil),
    };
  }

  return {
    email: home.user.email,
    hasPassword: home.user.has_password,
    dialog: await changePasswordDialogState(request),
    emailDialog: await emailChangeDialogState(request, home.user),
    // Not `status`: a loader's top-level key of that name was read as the HTTP status by Remix's ?_data path.
    subscription,
    paymentFailed: paymentFailedView(home.payment_failed, language),
    // A provider that is off (docs/decisions/019) can't be connected; an existing link can still be removed.
    accounts: (["GOOGLE", "APPLE"] as const)
      .map((type) => ({
        type,
        name: type === "GOOGLE" ? "Google" : "Apple",
        linkId: home.linked.find((link) => link.link_type === type)?.id ?? null,
      }))
      .filter((account) => account.linkId !== null || portalConfig().identity[account.type === "GOOGLE" ? "google" : "apple"] !== null),
    downloads: [
      { name: "iOS", href: IOS_APP_URL },
      { name: "Android", href: ANDROID_APP_URL },
      { name: "Windows", href: home.downloads?.windows ?? null },
      { name: "macOS", href: home.downloads?.mac ?? null },
    ],
    // null from an API without two-factor authentication: no card then.
    twoFactor: home.two_factor ? { enabled: home.two_factor.enabled } : null,
    nextCharge: subscription.plan === "Premium" ? nextChargeView(home, language) : null,
    notices: home.notices,
  };
}

const DIALOG_URL = "/?dialog=change-password";
// Where a redirected error stays on this page (issue 21): the alert of the card whose button failed.
const PASSWORD_CARD = { form: "home-password" };
const ACCOUNTS_CARD = { form: "home-accounts" };
/** Where 'Download my data' tells that it is over its limit (app/routes/account.data-export.ts). */
const DATA_CARD = { form: "home-data" };

/** The change-password dialog (identity §4) is a server-rendered state of this page: ?dialog=… plus the flow. */
async function changePasswordDialogState(request: Request) {
  if (new URL(request.url).searchParams.get("dialog") !== "change-password") return null;
  const flow = await readFlow(request, "change");
  if (!flow) return null;
  if (flow.resetToken) return { step: "password" as const, email: flow.email };
  return { step: "code" as const, code: codeStepState(flow) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user, api } = await requireUser(request, context);
  const formData = await readFormData(request);
  const intent = String(formData.get("intent") ?? "");
  const t = translatorOf(request);

  // 'Change email' (issue 22): its dialog's intents all start with 'email-'.
  if (intent.startsWith("email-")) {
    const answer = await emailChangeAction(intent, { request, formData, api, user });
    if (answer) return answer;
  }

  if (intent === "disconnect") {
    const linkId = Number(formData.get("link_id"));
    const linkType = formData.get("link_type");
    if (!Number.isInteger(linkId) || linkId <= 0 || (linkType !== "GOOGLE" && linkType !== "APPLE")) {
      return redirectWithFormError("/", "account.home.disconnectFailed", ACCOUNTS_CARD);
    }
    const result = await api.post("/api/account/disconnect", { body: { link_id: linkId, link_type: linkType } });
    const label = linkType === "GOOGLE" ? "Google" : "Apple";
    return result.ok
      ? redirectWithSuccess("/", t("account.home.disconnected", { provider: label }))
      : redirectWithFormError("/", result.message || "account.home.disconnectFailed", ACCOUNTS_CARD);
  }

  if (intent === "set-password-email") {
    const sent = await api.post("/api/user/set-password-email");
    return sent.ok
      ? redirectWithSuccess("/", sent.message || "account.home.setPasswordEmailed")
      : redirectWithFormError("/", sent.message || "account.home.setPasswordFailed", PASSWORD_CARD);
  }

  if (intent === "change-password-start") {
    // Reopened while the code sent before is valid (and unused): the dialog again, for that code. A new
    // one is 'Resend Code' in the dialog, after its wait; asking here would only answer the wait (issue 33).
    const open = await readFlow(request, "change");
    if (open && open.email === user.email && !open.resetToken && secondsLeft(open.sentAt, CODE_TTL_SECONDS) > 0) {
      return redirectWithSuccess(DIALOG_URL, t("account.changePassword.enterCode", { email: user.email }));
    }
  }

  if (intent === "change-password-start" || intent === "change-resend") {
    // The dialog opens once a reset code has been requested for the user's own email.
    const sent = await api.post("/api/auth/forgot-password", { body: { email: user.email } });
    if (!sent.ok) {
      const message = sent.message || "account.changePassword.sendFailed";
      // A failed resend is the dialog's code step's; a failed start, the Password card's.
      return intent === "change-resend"
        ? redirectWithFormError(DIALOG_URL, message, { form: "change-verify" })
        : redirectWithFormError("/", message, PASSWORD_CARD);
    }
    const cookie = await writeFlow(request, "change", { email: user.email, sentAt: Date.now() });
    const message = intent === "change-resend" ? "account.codeResent" : t("account.codeSent", { email: user.email });
    return redirectWithSuccess(DIALOG_URL, message, { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "change-close") {
    // The code sent stays usable if the dialog is opened again; a code already used (a reset token) does not.
    const open = await readFlow(request, "change");
    const kept = open && !open.resetToken ? { email: open.email, sentAt: open.sentAt } : undefined;
    return redirect("/", { headers: { "Set-Cookie": await writeFlow(request, "change", kept) } });
  }

  const flow = await readFlow(request, "change");
  if (!flow || flow.email !== user.email) return redirect("/");

  if (intent === "change-verify") {
    const submission = parseSubmission(formData, OtpSchema);
    if (submission.status !== "success") return formFailure("change-verify", submission);
    const checked = await api.post("/api/auth/reset-password-by-code", { body: { email: flow.email, code: submission.value.code } });
    if (!checked.ok) return formFailure("change-verify", submission, checked.message || "account.changePassword.failed", checked.status, {
        errorAt: codeErrorAt(checked, "code"),
      });
    const cookie = await writeFlow(request, "change", { ...flow, resetToken: checked.data.reset_token });
    return redirect(DIALOG_URL, { headers: { "Set-Cookie": cookie } });
  }

  if (intent === "change-reset") {
    const submission = parseSubmission(formData, NewPasswordSchema);
    if (submission.status !== "success") return formFailure("change-reset", submission);
    if (!flow.resetToken) return redirect(DIALOG_URL);
    // With the bearer token, the API keeps this session and signs out every other one.
    const reset = await api.post("/api/auth/reset-password", {
      body: {
        token: flow.resetToken,
        email: flow.email,
        password: submission.value.password,
        password_confirmation: submission.value.password_confirmation,
      },
    });
    if (!reset.ok) return formFailure("change-reset", submission, reset.message || "account.changePassword.failed", reset.status, { errorAt: "" });
    const cookie = await writeFlow(request, "change", undefined);
    return redirectWithSuccess("/", reset.message || "account.changePassword.done", { headers: { "Set-Cookie": cookie } });
  }

  throw new Response("Unknown form", { status: 400 });
}

export default function AccountHome() {
  const { email, hasPassword, subscription, paymentFailed, accounts, downloads, notices, dialog, emailDialog, twoFactor, nextCharge } =
    useLoaderData<typeof loader>();
  const actionData = useActionData<FormFailure>();
  const navigation = useNavigation();
  const { t } = useTranslation("account");
  const serverError = navigation.state === "idle" ? actionData?.serverError : null;
  return (
    <MenuShell email={email}>
      <Toasts toasts={serverError ? [...notices, { type: "error", message: serverError, echo: actionData?.serverErrorInPage }] : notices} />
      {dialog ? <ChangePasswordDialog state={dialog} /> : emailDialog ? <EmailChangeDialog state={emailDialog} /> : null}
      <section className="page home">
        <header className="page-header">
          <h1>{t("account.home.title")}</h1>
          <p className="tagline">{t("account.home.tagline")}</p>
        </header>
        {paymentFailed ? <PaymentFailedBanner failed={paymentFailed} /> : null}

        <div className="cards">
          <article className="card status-card" aria-labelledby="status-heading">
            <h2 id="status-heading">{t("account.home.subscription.heading")}</h2>
            {subscription.plan === "Premium" ? (
              <>
                <p className="plan plan--premium">{t("account.home.subscription.premium")}</p>
                <p className="days-left">{t("account.home.subscription.daysLeft", { count: subscription.daysLeft })}</p>
                <dl className="dates">
                  <div>
                    <dt>{t("account.home.subscription.activatedOn")}</dt>
                    <dd>{subscription.activatedOn}</dd>
                  </div>
                  <div>
                    <dt>{t("account.home.subscription.expiresOn")}</dt>
                    <dd>{subscription.expiresOn}</dd>
                  </div>
                </dl>
                {paymentFailed ? null : <NextCharge view={nextCharge} />}
              </>
            ) : (
              <>
                <p className="plan plan--free">{t("account.home.subscription.free")}</p>
                {subscription.endedOn ? (
                  <p className="plan-ended">
                    <Trans
                      t={t}
                      i18nKey="account.home.subscription.ended"
                      values={{ date: subscription.endedOn }}
                      components={{ pagelink: <Link to="/pricing" /> }}
                    />
                  </p>
                ) : null}
              </>
            )}
          </article>

          <article className="card banner" aria-labelledby="guarantee-heading">
            <h2 id="guarantee-heading">{t("account.home.guarantee.heading")}</h2>
            <p>{t("account.home.guarantee.text")}</p>
            <Link to="/pricing" className="button button--primary">
              {t("account.home.guarantee.button")}
            </Link>
          </article>

          <article className="card" aria-labelledby="password-heading">
            <h2 id="password-heading">{t("account.home.password.heading")}</h2>
            <CardAlert form={PASSWORD_CARD.form} />
            {hasPassword === false ? (
              <>
                <p className="muted">{t("account.home.password.none")}</p>
                <Form method="post">
                  <input type="hidden" name="intent" value="set-password-email" />
                  <SubmitButton intent="set-password-email" className="button">
                    {t("account.home.password.set")}
                  </SubmitButton>
                </Form>
              </>
            ) : (
              <>
                <p className="muted">{t("account.home.password.text")}</p>
                <Form method="post" id="change-password-start">
                  <input type="hidden" name="intent" value="change-password-start" />
                  <SubmitButton intent="change-password-start" className="button">
                    {t("account.home.password.change")}
                  </SubmitButton>
                </Form>
              </>
            )}
          </article>

          <article className="card" aria-labelledby="email-heading">
            <h2 id="email-heading">{t("account.home.email.heading")}</h2>
            <CardAlert form={EMAIL_CARD.form} />
            <p className="muted">{t("account.home.email.text")}</p>
            <Form method="post" id="change-email-open">
              <input type="hidden" name="intent" value="email-open" />
              <SubmitButton intent="email-open" className="button">
                {t("account.home.email.change")}
              </SubmitButton>
            </Form>
          </article>

          {twoFactor ? (
            <article className="card" aria-labelledby="two-factor-heading">
              <h2 id="two-factor-heading">{t("account.home.twoFactor.heading")}</h2>
              <p className="muted">
                <span className={twoFactor.enabled ? "badge badge--on" : "badge"}>{twoFactor.enabled ? t("account.home.twoFactor.on") : t("account.home.twoFactor.off")}</span>{" "}
                {twoFactor.enabled ? t("account.home.twoFactor.onText") : t("account.home.twoFactor.offText")}
              </p>
              <Link to="/account/two-factor" className="button">
                {twoFactor.enabled ? t("account.home.twoFactor.turnOff") : t("account.home.twoFactor.setUp")}
              </Link>
            </article>
          ) : null}

          {accounts.length > 0 ? (
          <article className="card" aria-labelledby="accounts-heading">
            <h2 id="accounts-heading">{t("account.home.accounts.heading")}</h2>
            <CardAlert form={ACCOUNTS_CARD.form} />
            <ul className="account-rows">
              {accounts.map((account) => (
                <li key={account.type}>
                  <span className="account-name">{account.name}</span>
                  <span className={account.linkId ? "badge badge--on" : "badge"}>{account.linkId ? t("account.home.accounts.connected") : t("account.home.accounts.notConnected")}</span>
                  {account.linkId ? (
                    <Form method="post">
                      <input type="hidden" name="intent" value="disconnect" />
                      <input type="hidden" name="link_id" value={account.linkId} />
                      <input type="hidden" name="link_type" value={account.type} />
                      <button type="submit" className="button button--link" aria-label={t("account.home.accounts.disconnectLabel", { provider: account.name })}>
                        {t("account.home.accounts.disconnect")}
                      </button>
                    </Form>
                  ) : (
                    <Form method="post" reloadDocument action={`/auth/${account.name.toLowerCase()}?intent=connect`}>
                      <button type="submit" className="button button--link" aria-label={t("account.home.accounts.connectLabel", { provider: account.name })}>
                        {t("account.home.accounts.connect")}
                      </button>
                    </Form>
                  )}
                </li>
              ))}
            </ul>
          </article>
          ) : null}

          <article className="card" aria-labelledby="account-data-heading">
            <h2 id="account-data-heading">{t("account.home.data.heading")}</h2>
            <CardAlert form={DATA_CARD.form} />
            <p className="muted">{t("account.home.data.exportText")}</p>
            {/* A plain link: the file comes as an attachment (a client-side navigation would not download it). */}
            <a href="/account/data-export" className="button">
              {t("account.home.data.export")}
            </a>
            <p className="muted">{t("account.home.data.deleteText")}</p>
            <Link to="/account/delete" className="button button--link">
              {t("account.home.data.delete")}
            </Link>
          </article>

          <article className="card downloads" aria-labelledby="downloads-heading">
            <h2 id="downloads-heading">{t("account.home.downloads.heading")}</h2>
            <ul className="download-grid">
              {downloads.map((item) => (
                <li key={item.name}>
                  {item.href ? (
                    <a href={item.href} rel="noopener noreferrer" target="_blank">
                      {item.name}
                    </a>
                  ) : (
                    <span aria-disabled="true">{item.name}</span>
                  )}
                </li>
              ))}
            </ul>
          </article>
        </div>
      </section>
    </MenuShell>
  );
}

type DialogState = NonNullable<Awaited<ReturnType<typeof changePasswordDialogState>>>;

/** A card's error that a redirect carried here (issue 21): it stays until the next action. */
function CardAlert({ form }: { form: string }) {
  const flash = useFlashFormError(form);
  return <FormAlert errors={flash ? [flash.message] : null} />;
}

function ChangePasswordDialog({ state }: { state: DialogState }) {
  const { t } = useTranslation("account");
  return (
    <FlowDialog
      id="change-password"
      title={t("account.changePassword.title")}
      closeIntent="change-close"
      returnFocusTo="#change-password-start button"
    >
      {state.step === "code" ? (
        <OtpStepForm state={state.code} intent="change-verify" resendIntent="change-resend" button={t("account.changePassword.next")} />
      ) : (
        <>
          <p className="muted">{t("account.changePassword.newPasswordText")}</p>
          <NewPasswordForm intent="change-reset" button={t("account.changePassword.submit")} email={state.email} />
        </>
      )}
    </FlowDialog>
  );
}
