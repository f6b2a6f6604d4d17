// The 'Billing details' tab's words and ids (issue 35).

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

export const BILLING_DETAILS_TEXT = {
  intro: "Your invoices are made out to these details. An invoice keeps the details it was made with.",
  saved: "Billing details saved.",
  saveFailed: "Your billing details could not be saved. Please try again in a moment.",
  fetchFailed: "Failed to fetch billing details",
  vatHint: "EU businesses only. Leave it empty otherwise.",
  chooseCountry: "Choose your country",
  checked: "Checked: registered in the EU's VAT register.",
  unchecked: "Saved; not checked against the EU's VAT register.",
  backToCheckout: "Saving takes you back to your checkout, with the tax for these details.",
} as const;
