import type { Subscription } from "../platform/db/schema";

/*
 * What a gateway's webhooks tell about renewals, in our terms (our subscription row, whichever gateway
 * bills it), for the rules of failed renewals (api/billing/dunning.ts, docs/decisions/027 and 049).
 * Given to each gateway when it is built (api/http/app.ts); each must be idempotent, because the
 * gateways' events are replayed.
 */
export interface RenewalEvents {
  /** A renewal is unpaid after an attempt: declined, or the bank asks for authentication. */
  failed(event: {
    subscription: Subscription;
    /** The unpaid renewal: the gateway's invoice (Stripe), or one per paid-through date (PayPal). */
    key: string;
    amountCents: number;
    /** The VAT in amountCents as the gateway charges it (Stripe Tax's); null: amountCents is the renewal's net, taxed here (tax.ts). */
    taxCents: number | null;
    /** When the renewal was due, which the grace period counts from. */
    dueAt: Date;
    message: string;
    /** The card that was charged (pm_...), if the gateway names one of ours. */
    paymentMethodId: string | null;
    /** Paid on our pay page (cards); false: the gateway retries it itself and the customer fixes it there (PayPal). */
    payableHere: boolean;
  }): Promise<void>;
  /** A renewal was paid (after it was recorded); `key`: the unpaid renewal it settles, when the gateway names it. */
  paid(event: { subscriptionId: number; key: string | null }): Promise<void>;
  /** The subscription has ended at its gateway (after it was recorded). */
  ended(event: { subscriptionId: number; endedAt: Date }): Promise<void>;
}

/** The failure reason shown when the bank asks the customer to authenticate the renewal. */
export const AUTHENTICATION_NEEDED = "Your bank asks you to authenticate this payment.";
