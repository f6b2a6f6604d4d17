import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { publicCache } from "~/utils/cache-headers";
import { PublicShell } from "./public-shell";

/** Public pages that are the same for everyone (a CDN may cache them). */
export const staticPageHeaders = publicCache("public, max-age=300, s-maxage=3600");

/**
 * A page of text (terms, privacy, help; `title` in the page's language) in the public frame. `signedIn` only on a page that knows it and is not
 * cached publicly (see PublicShell).
 */
export function StaticPage({ title, children, signedIn = false }: { title: string; children: ReactNode; signedIn?: boolean }) {
  const { t } = useTranslation();
  return (
    <PublicShell signedIn={signedIn}>
      <main className="page prose">
        <h1>{title}</h1>
        {children}
        <Link to="/login?tab=signup">{t("common.staticPage.backToSignUp")}</Link>
      </main>
    </PublicShell>
  );
}
