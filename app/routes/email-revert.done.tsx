import type { MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Logo } from "~/components/logo";
import { pageMeta } from "~/utils/meta";

// After the link in 'Your email address was changed' did its work (app/routes/email-revert.$token.tsx).

export const meta: MetaFunction = (args) => pageMeta(args, "auth.meta.emailRevertDone.title", "auth.meta.emailRevertDone.description");

export default function EmailRevertDonePage() {
  const { t } = useTranslation("auth");
  return (
    <div className="auth-page">
      <header className="auth-header">
        <Logo />
      </header>
      <main className="auth-card">
        <h1 className="auth-title">{t("auth.emailRevertDone.title")}</h1>
        <p role="status">{t("auth.emailRevertDone.status")}</p>
        <p className="muted">{t("auth.emailRevertDone.advice")}</p>
        <Link to="/login" className="button button--primary">
          {t("auth.emailRevertDone.signIn")}
        </Link>
      </main>
    </div>
  );
}
