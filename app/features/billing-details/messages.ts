// The 'Billing details' tab's words (catalogue keys) and ids (issue 35).

export const BILLING_DETAILS_FORM = "billing-details";
export const BILLING_DETAILS_HREF = "/billing?tab=billing-details";

/** Where saved billing details may send the customer back to: a checkout (issue 35: a business adds its VAT number before paying). */
const CHECKOUT_PATH = /^\/(subscription\/)?payment\/\d{1,9}$/;

/** The checkout to go back to after saving, or null (anything else is ignored). */
export function checkoutReturnOf(value: FormDataEntryValue | string | null | undefined): string | null {
  return typeof value === "string" && CHECKOUT_PATH.test(value) ? value : null;
}

/** The tab, opened from the checkout `returnTo` (it goes back there once saved). */
export function billingDetailsHref(returnTo: string | null = null): string {
  return returnTo ? `${BILLING_DETAILS_HREF}&return_to=${encodeURIComponent(returnTo)}` : BILLING_DETAILS_HREF;
}

/** The tab's words: catalogue keys (app/locales/<language>/billing.json), shown with `t`. */
export const BILLING_DETAILS_TEXT = {
  intro: "billing.details.intro",
  saved: "billing.details.saved",
  saveFailed: "billing.details.saveFailed",
  fetchFailed: "billing.details.fetchFailed",
  vatHint: "billing.details.vatHint",
  chooseCountry: "billing.details.chooseCountry",
  checked: "billing.details.vatChecked",
  unchecked: "billing.details.vatUnchecked",
  backToCheckout: "billing.details.backToCheckout",
} as const;
