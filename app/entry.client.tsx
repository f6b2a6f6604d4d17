import { RemixBrowser } from "@remix-run/react";
import { createInstance } from "i18next";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider, initReactI18next } from "react-i18next";
import { type Catalogue, i18nOptions } from "./i18n/config";
import { DEFAULT_LANGUAGE, isLanguage } from "./i18n/languages";
import { PageLanguageProvider } from "./i18n/page-language";
import { registerTranslators } from "./i18n/translate";

// The page hydrates in the language the server rendered it in (<html lang>), with that language's
// catalogue only (<html data-catalogue>, preloaded by the head; cached for good by its hashed name).
async function hydrate() {
  const root = document.documentElement;
  const language = isLanguage(root.lang) ? root.lang : DEFAULT_LANGUAGE;
  const catalogueUrl = root.dataset.catalogue ?? "";
  const response = await fetch(catalogueUrl);
  // Without its words the page cannot hydrate the same: it stays the server's page, whose forms and
  // links work without JavaScript.
  if (!response.ok) return;
  const catalogue = (await response.json()) as Catalogue;
  const i18n = createInstance();
  await i18n.use(initReactI18next).init(i18nOptions(language, catalogue));
  registerTranslators(() => i18n.t);
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <I18nextProvider i18n={i18n}>
          <PageLanguageProvider value={{ language, catalogueUrl }}>
            <RemixBrowser />
          </PageLanguageProvider>
        </I18nextProvider>
      </StrictMode>,
    );
  });
}

void hydrate();
