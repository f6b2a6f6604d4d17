/*
 * What the card webhooks tell about renewals, for the rules of failed renewals (api/billing/dunning.ts,
 * docs/decisions/027). Billing stands on payments, so payments reports through these callbacks, wired
 * by the API (api/http/app.ts); each must be idempotent, because Stripe's events are replayed.
 */
export interface RenewalEvents {
  /** A renewal invoice is unpaid after an attempt: declined, or the bank asks for authentication. */
  failed(event: {
    stripeSubId: string;
    invoiceId: string;
    amountCents: number;
    /** When the renewal was due (the invoice's creation), which the grace period counts from. */
    dueAt: Date;
    message: string;
    requiresAction: boolean;
    /** The card that was charged (pm_...), if known. */
    paymentMethodId: string | null;
    hostedInvoiceUrl: string | null;
  }): Promise<void>;
  /** An invoice of the subscription is paid (after it was recorded). */
  paid(event: { stripeSubId: string; invoiceId: string }): Promise<void>;
  /** The subscription has ended at Stripe (after it was recorded). */
  ended(event: { stripeSubId: string; endedAt: Date }): Promise<void>;
}
