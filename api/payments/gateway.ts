import type { RefundKind, Subscription, Transaction } from "../platform/db/schema";
import type { PlanTerms } from "./renewal-rule";

/*
 * One interface per gateway (docs/decisions/049): what billing asks of whichever gateway bills a
 * subscription, in our terms. Stripe (cards and wallets), PayPal and BitPay each have one adapter
 * (api/payments/stripe/gateway.ts, paypal/gateway.ts, bitpay/gateway.ts); billing takes the one of a
 * subscription or payment from `gatewayFor` and never imports an adapter (.dependency-cruiser.cjs).
 * What a gateway's webhook tells about renewals reaches billing as RenewalEvents (renewal-events.ts),
 * given to the gateway when it is built.
 */

export type GatewayName = "stripe" | "paypal" | "bitpay";

/** Why a subscription's auto-renewal cannot be switched (each has billing's message); null when it can. */
export type NoRenewal = "crypto" | "one_time" | "paypal_order" | "not_card";

/** A subscription's renewal was asked of its gateway after the subscription ended there. */
export class SubscriptionEndedAtGateway extends Error {
  constructor(message = "The subscription has ended at its gateway.") {
    super(message);
    this.name = "SubscriptionEndedAtGateway";
  }
}

/** The gateway failed or did not answer (after its own retries): the caller tells the customer to try again. */
export class GatewayUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayUnavailable";
  }
}

/** The card that pays (or paid) a charge, as the receipt, the reminder and the billing page name it. */
export interface PayingCard {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** A renewal the gateway could not collect, as it stands at the gateway now. */
export interface OpenRenewal {
  amountCents: number;
  /** The VAT in amountCents as the gateway charges it (Stripe Tax's); null: amountCents is the recorded net, taxed at the subscription's treatment (tax.ts). */
  taxCents: number | null;
  /** Still payable (an open invoice); false once paid or ended meanwhile. */
  open: boolean;
  /** Paid on our pay page with a saved card (cards); false: the gateway retries it itself (PayPal). */
  payableHere: boolean;
  /** The gateway's own page for paying it (Stripe's hosted invoice page), or null. */
  hostedInvoiceUrl: string | null;
}

export type PayOpenRenewalOutcome = { status: "paid" } | { status: "requires_action"; hosted_invoice_url: string };

type Row = Subscription;

export interface PaymentGateway {
  readonly name: GatewayName;
  /** What the 30-day guarantee does with its payments: card and PayPal go back through the gateway, crypto by hand. */
  readonly refundKind: RefundKind;
  /** Whether an unpaid renewal is paid on our pay page with a saved card (payOpenRenewal); else the gateway retries it itself. */
  readonly paysRenewalsHere: boolean;
  /** Whether a subscription of `plan` paid here renews by itself: the one renewal rule (renewal-rule.ts) for this gateway's way of paying. */
  renewsPlan(plan: PlanTerms): boolean;
  /** Whether `row` is past due (a renewal unpaid within its grace period) by this gateway's record of it. */
  isPastDue(row: Row, now: Date): boolean;
  /**
   * Resumes (true) or suspends (false) the renewal at the gateway and records our row; answers whether it
   * renews now. While past due it acts on the unpaid renewal (stops or resumes its retries). Throws
   * SubscriptionEndedAtGateway when the gateway has ended it, a DomainError when it refuses.
   */
  setRenewal(row: Row, renewing: boolean, opts: { pastDue: boolean }): Promise<boolean>;
  /**
   * Ends the subscription at the gateway now (idempotent: ended already is what we want). With `endedAt`
   * our row follows at once (else the gateway's webhook records it).
   */
  cancel(row: Row, opts: { key: string; reason: string; endedAt?: Date }): Promise<void>;
  /**
   * Gives a recorded payment back in full and ends the gateway's subscription it bought; the same key makes
   * one refund. Answers the gateway's refund id. Throws GatewayUnavailable when the gateway fails.
   */
  refund(transaction: Transaction, key: string): Promise<string | null>;
  /** The gateway's fingerprint of the card that made a payment (null: none). Throws GatewayUnavailable. */
  cardFingerprint(transaction: Transaction): Promise<string | null>;
  /** The card that pays the subscription's next charge; null when the gateway names no card of ours. */
  payingCard(row: Pick<Row, "user_id" | "stripe_sub_id">, opts?: { onlyCardSuffices?: boolean }): Promise<PayingCard | null>;
  /** The renewal of a past-due subscription, as the gateway has it now. */
  openRenewal(row: Row): Promise<OpenRenewal>;
  /** Pays a past-due subscription's open renewal with a saved card (gateways with payableHere only). */
  payOpenRenewal(row: Row, input: { paymentMethodId: string; key: string }): Promise<PayOpenRenewalOutcome>;
}

/**
 * Whether a subscription's renewal can be switched at all, and why not: by its gateway and its record
 * alone (no gateway is asked, so it holds while a gateway is off).
 */
export function noRenewalOf(row: Pick<Row, "subscription_by" | "billing_type" | "stripe_sub_id" | "paypal_sub_id">): NoRenewal | null {
  if (row.subscription_by === "bitpay") return "crypto";
  if (row.billing_type === "single") return "one_time";
  if (row.subscription_by === "paypal") return row.paypal_sub_id ? null : "paypal_order";
  return row.subscription_by === "stripe" && row.stripe_sub_id ? null : "not_card";
}

/** Whether a subscription renews by itself: one whose renewal can be switched, with auto-renewal on. */
export function renewsAutomatically(
  s: Pick<Row, "subscription_by" | "billing_type" | "cancel_at_period_end" | "stripe_sub_id"> & Partial<Pick<Row, "paypal_sub_id">>,
): boolean {
  if (s.billing_type !== "recurring" || s.cancel_at_period_end !== 0) return false;
  return noRenewalOf({ ...s, paypal_sub_id: s.paypal_sub_id ?? null }) === null;
}

/**
 * An unpaid renewal as our row records it: what a gateway that retries it itself (PayPal) has to say of it,
 * and what billing says of one whose gateway is off.
 */
export function recordedRenewal(row: Pick<Row, "amount_cents">): OpenRenewal {
  return { amountCents: Number(row.amount_cents ?? 0), taxCents: null, open: true, payableHere: false, hostedInvoiceUrl: null };
}

/** What the guarantee does with a payment of this gateway (known without the gateway: it may be off). */
export function refundKindOf(transaction: Pick<Transaction, "payment_gateway">): RefundKind {
  if (transaction.payment_gateway === "paypal") return "paypal";
  return transaction.payment_gateway === "bitpay" ? "crypto" : "card";
}

/** The gateways that are on; Stripe always is (cards are required). */
export interface Gateways {
  stripe: PaymentGateway;
  paypal: PaymentGateway | null;
  bitpay: PaymentGateway | null;
}

/** The gateway of a subscription (subscription_by) or a payment (payment_gateway); null while it is off. */
export function gatewayFor(
  gateways: Gateways,
  of: Pick<Row, "subscription_by"> | Pick<Transaction, "payment_gateway">,
): PaymentGateway | null {
  const name = "subscription_by" in of ? of.subscription_by : of.payment_gateway;
  if (name === "paypal") return gateways.paypal;
  if (name === "bitpay") return gateways.bitpay;
  return gateways.stripe;
}
