import type { MetaDescriptor } from "@remix-run/node";

// A route's meta replaces its parents' (Remix 2), so every page states its own title and
// description (search engines show the description; Lighthouse's SEO audit asks for one).

const SITE_DESCRIPTION = "Your VPN account: plans, billing, connected devices and the apps.";

export function pageMeta(title: string, description: string = SITE_DESCRIPTION): MetaDescriptor[] {
  return [{ title }, { name: "description", content: description }];
}
