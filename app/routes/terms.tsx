import type { MetaFunction } from "@remix-run/node";
import { useTranslation } from "react-i18next";
import { StaticPage, staticPageHeaders } from "~/components/static-page";
import { pageMeta } from "~/utils/meta";

export const meta: MetaFunction = (args) => pageMeta(args, "pages.meta.terms.title", "pages.meta.terms.description");
export const headers = staticPageHeaders;

export default function TermsPage() {
  const { t } = useTranslation("pages");
  return (
    <StaticPage title={t("pages.terms.title")}>
      <p>{t("pages.terms.text")}</p>
    </StaticPage>
  );
}
