import type { createApiClient } from "~/utils/api.server";
import type { CheckoutFlow } from "~/utils/flow.server";
import { checkoutCountry } from "./browser-country";
import type { CountryOption } from "./country-form";

// The checkout's country (issue 35): which country the quotes are taxed for, and saving it as the
// account's billing country when the customer pays. The order: the country chosen on this checkout
// (the __flow cookie), the account's saved billing country, the browser's language, the United States.
// The API has the list of countries and the tax; the portal only picks which country to ask about.

type Api = ReturnType<typeof createApiClient>;

export type CheckoutCountry = {
  /** The country the page's quotes are taxed for. */
  code: string;
  /** The API's one list of countries (GET /api/account/billing-details or /api/countries). */
  countries: CountryOption[];
};

/** The API's countries with the account's saved billing country (signed in), or the public list (a visitor). */
export async function countriesOf(api: Api, token: string | null): Promise<{ countries: CountryOption[]; saved: string | null } | null> {
  if (token) {
    const answer = await api.get("/api/account/billing-details");
    if (!answer.ok) return null;
    return { countries: answer.data.countries, saved: answer.data.billing_details?.country ?? null };
  }
  const answer = await api.get("/api/countries");
  return answer.ok ? { countries: answer.data.countries, saved: null } : null;
}

/** The checkout's country for the page: chosen, saved, the browser's, the US (only codes in the API's list). */
export function pickCountry(request: Request, flow: Pick<CheckoutFlow, "country">, list: { countries: CountryOption[]; saved: string | null }): CheckoutCountry {
  const known = new Set(list.countries.map((c) => c.code));
  const code = checkoutCountry(
    { chosen: flow.country, saved: list.saved, acceptLanguage: request.headers.get("Accept-Language") },
    (c) => known.has(c),
  );
  return { code, countries: list.countries };
}

export const COUNTRY_NOT_SAVED = "Your country could not be saved, so the tax of this payment is not certain. Please try again.";

/**
 * Before a payment, with the account's token: the checkout's country becomes the account's billing
 * country, so that the API taxes the payment as the page quoted it (every gateway's payment reads the
 * saved billing details). A country chosen here is saved (the API keeps the VAT number when the country
 * is the same); with none chosen, a saved country stays, and an account without one gets the country
 * the page showed (the browser's, else the United States). Answers a message when it could not be
 * saved (the payment then waits), else null.
 */
export async function saveCheckoutCountry(api: Api, request: Request, flow: Pick<CheckoutFlow, "country"> | null, token: string): Promise<string | null> {
  let country = flow?.country ?? null;
  if (!country) {
    const list = await countriesOf(api, token);
    if (!list) return COUNTRY_NOT_SAVED;
    if (list.saved) return null;
    country = pickCountry(request, {}, list).code;
  }
  const saved = await api.put("/api/account/billing-country", { body: { country } });
  return saved.ok ? null : saved.message || COUNTRY_NOT_SAVED;
}
