import { DomainError } from "../../platform/errors";
import { type PaymentsDeps, recordStripeInvoice } from "../card-payments";
import { GatewayUnavailable, type PaymentGateway, SubscriptionEndedAtGateway } from "../gateway";
import { cardThatPays } from "../paying-card";
import { recordSubscriptionState } from "../records";
import { renewalOf } from "../renewal-rule";
import { isCardError, isGatewayFailure, isInvalidRequest } from "./client";
import { invoiceTaxCents, payInvoice, retrieveInvoice, retrieveInvoiceWithPayments, setInvoiceCollection } from "./invoices";
import { retrievePaymentIntentWithCard } from "./payment-intents";
import { refundPayment } from "./refunds";
import { cancelSubscription, retrieveSubscription, setCardOfSubscription, setRenewal } from "./subscriptions";
import { reportPaidRenewal } from "./webhooks";

/*
 * Stripe's adapter (cards and wallets; api/payments/gateway.ts): what billing asks of a card
 * subscription and its payments, in Stripe's calls.
 */

/** Stripe's card error codes for a payment that needs the customer's authentication. */
const AUTHENTICATION_CODES = new Set(["authentication_required", "invoice_payment_intent_requires_action"]);

export function stripeGateway(deps: PaymentsDeps): PaymentGateway {
  return {
    name: "stripe",
    paysRenewalsHere: true,
    refundKind: "card",
    renewsPlan: (plan) => renewalOf(plan, "card").renews,
    isPastDue: (row, now) => !!row.past_due_invoice_id && !!row.grace_until && row.grace_until > now.toISOString(),

    async setRenewal(row, renewing, { pastDue }) {
      const stripeSubId = row.stripe_sub_id!;
      let renews: boolean;
      try {
        if (pastDue) {
          // The renewal is already due: the switch acts on its open invoice (stops or resumes Stripe's retries).
          const invoice = await setInvoiceCollection(deps.gateway, row.past_due_invoice_id!, renewing);
          renews = invoice.status === "open" && invoice.auto_advance !== false;
        } else {
          const updated = await setRenewal(deps.gateway, stripeSubId, renewing);
          renews = !updated.cancel_at_period_end && ["active", "trialing", "past_due"].includes(updated.status);
        }
      } catch (error) {
        // Stripe refuses to change a canceled subscription (or an invoice paid or ended with it meanwhile).
        if (isInvalidRequest(error)) throw new SubscriptionEndedAtGateway();
        throw error;
      }
      await recordSubscriptionState(deps.db, { stripeSubId, renewing: renews, now: deps.clock.now() });
      return renews;
    },

    async cancel(row, { key, endedAt }) {
      if (!row.stripe_sub_id) return;
      await cancelSubscription(deps.gateway, row.stripe_sub_id, key).catch((error: unknown) => {
        // Already canceled at Stripe: it has ended, which is what we want.
        if (!isInvalidRequest(error)) throw error;
      });
      if (endedAt) await recordSubscriptionState(deps.db, { stripeSubId: row.stripe_sub_id, renewing: false, endedAt, now: endedAt });
    },

    async refund(transaction, key) {
      try {
        const paymentIntent = await paymentIntentOf(deps, transaction.gateway_ref ?? "");
        let refundId: string | null = null;
        try {
          const refund = await refundPayment(deps.gateway, { paymentIntentId: paymentIntent, transactionId: transaction.id, refundKey: key });
          refundId = refund.id;
        } catch (error) {
          // Refunded already (a retry after the gateway's idempotency window): the money went back.
          if (!(isInvalidRequest(error) && error.code === "charge_already_refunded")) throw error;
        }
        const subscription = transaction.subscription_id
          ? await deps.db.selectFrom("subscriptions").select("stripe_sub_id").where("id", "=", transaction.subscription_id).executeTakeFirst()
          : undefined;
        if (subscription?.stripe_sub_id) {
          await cancelSubscription(deps.gateway, subscription.stripe_sub_id, key).catch((error: unknown) => {
            // Already canceled at the gateway: nothing left to stop.
            if (!isInvalidRequest(error)) throw error;
          });
        }
        return refundId;
      } catch (error) {
        if (!isGatewayFailure(error)) throw error;
        deps.logger.warn(`Refund of transaction ${transaction.id}: the card gateway failed or did not answer; the claim stays for a retry.`);
        throw new GatewayUnavailable("stripe");
      }
    },

    async cardFingerprint(transaction) {
      try {
        const paymentIntent = await paymentIntentOf(deps, transaction.gateway_ref ?? "");
        const intent = await retrievePaymentIntentWithCard(deps.gateway, paymentIntent);
        const method = intent.payment_method;
        return typeof method === "object" && method?.card?.fingerprint ? method.card.fingerprint : null;
      } catch (error) {
        if (!isGatewayFailure(error)) throw error;
        deps.logger.warn(`Refund of transaction ${transaction.id}: the card gateway failed or did not answer reading the card.`);
        throw new GatewayUnavailable("stripe");
      }
    },

    payingCard: (row, opts) => cardThatPays(deps, row, opts),

    async openRenewal(row) {
      const invoice = await retrieveInvoice(deps.gateway, row.past_due_invoice_id!);
      return {
        amountCents: invoice.amount_due,
        taxCents: invoiceTaxCents(invoice),
        open: invoice.status === "open",
        payableHere: true,
        hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
      };
    },

    /**
     * Paid: recorded now (invoice.paid records it again, harmlessly), and the card pays the next renewals.
     * Declined: card_declined with the bank's message. Needing authentication: the hosted invoice page.
     */
    async payOpenRenewal(row, input) {
      const invoiceId = row.past_due_invoice_id!;
      let paid: Awaited<ReturnType<typeof payInvoice>>;
      try {
        paid = await payInvoice(deps.gateway, invoiceId, input.paymentMethodId, input.key);
      } catch (error) {
        if (isCardError(error)) {
          const invoice = await retrieveInvoice(deps.gateway, invoiceId);
          // The bank wants the customer to authenticate: Stripe's hosted invoice page does 3-D Secure.
          if (AUTHENTICATION_CODES.has(error.code ?? "") && invoice.hosted_invoice_url) {
            return { status: "requires_action", hosted_invoice_url: invoice.hosted_invoice_url };
          }
          throw new DomainError("card_declined", error.message || "Your card was declined.");
        }
        if (isInvalidRequest(error)) {
          // Paid or ended meanwhile (a retry, another tab): our state follows Stripe's.
          const invoice = await retrieveInvoice(deps.gateway, invoiceId);
          if (invoice.status === "paid") {
            await recordPaid(deps, row, invoice);
            return { status: "paid" };
          }
          throw new SubscriptionEndedAtGateway();
        }
        throw error;
      }
      if (paid.status !== "paid") {
        if (paid.hosted_invoice_url) return { status: "requires_action", hosted_invoice_url: paid.hosted_invoice_url };
        throw new DomainError("card_declined", "Your card was declined.");
      }
      await recordPaid(deps, row, paid);
      // The card that paid pays the next renewals too (the one that failed would fail again).
      await setCardOfSubscription(deps.gateway, row.stripe_sub_id!, input.paymentMethodId);
      return { status: "paid" };
    },
  };
}

/** The Stripe PaymentIntent of a recorded payment: pi_… itself, or the one that paid invoice in_…. */
async function paymentIntentOf(deps: PaymentsDeps, gatewayRef: string): Promise<string> {
  if (gatewayRef.startsWith("pi_")) return gatewayRef;
  const invoice = await retrieveInvoiceWithPayments(deps.gateway, gatewayRef);
  const paid = (invoice.payments?.data ?? []).filter((p) => p.status === "paid");
  const ref = (paid[paid.length - 1] ?? invoice.payments?.data?.[0])?.payment?.payment_intent;
  const id = typeof ref === "string" ? ref : ref?.id;
  if (!id) throw new Error(`Invoice ${gatewayRef} has no PaymentIntent to refund`);
  return id;
}

async function recordPaid(deps: PaymentsDeps, row: { stripe_sub_id: string | null; plan_id: number; user_id: number }, invoice: Awaited<ReturnType<typeof retrieveInvoice>>): Promise<void> {
  const subscription = await retrieveSubscription(deps.gateway, row.stripe_sub_id!);
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", row.plan_id).executeTakeFirstOrThrow();
  await recordStripeInvoice(deps, invoice, subscription, plan, row.user_id);
  await reportPaidRenewal(deps, row.stripe_sub_id!, invoice.id!);
}

