import { portalConfig, type ProviderName } from "../../config.server";
import { stripControlCharacters } from "../../schemas/text";

export const PROVIDER_LABELS: Record<ProviderName, string> = { google: "Google", apple: "Apple" };

/** The provider named in the path, when it exists here: a provider that is off answers 404 like an unknown one. */
export function providerParam(value: string | undefined): ProviderName {
  if ((value === "google" || value === "apple") && portalConfig().identity[value] !== null) return value;
  throw new Response("Not Found", { status: 404 });
}

/**
 * Device fields the desktop app puts in the page's query (identity §3, desktop payload). Anyone can
 * make such a link, and the device list shows them: control and direction characters are removed
 * (the API would refuse them, and no one could correct them here).
 */
export function deviceFieldsFrom(url: URL) {
  const pick = (name: string) => stripControlCharacters(url.searchParams.get(name) ?? "").slice(0, 100) || undefined;
  return {
    device_os: pick("device_os"),
    device_brand: pick("device_brand"),
    device_model: pick("device_model"),
    device_os_version: pick("device_os_version"),
  };
}
