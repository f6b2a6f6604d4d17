import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { PublicShell } from "./public-shell";

/** The 404 page (commerce §6), in the public frame: a lost visitor still finds the plans, help and sign-in. */
export function NotFound({ signedIn = false }: { signedIn?: boolean }) {
  const { t } = useTranslation("pages");
  return (
    <PublicShell signedIn={signedIn}>
      <main className="error-page">
        <h1>{t("pages.notFound.title")}</h1>
        <Link to="/" className="button">
          {t("pages.notFound.backHome")}
        </Link>
      </main>
    </PublicShell>
  );
}
