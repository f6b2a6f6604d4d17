import type { User } from "../../platform/db/schema";
import type { Stripe, StripeSetup } from "./client";

// Stripe's customer of one of our users: made once, the invoices' default card, erased on account deletion.

/** The user's customer at Stripe; the key is the user's, so a retry or a parallel first payment makes one. */
export function createCustomer(gateway: StripeSetup, user: Pick<User, "id" | "email" | "name">): Promise<Stripe.Customer> {
  return gateway.stripe.customers.create(
    { email: user.email, ...(user.name ? { name: user.name } : {}), metadata: { user_id: String(user.id) } },
    { idempotencyKey: `customer-for-user-${user.id}` },
  );
}

/** The card the customer's invoices (renewals included) are charged to. */
export async function setDefaultCardOfCustomer(gateway: StripeSetup, customer: string, paymentMethodId: string): Promise<void> {
  await gateway.stripe.customers.update(customer, { invoice_settings: { default_payment_method: paymentMethodId } });
}

/** The address Stripe emails receipts and invoices to follows the account's (a changed or reverted email). */
export async function setCustomerEmail(gateway: StripeSetup, customer: string, email: string): Promise<void> {
  await gateway.stripe.customers.update(customer, { email });
}

/**
 * The customer keeps its payment history (kept as the law requires) but no personal data: email,
 * name, description and phone are unset ("" unsets a field in Stripe's API).
 */
export async function eraseCustomerPersonalData(gateway: StripeSetup, customer: string): Promise<void> {
  await gateway.stripe.customers.update(customer, { email: "", name: "", description: "", phone: "" });
}
