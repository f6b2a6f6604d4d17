import { createContext, type ReactNode, useContext } from "react";
import type { Language } from "./languages";

/**
 * The page's language and the address of its catalogue, given to the document by entry.server and,
 * read back from `<html lang data-catalogue>`, by entry.client: the root layout writes both.
 */
export interface PageLanguage {
  language: Language;
  catalogueUrl: string;
}

const PageLanguageContext = createContext<PageLanguage | null>(null);

export function PageLanguageProvider({ value, children }: { value: PageLanguage; children: ReactNode }) {
  return <PageLanguageContext.Provider value={value}>{children}</PageLanguageContext.Provider>;
}

export function usePageLanguage(): PageLanguage {
  const value = useContext(PageLanguageContext);
  if (!value) throw new Error("usePageLanguage needs the PageLanguageProvider of entry.server or entry.client");
  return value;
}
