import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { AuthPage } from "~/components/auth-page";
import { FormAlert } from "~/components/form-alert";
import { Spinner } from "~/components/spinner";
import { createApiClient, serviceUnavailable } from "~/utils/api.server";
import { readFormData } from "~/utils/forms.server";
import { safeRedirect } from "~/utils/safe-redirect";
import { commitTokenSession, getSessionToken } from "~/utils/session.server";
import { appendDeviceCookie } from "~/utils/device-cookie.server";
import { pageMeta } from "~/utils/meta";
import { languageOnSignIn } from "~/i18n/account-language.server";

// Single sign-on by token (identity §2). A link may carry someone else's token (login CSRF: the
// visitor would then pay or add a card on the attacker's account), so the page first says whose
// account the token opens and exchanges it only when the visitor presses 'Continue as {email}', with
// or without JavaScript. Showing the email does not use the token up, so mail scanners and link
// previews that follow the link change nothing.

const BROKEN_LINK = "auth.sso.brokenLink";
const SSO_FAILED = "auth.sso.failed";

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.sso.title", "auth.meta.sso.description");

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const redirectTo = url.searchParams.get("redirect") ?? "";
  if (await getSessionToken(request)) throw redirect(safeRedirect(redirectTo));
  const token = url.searchParams.get("token") ?? "";
  if (!token) return { token, redirectTo, email: null, invalid: null };
  const account = await createApiClient(request, context).post("/api/auth/sso-token/account", { body: { access_token: token } });
  if (account.ok) return { token, redirectTo, email: account.data.email, invalid: null };
  if (account.status >= 500) throw serviceUnavailable();
  return { token, redirectTo, email: null, invalid: (account.code === "sso_token_invalid" && account.message) || SSO_FAILED };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readFormData(request);
  const token = String(formData.get("token") ?? "");
  const redirectTo = safeRedirect(formData.get("redirect"));
  if (await getSessionToken(request)) return redirect(redirectTo);
  // Refused posts: the toast, and the same words in the page's alert (serverErrorInPage, issue 21).
  if (!token) return data({ serverError: BROKEN_LINK, serverErrorInPage: true }, { status: 400 });
  const result = await createApiClient(request, context).post("/api/auth/sso-login-with-token", { body: { access_token: token } });
  if (!result.ok) {
    return data({ serverError: result.message || SSO_FAILED, serverErrorInPage: true }, { status: result.status < 500 ? result.status : 503 });
  }
  const headers = new Headers();
  headers.append("Set-Cookie", await commitTokenSession(request, result.data.token));
  // The account's language comes with it (or the account takes the page's): issue 36.
  const languageSet = await languageOnSignIn(request, context, result.data.token, result.data.user);
  if (languageSet) headers.append("Set-Cookie", languageSet);
  appendDeviceCookie(headers, request);
  return redirect(redirectTo, { headers });
}

export default function SsoLoginPage() {
  const { t } = useTranslation("auth");
  const { token, redirectTo, email, invalid } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();

  if (!token) {
    return (
      <AuthPage className="auth-card centered">
        <h1 className="auth-title">{t(BROKEN_LINK)}</h1>
        <Link to="/login" className="button">
          {t("auth.sso.goToSignIn")}
        </Link>
      </AuthPage>
    );
  }

  if (invalid || actionData?.serverError) {
    return (
      <AuthPage className="auth-card centered">
        <h1 className="auth-title">{t("auth.sso.couldNotSignIn")}</h1>
        {/* A refused post's message is also the page's toast; a link refused on arrival shows it only here. */}
        <FormAlert errors={[actionData?.serverError ?? invalid ?? SSO_FAILED]} />
        <p className="muted">{t("auth.sso.usedOrExpired")}</p>
        <Link to="/login" className="button">
          {t("auth.sso.goToSignIn")}
        </Link>
      </AuthPage>
    );
  }

  const submitting = navigation.state !== "idle" && navigation.formMethod?.toLowerCase() === "post";
  return (
    <AuthPage className="auth-card centered">
      {submitting ? (
        <>
          <h1 className="auth-title">{t("auth.sso.redirecting")}</h1>
          <Spinner />
        </>
      ) : (
        <>
          <h1 className="auth-title">{t("auth.sso.title")}</h1>
          <p className="muted">
            <Trans t={t} i18nKey="auth.sso.whose" values={{ email }} components={{ strong: <strong /> }} />
          </p>
        </>
      )}
      <Form method="post">
        <input type="hidden" name="token" value={token} />
        <input type="hidden" name="redirect" value={redirectTo} />
        <button type="submit" className="button button--primary button--block" disabled={submitting}>
          {t("auth.sso.continueAs", { email })}
        </button>
      </Form>
      <p className="auth-footer">
        <Link to="/login">{t("auth.sso.notYou")}</Link>
      </p>
    </AuthPage>
  );
}
