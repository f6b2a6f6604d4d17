// Texts and addresses of the 'Payment Method' tab (commerce §5, §8), shared by server and browser.

export const TAB_PATH = "/billing?tab=payment-method";

/** Commerce §9: payment methods page size. */
export const PER_PAGE = 6;

export const PAYMENT_METHOD_MESSAGES = {
  added: "New Payment Method Added Successfully.",
  updated: "Payment Method Updated Successfully.",
  deleted: "Payment Method Deleted Successfully.",
  // Sic: the spec's wording (commerce §8).
  defaultSet: "Payment Method Set as Defaut Successfully.",
  addFailed: "Failed to add New Payment Method",
  updateFailed: "Failed to update Payment Method",
  deleteFailed: "Failed to delete Payment Method",
  defaultFailed: "Failed to mark Payment Method as Default",
  fetchFailed: "Failed to fetch Payment Methods",
  idRequired: "Payment method ID is required",
  name: "Please enter the cardholder name",
  nameControls: "Remove the control characters from the cardholder name.",
  postal: "Please enter the postal code",
  card: "Please complete your card details",
  expiry: "Please enter the expiry as MM / YY",
  empty: "No payment methods yet",
} as const;

/** The tab's address with its view state (page, the card being deleted or edited). */
export function tabHref(view: { page?: number; delete?: number; edit?: number } = {}): string {
  let href = TAB_PATH;
  if (view.page && view.page > 1) href += `&page=${view.page}`;
  if (view.delete) href += `&delete=${view.delete}`;
  if (view.edit) href += `&edit=${view.edit}`;
  return href;
}
