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

/**
 * What Stripe Tax taxes by (docs/decisions/061): the customer's address country (unset: "" clears it) and its
 * EU VAT id, the one of the billing details (others removed). Unchanged details make no write.
 */
export async function syncCustomerTaxDetails(gateway: StripeSetup, customer: string, details: { country: string | null; euVat: string | null }): Promise<void> {
  const { stripe } = gateway;
  const current = await stripe.customers.retrieve(customer);
  const country = "deleted" in current && current.deleted ? null : (current as Stripe.Customer).address?.country ?? null;
  if (country !== details.country) {
    await stripe.customers.update(customer, { address: details.country ? { country: details.country } : "" });
  }
  const ids = await stripe.customers.listTaxIds(customer, { limit: 100 });
  let has = false;
  for (const id of ids.data) {
    if (id.type === "eu_vat" && id.value === details.euVat) has = true;
    else if (id.type === "eu_vat") await stripe.customers.deleteTaxId(customer, id.id);
  }
  if (details.euVat && !has) await stripe.customers.createTaxId(customer, { type: "eu_vat", value: details.euVat });
}
