import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { lazy, Suspense } from "react";
import { useTranslation } from "react-i18next";
import { AuthPage } from "~/components/auth-page";
import { pageMeta } from "~/utils/meta";
import { loginAction, loginLoader } from "./login.server";
import { SignInForm } from "./sign-in-form";

export const meta: MetaFunction = (args) =>
  new URLSearchParams(args.location.search).get("tab") === "signup"
    ? pageMeta(args, "auth.meta.signUp.title", "auth.meta.signUp.description")
    : pageMeta(args, "auth.meta.signIn.title", "auth.meta.signIn.description");

// The loader and action live in login.server.ts: one server module per route keeps the client build
// to one empty stand-in for it, instead of one shared chunk per server module (/login's JS budget).
export const loader = (args: LoaderFunctionArgs) => loginLoader(args);
export const action = (args: ActionFunctionArgs) => loginAction(args);

// The sign-up tab's code (its three steps, the code input and its countdown) loads when that tab is shown, not
// with the sign-in tab (/login's JS budget). The server renders it whole; in the browser its HTML stays as it
// is, typed input included, until the code has come and hydrates it. The tabs switch in a transition (Remix
// navigations are), so the sign-in form stays until the sign-up form can replace it: nothing flashes empty.
const loadSignUp = () => import("./sign-up");
const SignUp = lazy(() => loadSignUp().then((module) => ({ default: module.SignUp })));

export default function LoginPage() {
  const { t } = useTranslation("auth");
  const { signup } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const tab = signup ? "signup" : "signin";
  const oldurl = searchParams.get("oldurl") ?? "";
  const tabHref = (name: "signin" | "signup") => {
    const params = new URLSearchParams();
    if (name === "signup") params.set("tab", "signup");
    if (oldurl) params.set("oldurl", oldurl);
    const query = params.toString();
    return query ? `/login?${query}` : "/login";
  };

  return (
    <AuthPage title={tab === "signin" ? t("auth.login.welcomeBack") : t("auth.login.createAccount")}>
      <div role="tablist" aria-label={t("auth.login.tabs")} className="tabs">
        <Link role="tab" id="login-tab-signin" aria-selected={tab === "signin"} to={tabHref("signin")} className="tab" replace>
          {t("auth.login.tab.signIn")}
        </Link>
        <Link
          role="tab"
          id="login-tab-signup"
          aria-selected={tab === "signup"}
          to={tabHref("signup")}
          className="tab"
          replace
          onPointerEnter={loadSignUp}
          onFocus={loadSignUp}
        >
          {t("auth.login.tab.signUp")}
        </Link>
      </div>
      {/* Named by the active tab, which is how a checker (and assistive technology) pairs them; a div, not a
          section: the panel has no heading of its own. */}
      <div role="tabpanel" aria-labelledby={`login-tab-${tab}`}>
        {/* One boundary around both tabs, mounted throughout: a transition never shows its (empty) fallback. */}
        <Suspense fallback={null}>{signup ? <SignUp state={signup} /> : <SignInForm oldurl={oldurl} />}</Suspense>
      </div>
      {/* '/' sends a visitor here: the way to the plans (issue 21). */}
      <p className="auth-footer">
        {t("auth.login.lookingForPlan")} <Link to="/pricing">{t("auth.login.seePlans")}</Link>
      </p>
    </AuthPage>
  );
}
