// Texts and addresses of the 'Payment Method' tab (commerce §5, §8), shared by server and browser.

export const TAB_PATH = "/billing?tab=payment-method";

/** Commerce §9: payment methods page size. */
export const PER_PAGE = 6;

/** Catalogue keys (app/locales/<language>/billing.json): the toasts, alerts and the tab show them with `t`. */
export const PAYMENT_METHOD_MESSAGES = {
  added: "billing.paymentMethods.added",
  updated: "billing.paymentMethods.updated",
  deleted: "billing.paymentMethods.deleted",
  // Its English is the spec's wording, typo included (commerce §8).
  defaultSet: "billing.paymentMethods.defaultSet",
  addFailed: "billing.paymentMethods.addFailed",
  updateFailed: "billing.paymentMethods.updateFailed",
  deleteFailed: "billing.paymentMethods.deleteFailed",
  defaultFailed: "billing.paymentMethods.defaultFailed",
  fetchFailed: "billing.paymentMethods.fetchFailed",
  idRequired: "billing.paymentMethods.idRequired",
  name: "billing.paymentMethods.error.name",
  nameControls: "billing.paymentMethods.error.nameControls",
  postal: "billing.paymentMethods.error.postal",
  card: "billing.paymentMethods.error.card",
  expiry: "billing.paymentMethods.error.expiry",
  empty: "billing.paymentMethods.empty",
} as const;

/** The tab's address with its view state (page, the card being deleted or edited). */
export function tabHref(view: { page?: number; delete?: number; edit?: number } = {}): string {
  let href = TAB_PATH;
  if (view.page && view.page > 1) href += `&page=${view.page}`;
  if (view.delete) href += `&delete=${view.delete}`;
  if (view.edit) href += `&edit=${view.edit}`;
  return href;
}
