import { useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { LANGUAGE_NAMES, LANGUAGES } from "~/i18n/languages";
import { usePageLanguage } from "~/i18n/page-language";

/**
 * Every page's foot: the 'Language' select. A labelled region, not a second <footer>: the page shells
 * have their own footer (the contentinfo landmark), and a page has one. A plain form (routes/language.tsx) that works without
 * JavaScript; with it, choosing a language sends the form at once. Each language is offered in its
 * own name and marked with its `lang`, so that screen readers read it in that language.
 */
export function SiteFooter() {
  const { t } = useTranslation();
  const { language } = usePageLanguage();
  const location = useLocation();
  return (
    <section className="site-footer" aria-label={t("footer.language")}>
      <form method="post" action="/language" className="language-form">
        <input type="hidden" name="returnTo" value={`${location.pathname}${location.search}`} />
        <label htmlFor="site-language">{t("footer.language")}</label>
        <select id="site-language" name="language" defaultValue={language} onChange={(event) => event.currentTarget.form?.requestSubmit()}>
          {LANGUAGES.map((code) => (
            <option key={code} value={code} lang={code}>
              {LANGUAGE_NAMES[code]}
            </option>
          ))}
        </select>
        <button type="submit" className="button">
          {t("footer.changeLanguage")}
        </button>
      </form>
    </section>
  );
}
