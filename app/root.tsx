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
import { useTranslation } from "react-i18next";
import { SiteFooter } from "./components/site-footer";
import { Toasts } from "./components/toasts";
import { languageOf } from "./i18n/i18n.server";
import { usePageLanguage } from "./i18n/page-language";
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

export const meta: MetaFunction = (args) => pageMeta(args, "meta.site.title");

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ toast, headers }, { formError, setCookie }] = await Promise.all([getToast(request), takeFormError(request), requireApiReachable(request)]);
  // getToast re-commits its cookie on every request; only pass it on when a toast was consumed, so
  // ordinary pages set no cookie (and public ones stay cacheable).
  const { sandbox, identity } = portalConfig();
  if (setCookie) headers.append("Set-Cookie", setCookie);
  return data(
    {
      // The page's language (i18n/languages.ts): the routes' meta reads it here.
      language: languageOf(request),
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
  const { t } = useTranslation();
  const { language, catalogueUrl } = usePageLanguage();
  useEffect(() => {
    // Lets tests (and CSS) know React has taken over the server HTML.
    document.documentElement.dataset.hydrated = "true";
  }, []);
  // The page's language changed under it (a sign-in brought the account's, after a client-side
  // navigation): the document and its words are the old language's, so the page is loaded again.
  const loadedLanguage = rootData?.language;
  useEffect(() => {
    if (loadedLanguage && loadedLanguage !== language) window.location.reload();
  }, [loadedLanguage, language]);
  return (
    <html lang={language} data-catalogue={catalogueUrl}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        {/* The page's words for hydration (entry.client), fetched beside the scripts. */}
        <link rel="preload" href={catalogueUrl} as="fetch" crossOrigin="anonymous" />
        <Links />
      </head>
      <body>
        {rootData?.sandbox ? (
          <aside className="sandbox-banner" aria-label={t("sandbox.label")}>
            <p>{t("sandbox.banner")}</p>
          </aside>
        ) : null}
        <Toasts toasts={rootData?.toast ? [rootData.toast] : []} />
        {children}
        <SiteFooter />
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
  const { t } = useTranslation();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  if (isRouteErrorResponse(error) && error.status === 503) {
    return (
      <main className="error-page">
        <h1>{t("error.unavailable.title")}</h1>
        <p>{typeof error.data === "string" && error.data ? t(error.data) : t("error.unavailable.text")}</p>
        <Link to="/" reloadDocument>
          {t("error.tryAgain")}
        </Link>
      </main>
    );
  }
  if (isRouteErrorResponse(error) && error.status >= 400 && error.status < 500) {
    return (
      <main className="error-page">
        <h1>{t("error.badRequest.title")}</h1>
        <p>{t("error.badRequest.text", { status: error.status })}</p>
        <Link to="/" reloadDocument>
          {t("error.backHome")}
        </Link>
      </main>
    );
  }
  // No stack or internal message reaches the page: the server log has them.
  return (
    <main className="error-page">
      <h1>{t("error.unexpected.title")}</h1>
      <p>{t("error.unexpected.text")}</p>
      <Link to="/" reloadDocument>
        {t("error.backHome")}
      </Link>
    </main>
  );
}
