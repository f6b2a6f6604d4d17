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
export function pageMeta(args: MetaArgs, titleKey: string, descriptionKey?: string, values?: Record<string, string | number>): MetaDescriptor[];
/** @deprecated English only: being replaced by the catalogue's keys (issue 36). */
export function pageMeta(title: string, description?: string): MetaDescriptor[];
export function pageMeta(
  first: MetaArgs | string,
  second?: string,
  third?: string,
  values?: Record<string, string | number>,
): MetaDescriptor[] {
  if (typeof first === "string") return [{ title: first }, { name: "description", content: second ?? "Your VPN account: plans, billing, connected devices and the apps." }];
  const t = translatorForPage(languageOfMatches(first.matches));
  return [{ title: t(second!, values) }, { name: "description", content: t(third ?? "meta.site.description", values) }];
}
