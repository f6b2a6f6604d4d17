import type { PaymentsDeps } from "./card-payments";
import { isInvalidRequest } from "./stripe/client";
import { setCustomerEmail } from "./stripe/customers";

/**
 * After the account's email changed (or was put back): the gateway's customer gets the same address, so
 * that Stripe's receipts and invoice emails go where the customer now reads them. The change itself is
 * done and must not be undone by a gateway that is down: a failure is logged, and the next change (or
 * support) sets it again.
 */
export async function syncCustomerEmail(deps: PaymentsDeps, userId: number, log: Pick<Console, "warn">): Promise<void> {
  const user = await deps.db.selectFrom("users").select(["email", "stripe_customer_id"]).where("id", "=", userId).executeTakeFirst();
  if (!user?.stripe_customer_id) return;
  try {
    await setCustomerEmail(deps.gateway, user.stripe_customer_id, user.email);
  } catch (error) {
    // A customer deleted at Stripe has nothing to update; anything else is worth a look.
    if (!isInvalidRequest(error)) log.warn({ err: error, userId }, "could not update the Stripe customer's email");
  }
}
