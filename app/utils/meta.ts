import type { MetaDescriptor } from "@remix-run/node";
import { languageOfMatches, translatorForPage } from "../i18n/translate";

// A route's meta replaces its parents' (Remix 2), so every page states its own title and
// description (search engines show the description; Lighthouse's SEO audit asks for one), in the
// page's language.

type MetaArgs = { matches: ReadonlyArray<{ id: string; data?: unknown }> };

/**
 * The page's title and description from the catalogue: `titleKey` and `descriptionKey` (the site's
 * description when omitted), with `values` for their variables.
 */
export function pageMeta(
  { matches }: MetaArgs,
  titleKey: string,
  descriptionKey = "meta.site.description",
  values?: Record<string, string | number>,
): MetaDescriptor[] {
  const t = translatorForPage(languageOfMatches(matches));
  return [{ title: t(titleKey, values) }, { name: "description", content: t(descriptionKey, values) }];
}
