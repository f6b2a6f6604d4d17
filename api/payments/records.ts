import type { Database } from "../platform/db";
import { isUniqueViolation } from "../platform/db";
import type { Plan, Subscription } from "../platform/db/schema";
import { redeemCouponHold } from "./coupons";
import { admitNewSubscription, lockAccount } from "./one-subscription";
import { recordSecurityEvent } from "../identity/security-events";
import { nextDocumentNumber } from "./document-numbers";
import type { RecordedTax } from "./tax";

/*
 * What a payment leaves in our database: the subscription (with sub_start_date/sub_exp_date, which
 * the dashboard counts days from), one transaction per payment (paid or 'Payment failed'), its
 * invoice, and the card saved to the account. Every writer is idempotent on the gateway's id of
 * the payment (transactions.gateway_ref) and of the subscription (subscriptions.stripe_sub_id),
 * because the page that paid and the gateway's webhook both report the same payment, in any
 * order, possibly more than once.
 */

export const FAILED_STATUS = "Payment failed";
/** subs_status while a recurring subscription renews (the spec's value: auto-renewal ON). */
export const RENEWING = "subscription_started";
/** subs_status once auto-renewal is off or the subscription ended. */
export const NOT_RENEWING = "subscription_cancelled";

/** Calendar months after `date`, in UTC; the 31st becomes the last day of a shorter month. */
export function addMonthsUtc(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d;
}

export function fromUnix(seconds: number): Date {
  return new Date(seconds * 1000);
}

export interface PaidInvoice {
  userId: number;
  plan: Plan;
  /** The gateway's id of this payment (Stripe in_... or pi_...). */
  gatewayRef: string;
  /** What was charged: the tax's net + VAT. */
  amountCents: number;
  /** The tax of this payment as computed when it was charged (tax.ts; Stripe's own for card payments), recorded on the invoice. */
  tax: RecordedTax;
  /** The paying card's country, when the gateway told it: evidence of where the customer is (compared with the tax country). */
  cardCountry?: string | null;
  gateway: "stripe" | "bitpay" | "paypal";
  walletPaymentType: string;
  /** The gateway's subscription (recurring plans); null for one-time payments. */
  stripeSubId: string | null;
  /** The PayPal subscription (I-...) a PayPal payment belongs to (recurring plans through PayPal). */
  paypalSubId?: string | null;
  /** A new subscription that does not renew by itself (a PayPal order for a plan PayPal cannot bill as a subscription). */
  notRenewing?: boolean;
  /** Our subscription this payment renews, when the gateway has none (a crypto renewal). */
  subscriptionId?: number | null;
  /** subs_status of a new subscription (default: renewing). */
  subsStatus?: string;
  periodStart: Date;
  /** When the paid period ends at the gateway (recurring) or the plan's term ends (one-time). */
  periodEnd: Date;
  /** Whether this is the subscription's first payment (coupons and free months apply to it). */
  first: boolean;
  couponId: number | null;
  couponCode: string | null;
  /** The coupon hold this payment took before charging (coupons.ts); null: counted under the payment's own ref. */
  couponReservation?: string | null;
  hostedInvoiceUrl: string | null;
  gatewayInvoiceId: string | null;
  now: Date;
}

/** When access bought by a payment ends: the paid period, plus the plan's free months on the first one. */
export function accessEndOf(plan: Pick<Plan, "extra_months">, periodEnd: Date, first: boolean): Date {
  return first ? addMonthsUtc(periodEnd, plan.extra_months) : periodEnd;
}

/**
 * Records a successful payment: the subscription (created, or its paid-through date moved on),
 * the transaction and its invoice, once per gatewayRef. The plan's free months extend the first
 * period. Returns the subscription row. A new recurring subscription while another runs is refused
 * with SecondSubscriptionError (one-subscription.ts), recording nothing.
 */
export async function recordPaidInvoice(db: Database, paid: PaidInvoice): Promise<Subscription> {
  try {
    return await recordPaidInvoiceOnce(db, paid);
  } catch (error) {
    // The page and the webhook recorded the same payment at the same moment (PostgreSQL runs both
    // transactions at once): the other one won the unique keys, so this run finds its rows.
    if (!isUniqueViolation(error)) throw error;
    return recordPaidInvoiceOnce(db, paid);
  }
}

async function recordPaidInvoiceOnce(db: Database, paid: PaidInvoice): Promise<Subscription> {
  const { plan } = paid;
  const accessEnd = accessEndOf(plan, paid.periodEnd, paid.first).toISOString();
  const now = paid.now.toISOString();
  return db.transaction().execute(async (trx) => {
    // One account's payments are recorded one at a time, so the rule below sees every subscription recorded before.
    await lockAccount(trx, paid.userId);
    let subscription = paid.stripeSubId
      ? await trx.selectFrom("subscriptions").selectAll().where("stripe_sub_id", "=", paid.stripeSubId).executeTakeFirst()
      : paid.paypalSubId
        ? await trx.selectFrom("subscriptions").selectAll().where("paypal_sub_id", "=", paid.paypalSubId).executeTakeFirst()
        : paid.subscriptionId
          ? await trx.selectFrom("subscriptions").selectAll().where("id", "=", paid.subscriptionId).executeTakeFirst()
          : undefined;

    const existing = await trx
      .selectFrom("transactions")
      .select(["id", "subscription_id"])
      .where("gateway_ref", "=", paid.gatewayRef)
      .executeTakeFirst();
    if (existing) {
      const row = subscription ?? (existing.subscription_id !== null
        ? await trx.selectFrom("subscriptions").selectAll().where("id", "=", existing.subscription_id).executeTakeFirst()
        : undefined);
      if (row) return row;
    }

    if (!subscription) {
      // A second recurring subscription is refused (SecondSubscriptionError): nothing is recorded, the gateway gives the money back.
      await admitNewSubscription(trx, { userId: paid.userId, plan, now: paid.now });
      const inserted = await trx
        .insertInto("subscriptions")
        .values({
          user_id: paid.userId,
          plan_id: plan.id,
          title: plan.title,
          subscription_by: paid.gateway,
          subs_status: paid.subsStatus ?? (paid.notRenewing ? NOT_RENEWING : RENEWING),
          billing_type: plan.billing_type,
          stripe_sub_id: paid.stripeSubId,
          paypal_sub_id: paid.paypalSubId ?? null,
          cancel_at_period_end: paid.notRenewing ? 1 : 0,
          sub_start_date: paid.periodStart.toISOString(),
          sub_exp_date: accessEnd,
          amount_cents: plan.discounted_price_cents,
          coupon_code: paid.couponCode,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      subscription = inserted;
    } else if (accessEnd > subscription.sub_exp_date) {
      subscription = await trx
        .updateTable("subscriptions")
        .set({ sub_exp_date: accessEnd, updated_at: now })
        .where("id", "=", subscription.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }

    const transaction = await trx
      .insertInto("transactions")
      .values({
        user_id: paid.userId,
        plan_id: plan.id,
        subscription_id: subscription.id,
        amount_cents: paid.amountCents,
        currency: "usd",
        status: "paid",
        payment_gateway: paid.gateway,
        wallet_payment_type: paid.walletPaymentType,
        gateway_ref: paid.gatewayRef,
        coupon_code: paid.first ? paid.couponCode : null,
        failure_message: null,
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await recordInvoice(trx, paid, transaction.id, now);
    if (paid.first && paid.couponId !== null) {
      await redeemCouponHold(trx, {
        couponId: paid.couponId,
        key: paid.couponReservation || `paid:${paid.gatewayRef}`,
        userId: paid.userId,
        now: paid.now,
      });
    }
    return subscription;
  });
}

const METHOD_LABELS: Record<string, string> = {
  card: "Card",
  applepay: "Apple Pay",
  googlepay: "Google Pay",
  crypto: "Crypto (BitPay)",
  paypal: "PayPal",
};

/** How an invoice names the payment method: the wallet or card, PayPal, or crypto. */
export function paymentMethodLabel(gateway: string, walletPaymentType: string | null): string {
  if (gateway === "paypal") return "PayPal";
  if (gateway === "bitpay") return "Crypto (BitPay)";
  return METHOD_LABELS[walletPaymentType ?? "card"] ?? "Card";
}

/**
 * The payment's invoice, in the transaction that records the payment: a number of the gap-free
 * INV series (document-numbers.ts), and what the invoice says, copied now and never changed: the
 * amounts and the tax as charged (net, VAT rate and amount, the country taxed, a reverse charge), the
 * card's country beside the billing country as evidence, the plan and period, the payment method, and
 * the buyer's billing details as they are at this moment (else the account's email).
 */
async function recordInvoice(trx: Database, paid: PaidInvoice, transactionId: number, now: string): Promise<void> {
  const buyer = await trx
    .selectFrom("users")
    .leftJoin("billing_details", "billing_details.user_id", "users.id")
    .select(["users.email", "billing_details.name", "billing_details.address", "billing_details.country", "billing_details.vat_number", "billing_details.vat_number_status"])
    .where("users.id", "=", paid.userId)
    .executeTakeFirst();
  const number = await nextDocumentNumber(trx, "INV", paid.now);
  await trx
    .insertInto("invoices")
    .values({
      user_id: paid.userId,
      transaction_id: transactionId,
      number,
      amount_cents: paid.amountCents,
      currency: "usd",
      status: "paid",
      gateway_invoice_id: paid.gatewayInvoiceId,
      hosted_invoice_url: paid.hostedInvoiceUrl,
      created_at: now,
      net_cents: paid.tax.netCents,
      vat_rate: paid.tax.vatRate,
      vat_cents: paid.tax.vatCents,
      tax_country: paid.tax.vatRate === null ? null : paid.tax.country,
      reverse_charge: paid.tax.reverseCharge ? 1 : 0,
      card_country: paid.cardCountry ?? null,
      // Evidence only: the card's country against the country taxed (else the billing country).
      country_mismatch: paid.cardCountry && (paid.tax.country ?? buyer?.country) && paid.cardCountry !== (paid.tax.country ?? buyer?.country) ? 1 : 0,
      period_start: paid.periodStart.toISOString(),
      period_end: accessEndOf(paid.plan, paid.periodEnd, paid.first).toISOString(),
      plan_title: paid.plan.title,
      payment_method: paymentMethodLabel(paid.gateway, paid.walletPaymentType),
      buyer_email: buyer?.email ?? null,
      buyer_name: buyer?.name ?? null,
      buyer_address: buyer?.address ?? null,
      buyer_country: buyer?.country ?? null,
      // A number the check found invalid is not printed as the buyer's.
      buyer_vat_number: buyer?.vat_number_status === "invalid" ? null : (buyer?.vat_number ?? null),
    })
    .execute();
}

/** Records a refused payment ('Payment failed'), once per gatewayRef when there is one. */
export async function recordFailedPayment(
  db: Database,
  failed: {
    userId: number;
    planId: number;
    subscriptionId?: number | null;
    amountCents: number;
    gatewayRef: string | null;
    walletPaymentType: string;
    message: string;
    now: Date;
    gateway?: "stripe" | "bitpay" | "paypal";
  },
): Promise<void> {
  await db
    .insertInto("transactions")
    .values({
      user_id: failed.userId,
      plan_id: failed.planId,
      subscription_id: failed.subscriptionId ?? null,
      amount_cents: failed.amountCents,
      currency: "usd",
      status: FAILED_STATUS,
      payment_gateway: failed.gateway ?? "stripe",
      wallet_payment_type: failed.walletPaymentType,
      gateway_ref: failed.gatewayRef,
      coupon_code: null,
      failure_message: failed.message.slice(0, 500),
      created_at: failed.now.toISOString(),
    })
    // Reported twice (the page and the webhook, in either order): keep one row, with the card's own
    // message rather than the generic one.
    .onConflict((oc) =>
      oc
        .column("gateway_ref")
        .doUpdateSet((eb) => ({ failure_message: eb.ref("excluded.failure_message") }))
        .where("transactions.failure_message", "=", FAILED_STATUS),
    )
    .execute();
}

export interface CardDetails {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  billingName: string | null;
  billingPostal: string | null;
  walletPaymentType: string;
}

/**
 * Saves a card that paid to the account (once); the account's first card becomes its default. A card
 * saved by a payment is a 'Card added' in the account's security log; the Add card routes record their
 * own (with the browser and network), so they pass `recordEvent: false`.
 */
export async function saveCard(db: Database, userId: number, card: CardDetails, now: Date, opts: { recordEvent?: boolean } = {}): Promise<void> {
  const at = now.toISOString();
  const inserted = await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("payment_methods")
      .select(["id", "user_id"])
      .where("payment_method_id", "=", card.paymentMethodId)
      .executeTakeFirst();
    if (existing) return false;
    const hasDefault = await trx
      .selectFrom("payment_methods")
      .select("id")
      .where("user_id", "=", userId)
      .where("is_default", "=", 1)
      .executeTakeFirst();
    try {
      await trx
        .insertInto("payment_methods")
        .values({
          user_id: userId,
          payment_method_id: card.paymentMethodId,
          payment_gateway: "stripe",
          card_brand: card.brand,
          card_last4: card.last4,
          card_exp_month: card.expMonth,
          card_exp_year: card.expYear,
          billing_name: card.billingName,
          billing_postal: card.billingPostal,
          wallet_payment_type: card.walletPaymentType,
          is_default: hasDefault ? 0 : 1,
          created_at: at,
          updated_at: at,
        })
        .execute();
      return true;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return false;
    }
  });
  if (inserted && opts.recordEvent !== false) {
    const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : "Card";
    await recordSecurityEvent(db, { userId, kind: "card_added", detail: `${brand} ending ${card.last4}`, at: now });
  }
}

/** Follows the gateway's word on a subscription: auto-renewal on or off, or ended now. */
export async function recordSubscriptionState(
  db: Database,
  update: { stripeSubId: string; renewing: boolean; endedAt?: Date | null; now: Date },
): Promise<void> {
  const row = await db.selectFrom("subscriptions").selectAll().where("stripe_sub_id", "=", update.stripeSubId).executeTakeFirst();
  if (!row) return;
  const set: Partial<Pick<Subscription, "subs_status" | "cancel_at_period_end" | "sub_exp_date" | "updated_at">> = {
    subs_status: update.renewing ? RENEWING : NOT_RENEWING,
    cancel_at_period_end: update.renewing ? 0 : 1,
    updated_at: update.now.toISOString(),
  };
  // Ended before its paid-through date (cancelled now, not at the period end): access ends too.
  if (update.endedAt && update.endedAt.toISOString() < row.sub_exp_date && !row.cancel_at_period_end) {
    set.sub_exp_date = update.endedAt.toISOString();
  }
  await db.updateTable("subscriptions").set(set).where("id", "=", row.id).execute();
}
