import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { AuthPage } from "~/components/auth-page";
import { appSchemeUrl, desktopHandoffCookie, type DesktopHandoff } from "~/utils/identity/desktop.server";
import { pageMeta } from "~/utils/meta";

// The end of the desktop sign-in: the browser is sent to the app's custom scheme carrying the
// session token. Where the scheme does not open (a known failure on some Linux desktops), the page
// keeps an 'Open the app' link and a short one-time code to type into the app.

export const meta: MetaFunction<typeof loader> = (args) => [
  ...pageMeta(args, "auth.meta.desktopHandoff.title", "auth.meta.desktopHandoff.description"),
  // Without JavaScript the browser still goes to the app: a refresh to the scheme URL.
  ...(args.data ? [{ httpEquiv: "refresh", content: `0; url=${args.data.appUrl}` } as const] : []),
];

export async function loader({ request }: LoaderFunctionArgs) {
  const handoff = (await desktopHandoffCookie().parse(request.headers.get("Cookie"))) as DesktopHandoff | null;
  if (!handoff?.token) throw redirect("/login");
  return { appUrl: appSchemeUrl(handoff.token), code: handoff.code };
}

export default function DesktopHandoffPage() {
  const { t } = useTranslation("auth");
  const { appUrl, code } = useLoaderData<typeof loader>();
  useEffect(() => {
    window.location.href = appUrl;
  }, [appUrl]);
  return (
    <AuthPage title={t("auth.handoff.title")} className="auth-card centered">
      <p className="muted">{t("auth.handoff.text")}</p>
      <a href={appUrl} className="button button--primary button--block">
        {t("auth.handoff.open")}
      </a>
      {code ? (
        <div className="handoff-code">
          <p className="muted">{t("auth.handoff.code")}</p>
          <p className="code-display">{code}</p>
        </div>
      ) : null}
    </AuthPage>
  );
}
