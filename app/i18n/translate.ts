import type { TFunction } from "i18next";
import { DEFAULT_LANGUAGE, isLanguage, type Language } from "./languages";

// `t` for code that is neither a component nor a loader (a route's meta): entry.server registers the
// server's instances, entry.client the browser's one. Components use react-i18next's useTranslation;
// loaders and actions translatorOf(request) (i18n.server.ts).

let translatorForLanguage: ((language: Language) => TFunction) | null = null;

export function registerTranslators(translators: (language: Language) => TFunction) {
  translatorForLanguage = translators;
}

export function translatorForPage(language: Language): TFunction {
  if (!translatorForLanguage) throw new Error("No translators registered: entry.server or entry.client registers them");
  return translatorForLanguage(language);
}

/** The page's language, as the root loader said it (a route's meta reads it from its matches). */
export function languageOfMatches(matches: ReadonlyArray<{ id: string; data?: unknown }>): Language {
  const root = matches.find((match) => match.id === "root")?.data as { language?: unknown } | undefined;
  return isLanguage(root?.language) ? root.language : DEFAULT_LANGUAGE;
}
