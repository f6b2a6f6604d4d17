// The refund form of the billing history (the 30-day money-back guarantee, docs/decisions/016): its
// texts and the refund address rule, shared by the server's schema and the form's HTML attributes.

export const REFUND_FORM = {
  intent: "refund",
  link: "Request refund",
  title: "Request a refund",
  submit: "Refund my payment",
  addressLabel: "Refund address",
  refunded: "Refunded",
  requested: "Refund requested",
  failed: "Failed to refund the payment",
  notOffered: "This payment cannot be refunded.",
  addressRequired: "Please enter the address to send your crypto refund to.",
  addressInvalid: "Please enter a valid crypto address (letters and digits, 20 to 120 characters).",
} as const;

/** A crypto address or payment URI as wallets show them (the API applies the same rule). */
export const REFUND_ADDRESS_PATTERN = "(?:[a-z]{2,20}:)?[A-Za-z0-9]{20,120}";

/** The refund step (?refund={id}) of a payment on `page` of the billing history; the delete page links to it too. */
export function refundHref(page: number, id: number): string {
  return page > 1 ? `/billing?page=${page}&refund=${id}` : `/billing?refund=${id}`;
}
