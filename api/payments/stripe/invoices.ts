import type { Stripe, StripeSetup } from "./client";

// Stripe's invoices of card subscriptions.

/** Stripe Tax's VAT on an invoice (its total_taxes), in cents. */
export function invoiceTaxCents(invoice: Pick<Stripe.Invoice, "total_taxes">): number {
  return (invoice.total_taxes ?? []).reduce((sum, t) => sum + t.amount, 0);
}

export function retrieveInvoice(gateway: StripeSetup, invoiceId: string): Promise<Stripe.Invoice> {
  return gateway.stripe.invoices.retrieve(invoiceId);
}

/** The invoice with its payments expanded (which PaymentIntent paid it). */
export function retrieveInvoiceWithPayments(gateway: StripeSetup, invoiceId: string): Promise<Stripe.Invoice> {
  return gateway.stripe.invoices.retrieve(invoiceId, { expand: ["payments"] });
}

/** Pays a subscription's open invoice with the card, as part of the payment with key `paymentKey`. */
export function payInvoice(gateway: StripeSetup, invoiceId: string, paymentMethodId: string, paymentKey: string): Promise<Stripe.Invoice> {
  return gateway.stripe.invoices.pay(invoiceId, { payment_method: paymentMethodId }, { idempotencyKey: `${paymentKey}:pay` });
}

/**
 * Automatic collection of an open invoice on or off (`auto_advance`): off stops Stripe's Smart Retries
 * of a failed renewal; the invoice stays open and can still be paid.
 */
export function setInvoiceCollection(gateway: StripeSetup, invoiceId: string, collecting: boolean): Promise<Stripe.Invoice> {
  return gateway.stripe.invoices.update(invoiceId, { auto_advance: collecting });
}
