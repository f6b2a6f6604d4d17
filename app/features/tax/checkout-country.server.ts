import type { createApiClient } from "~/utils/api.server";
import { translatorOf } from "~/i18n/i18n.server";
import type { CheckoutFlow } from "~/utils/flow.server";
import { countryOfBrowser } from "./browser-country";
import { COUNTRIES } from "~/utils/countries.generated";

// The checkout's country (issue 35): which country the quotes are taxed for, and saving it as the
// account's billing country when the customer pays. The order: the country chosen on this checkout
// (the __flow cookie), the account's saved billing country, the browser's language, the United States.
// The API has the list of countries (generated into the bundle: countries.generated.ts) and the tax; the
// portal only picks which country to ask about.

type Api = ReturnType<typeof createApiClient>;

const KNOWN: ReadonlySet<string> = new Set(COUNTRIES.map((c) => c.code));
const IN_THE_EU: ReadonlySet<string> = new Set(COUNTRIES.filter((c) => c.eu).map((c) => c.code));

/** Whether `code` is in the API's list of countries (app/utils/countries.generated.ts). */
export function isKnownCountry(code: string): boolean {
  return KNOWN.has(code);
}

/** Whether the API may tax a sale to `code` (it taxes in the EU only: docs/decisions/061). */
export function mayBeTaxed(code: string): boolean {
  return IN_THE_EU.has(code);
}

/**
 * The country the page offers when nothing is chosen on this checkout and the account has saved none:
 * the region of the browser's language, else the United States (GET /api/account/checkout's
 * `default_country`: the API puts the saved billing country before it).
 */
export function browserCountry(request: Request): string {
  return countryOfBrowser(request.headers.get("Accept-Language"), isKnownCountry);
}

/** The country chosen on this checkout (the __flow cookie), if the list still has it (an old cookie, a list that changed). */
export function chosenCountry(flow: Pick<CheckoutFlow, "country"> | null): string | null {
  return flow?.country && isKnownCountry(flow.country) ? flow.country : null;
}

/** 'Your country could not be saved, …' (a catalogue key; saveCheckoutCountry answers it translated). */
export const COUNTRY_NOT_SAVED = "checkout.country.notSaved";

/**
 * Before a payment, with the account's token: the checkout's country becomes the account's billing
 * country, so that the API taxes the payment as the page quoted it (every gateway's payment reads the
 * saved billing details). A country chosen here is saved (the API keeps the VAT number when the country
 * is the same); with none chosen, a saved country stays, and an account without one gets the country
 * the page showed (the browser's, else the United States). Answers a message when it could not be
 * saved (the payment then waits), else null.
 */
export async function saveCheckoutCountry(api: Api, request: Request, flow: Pick<CheckoutFlow, "country"> | null): Promise<string | null> {
  let country = chosenCountry(flow);
  if (!country) {
    const details = await api.get("/api/account/billing-details");
    if (!details.ok) return translatorOf(request)(COUNTRY_NOT_SAVED);
    if (details.data.billing_details?.country) return null;
    country = browserCountry(request);
  }
  const saved = await api.put("/api/account/billing-country", { body: { country } });
  return saved.ok ? null : saved.message || translatorOf(request)(COUNTRY_NOT_SAVED);
}
