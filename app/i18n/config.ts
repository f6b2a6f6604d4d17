import type { InitOptions } from "i18next";
import { LANGUAGES, type Language } from "./languages";

// One i18next configuration for the server's instances and the browser's (docs/decisions/065).

/**
 * The catalogue's files, one per part of the portal (app/locales/<language>/<namespace>.json). Keys are
 * flat and unique across them (tests/unit/locales.test.ts), so a component reaches any key with `t`
 * whatever namespace it named: every namespace is a fallback of every other.
 */
export const NAMESPACES = ["common", "auth", "pricing", "checkout", "payments", "billing", "account", "vpn", "pages"] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** A language's strings, by namespace: what the server holds and what the browser downloads for its language. */
export type Catalogue = Record<Namespace, Record<string, string>>;

export function i18nOptions(language: Language, catalogue: Catalogue): InitOptions {
  return {
    lng: language,
    supportedLngs: [...LANGUAGES],
    // Each instance holds its own language only, in the server and in the browser alike (the browser
    // downloads one language): a missing key shows as the key, and the catalogue test fails on it first.
    fallbackLng: false,
    resources: { [language]: catalogue },
    ns: [...NAMESPACES],
    defaultNS: "common",
    fallbackNS: [...NAMESPACES],
    // Keys are flat ('login.title'), and a text that is no key (a message the API already gave in the
    // language) passes through `t` as it is: no part of it is read as a namespace or a path.
    keySeparator: false,
    nsSeparator: false,
    // React escapes what it renders.
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
    // Synchronous init: the resources are at hand, and the first render must not wait.
    initImmediate: false,
    react: { useSuspense: false },
  };
}
