// The 'Billing details' tab's words and ids (issue 35).

export const BILLING_DETAILS_FORM = "billing-details";
export const BILLING_DETAILS_HREF = "/billing?tab=billing-details";

export const BILLING_DETAILS_TEXT = {
  intro: "Your invoices are made out to these details. An invoice keeps the details it was made with.",
  saved: "Billing details saved.",
  saveFailed: "Your billing details could not be saved. Please try again in a moment.",
  fetchFailed: "Failed to fetch billing details",
  vatHint: "EU businesses only. Leave it empty otherwise.",
  chooseCountry: "Choose your country",
  checked: "Checked: registered in the EU's VAT register.",
  unchecked: "Saved; not checked against the EU's VAT register.",
} as const;
