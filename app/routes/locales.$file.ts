import type { LoaderFunctionArgs } from "@remix-run/node";
import { catalogueOf } from "~/i18n/i18n.server";
import { isLanguage } from "~/i18n/languages";

// A language's catalogue for the browser (entry.client hydrates with it): /locales/<language>.<hash>.json.
// Its name changes with its content, so it is cached for good, by browsers and a CDN alike (it is the
// same for everybody: server/cache-policy.ts lets it through as shared).
export function loader({ params }: LoaderFunctionArgs) {
  const [language, hash, extension] = (params.file ?? "").split(".");
  const catalogue = isLanguage(language) ? catalogueOf(language) : null;
  if (!catalogue || extension !== "json" || catalogue.url !== `/locales/${language}.${hash}.json`) {
    throw new Response("Not Found", { status: 404 });
  }
  return new Response(catalogue.body, {
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "public, max-age=31536000, immutable" },
  });
}
