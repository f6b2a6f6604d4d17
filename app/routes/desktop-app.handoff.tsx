import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useEffect } from "react";
import { AuthPage } from "~/components/auth-page";
import { appSchemeUrl, desktopHandoffCookie, type DesktopHandoff } from "~/utils/identity/desktop.server";
import { pageMeta } from "~/utils/meta";

// The end of the desktop sign-in: the browser is sent to the app's custom scheme carrying the
// session token. Where the scheme does not open (a known failure on some Linux desktops), the page
// keeps an 'Open the app' link and a short one-time code to type into the app.

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  ...pageMeta("Return to the app | VPN Account", "You are signed in: return to the VPN app."),
  // Without JavaScript the browser still goes to the app: a refresh to the scheme URL.
  ...(data ? [{ httpEquiv: "refresh", content: `0; url=${data.appUrl}` } as const] : []),
];

export async function loader({ request }: LoaderFunctionArgs) {
  const handoff = (await desktopHandoffCookie().parse(request.headers.get("Cookie"))) as DesktopHandoff | null;
  if (!handoff?.token) throw redirect("/login");
  return { appUrl: appSchemeUrl(handoff.token), code: handoff.code };
}

export default function DesktopHandoffPage() {
  const { appUrl, code } = useLoaderData<typeof loader>();
  useEffect(() => {
    window.location.href = appUrl;
  }, [appUrl]);
  return (
    <AuthPage title="You're signed in" className="auth-card centered">
      <p className="muted">Your browser should now open the app. If it doesn&apos;t, use the button below.</p>
      <a href={appUrl} className="button button--primary button--block">
        Open the app
      </a>
      {code ? (
        <div className="handoff-code">
          <p className="muted">Or type this code in the app (valid for 5 minutes):</p>
          <p className="code-display">{code}</p>
        </div>
      ) : null}
    </AuthPage>
  );
}
