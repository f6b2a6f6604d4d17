// The refund form of the billing history (the 30-day money-back guarantee, docs/decisions/016): its
// texts (catalogue keys, app/locales/<language>/billing.json) and the refund address rule, shared by the
// server's schema and the form's HTML attributes. Whoever shows one of these texts shows it with `t`.

export const REFUND_FORM = {
  intent: "refund",
  link: "billing.refund.link",
  title: "billing.refund.title",
  submit: "billing.refund.submit",
  addressLabel: "billing.refund.addressLabel",
  refunded: "billing.refund.refunded",
  requested: "billing.refund.requested",
  failed: "billing.refund.failed",
  notOffered: "billing.refund.notOffered",
  addressRequired: "billing.refund.addressRequired",
  addressInvalid: "billing.refund.addressInvalid",
} as const;

/** A crypto address or payment URI as wallets show them (the API applies the same rule). */
export const REFUND_ADDRESS_PATTERN = "(?:[a-z]{2,20}:)?[A-Za-z0-9]{20,120}";

/** The refund step (?refund={id}) of a payment on `page` of the billing history; the delete page links to it too. */
export function refundHref(page: number, id: number): string {
  return page > 1 ? `/billing?page=${page}&refund=${id}` : `/billing?refund=${id}`;
}
