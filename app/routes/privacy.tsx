import type { MetaFunction } from "@remix-run/node";
import { useTranslation } from "react-i18next";
import { StaticPage, staticPageHeaders } from "~/components/static-page";
import { pageMeta } from "~/utils/meta";

export const meta: MetaFunction = (args) => pageMeta(args, "pages.meta.privacy.title", "pages.meta.privacy.description");
export const headers = staticPageHeaders;

export default function PrivacyPage() {
  const { t } = useTranslation("pages");
  return (
    <StaticPage title={t("pages.privacy.title")}>
      <p>{t("pages.privacy.text")}</p>
    </StaticPage>
  );
}
