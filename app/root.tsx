import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import {
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import { Toasts } from "./components/toasts";
import { NotFound } from "./components/not-found";
import stylesUrl from "./styles/app.css";
import { requireApiReachable } from "./utils/api.server";
import { portalConfig } from "./config.server";
import { getToast } from "./utils/toast.server";
import { takeFormError } from "./utils/form-error.server";
import { useNonce } from "./utils/nonce-provider";
import { pageMeta } from "./utils/meta";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: stylesUrl },
  { rel: "icon", href: "/favicon.ico", sizes: "any" },
];

export const meta: MetaFunction = () => pageMeta("VPN Account");

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ toast, headers }, { formError, setCookie }] = await Promise.all([getToast(request), takeFormError(request), requireApiReachable(request)]);
  // getToast re-commits its cookie on every request; only pass it on when a toast was consumed, so
  // ordinary pages set no cookie (and public ones stay cacheable).
  const { sandbox, identity } = portalConfig();
  if (setCookie) headers.append("Set-Cookie", setCookie);
  return data(
    {
      // A toast whose words the page also shows by its form (issue 21) is only the visual echo of them.
      toast: toast ? { message: toast.message, type: toast.type, echo: formError?.message === toast.message } : null,
      // An error a redirect carried to a form of this page (components/form-alert.tsx).
      formError,
      sandbox,
      // The sign-in providers that exist here (off outside sandbox mode without credentials).
      signInProviders: (["google", "apple"] as const).filter((provider) => identity[provider] !== null),
    },
    toast || setCookie ? { headers } : undefined,
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const rootData = useRouteLoaderData<typeof loader>("root");
  useEffect(() => {
    // Lets tests (and CSS) know React has taken over the server HTML.
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {rootData?.sandbox ? (
          <aside className="sandbox-banner" aria-label="Sandbox mode">
            <p>Sandbox: no real payments or emails</p>
          </aside>
        ) : null}
        <Toasts toasts={rootData?.toast ? [rootData.toast] : []} />
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  if (isRouteErrorResponse(error) && error.status === 503) {
    return (
      <main className="error-page">
        <h1>Service unavailable</h1>
        <p>{typeof error.data === "string" && error.data ? error.data : "Please try again in a moment."}</p>
        <Link to="/" reloadDocument>
          Try again
        </Link>
      </main>
    );
  }
  if (isRouteErrorResponse(error) && error.status >= 400 && error.status < 500) {
    return (
      <main className="error-page">
        <h1>We couldn't handle that request</h1>
        <p>The page didn't expect what was sent ({error.status}). Please go back and try again.</p>
        <Link to="/" reloadDocument>
          Back to home
        </Link>
      </main>
    );
  }
  // No stack or internal message reaches the page: the server log has them.
  return (
    <main className="error-page">
      <h1>Unexpected Application Error!</h1>
      <p>Something went wrong on our side. Please try again.</p>
      <Link to="/" reloadDocument>
        Back to home
      </Link>
    </main>
  );
}
