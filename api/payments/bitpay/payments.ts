import type { TaxRates } from "../../platform/tax-rates";
import { languageOfUser } from "../../identity/users";
import { formatDateIn, formatMoney } from "../../platform/i18n";
import { accountTaxTreatment, recordedTaxOfRow, taxColumnsOf, taxLineOfRecorded, taxSentenceOf, taxedAmount } from "../tax";
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { endRecurringRenewal, refuseSecondSubscription } from "../subscription-guard";
import { SUBSCRIPTION_MESSAGES, isSecondSubscription } from "../one-subscription";
import type { PayPalClient } from "../paypal/client";
import type { StripeSetup } from "../stripe/client";
import type { Logger } from "../../platform/logger";
import type { Database } from "../../platform/db";
import type { CryptoInvoice, Plan, User } from "../../platform/db/schema";
import type { Clock } from "../../platform/clock";
import { DomainError } from "../../platform/errors";
import type { MailService } from "../../platform/mailer";
import { cryptoRenewalEmail } from "../emails";
import { type BitPayClient, type BitPayInvoice, BitPayError, invoiceIdOfNotification } from "./client";
import { COUPON_MESSAGES, checkCoupon, releaseCouponHold, reserveCoupon } from "../coupons";
import { discountPercentOf, dollars } from "../plans";
import { twoDecimals } from "../money";
import { type PaidHook, tellPaid } from "../paid";
import { accessEndOf, addMonthsUtc, recordFailedPayment, recordPaidInvoice } from "../records";
import { NOT_APPLIED_PREFIX, SHORT_PAYMENT_PREFIX, underpaidMessage } from "../underpayments";

export { NOT_APPLIED_PREFIX, SHORT_PAYMENT_PREFIX, type Underpayment, underpaidMessage, underpaymentsOf } from "../underpayments";

/*
 * Crypto payments through BitPay (live, or the crypto sandbox that speaks the same API). A crypto
 * plan never renews by itself: 3 days before it ends we email a renewal invoice, paid on the
 * due-invoice page. BitPay's notification is only a trigger: we fetch the invoice from BitPay and act
 * on the status it has there. Activation is claimed once per invoice (activated_at), so replays and
 * several instances activate once; a payment that comes late or short is recorded, never dropped.
 */

export interface CryptoDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  bitpay: BitPayClient;
  mail: MailService;
  publicUrl: string;
  /** What every notification URL carries (?secret=), compared in constant time. */
  notificationSecret: string;
  /** Told after each paid invoice is recorded (its receipt). */
  onPaid?: PaidHook;
  /** The card gateway: a paid 5-year plan turns off a card plan's auto-renewal there (decision 028). */
  gateway?: StripeSetup | null;
  /** PayPal, while it is on: a paid 5-year plan suspends a running PayPal subscription. */
  paypal?: PayPalClient | null;
  /** The tax table (config): every crypto invoice asks for net + VAT by the account's billing details (tax.ts). */
  taxRates: TaxRates;
}

/** BitPay's deps, built whole by the API (api/http/app.ts) with the receipts they report to. */
export function createCryptoPayments(deps: CryptoDeps & Required<Pick<CryptoDeps, "onPaid" | "gateway" | "paypal">>): CryptoDeps {
  return { ...deps };
}

export const CRYPTO_MESSAGES = {
  created: "Crypto invoice created.",
  amountMismatch: "The amount does not match the plan's price. Please reload the page and try again.",
  failed: "Failed to create BitPay invoice",
  notFound: "No invoice data found",
  alreadyPaid: "This invoice is already paid.",
  expired: "The crypto invoice expired before it was paid.",
  forged: "This notification is not from BitPay.",
  received: "Notification received.",
  renewalCreated: "Renewal invoice created.",
  notRenewable: "Only crypto plans get renewal invoices.",
} as const;

/**
 * How long a crypto purchase holds its coupon at most: BitPay's invoice expires after 15 minutes
 * (its 'expired' status releases the hold), but a paid one may take hours to confirm. A payment that
 * confirms after the hold was given back still counts its redemption.
 */
const CRYPTO_COUPON_HOLD_MS = 24 * 3600_000;

/** The coupon hold of a crypto purchase: one per invoice row. */
export function cryptoCouponReservationKey(uuid: string): string {
  return `crypto:${uuid}`;
}

async function holdCryptoCoupon(deps: CryptoDeps, couponId: number, uuid: string, userId: number): Promise<void> {
  const now = deps.clock.now();
  const held = await reserveCoupon(deps.db, {
    couponId,
    key: cryptoCouponReservationKey(uuid),
    userId,
    now,
    expiresAt: new Date(now.getTime() + CRYPTO_COUPON_HOLD_MS),
  });
  if (!held) throw new DomainError("coupon_invalid", COUPON_MESSAGES.invalid, { field: "coupon" });
}

/** Opens the BitPay invoice of a row that holds a coupon; a refusal gives the hold back (no invoice exists to pay). */
async function openHoldingInvoice(deps: CryptoDeps, row: CryptoInvoice, plan: Plan, back: string): Promise<CryptoInvoice> {
  try {
    return await openBitPayInvoice(deps, row, plan, back);
  } catch (error) {
    if (row.coupon_id !== null) await releaseCouponHold(deps.db, cryptoCouponReservationKey(row.uuid), deps.clock.now());
    throw error;
  }
}

/** Our row's statuses in the order they can follow one another ('creating' and 'due' before BitPay has one). */
const STATUS_ORDER = ["creating", "due", "new", "expired", "invalid", "paid", "confirmed", "complete"] as const;
function statusRank(status: string): number {
  // expired, invalid (and any status we do not know) end an unpaid invoice; none of them may undo a payment.
  const rank = STATUS_ORDER.indexOf(status as (typeof STATUS_ORDER)[number]);
  return status === "invalid" || rank < 0 ? STATUS_ORDER.indexOf("expired") : rank;
}

/** Statuses at which BitPay has the money for good. */
const SETTLED = new Set(["confirmed", "complete"]);
/** A renewal invoice is emailed this long before the plan ends (commerce §1, §9). */
export const RENEWAL_NOTICE_DAYS = 3;

export function notificationUrl(deps: Pick<CryptoDeps, "publicUrl" | "notificationSecret">): string {
  return `${deps.publicUrl}/api/payments/bitpay/notify?secret=${encodeURIComponent(deps.notificationSecret)}`;
}

/** Constant-time comparison of the notification's secret with ours. */
export function isOurSecret(given: unknown, ours: string): boolean {
  if (typeof given !== "string") return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(ours).digest();
  return timingSafeEqual(a, b);
}

export function dueInvoicePath(uuid: string): string {
  return `/subscription/bitpay-pay-due-invoice/${uuid}`;
}

async function bitpayCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof BitPayError) throw new DomainError("gateway_failed", CRYPTO_MESSAGES.failed);
    throw error;
  }
}

/** Opens a BitPay invoice for one of our rows, and remembers it on the row. */
async function openBitPayInvoice(deps: CryptoDeps, row: CryptoInvoice, plan: Plan, back: string): Promise<CryptoInvoice> {
  const invoice = await bitpayCall(() =>
    deps.bitpay.createInvoice({
      price: Number(twoDecimals(row.amount_cents)),
      currency: "USD",
      orderId: row.uuid,
      itemDesc: `VPN ${plan.title}${row.kind === "renewal" ? " (renewal)" : ""}`,
      buyerEmail: row.email,
      notificationURL: notificationUrl(deps),
      redirectURL: `${deps.publicUrl}${back}${back.includes("?") ? "&" : "?"}crypto=${row.uuid}`,
      closeURL: `${deps.publicUrl}${back}${back.includes("?") ? "&" : "?"}crypto=${row.uuid}`,
      posData: row.uuid,
    }),
  );
  return deps.db
    .updateTable("crypto_invoices")
    .set({ bitpay_invoice_id: invoice.id, invoice_url: invoice.url, status: invoice.status, exception_status: null, updated_at: deps.clock.now().toISOString() })
    .where("id", "=", row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A new crypto purchase (commerce §3 crypto payload). `amount` must be the quote's amount: the plan's
 * price (with the coupon, when one is given) plus its VAT by the account's billing details (tax.ts): the
 * invoice is for what the page showed, or refused.
 */
export async function createPurchaseInvoice(
  deps: CryptoDeps,
  input: { user: User; plan: Plan; amount: string; email: string; couponCode?: string; returnPath: string },
): Promise<CryptoInvoice> {
  const { user, plan } = input;
  // One recurring subscription per account (subscription-guard.ts).
  await refuseSecondSubscription(deps.db, user.id, plan, deps.clock.now());
  let cents = plan.discounted_price_cents;
  let coupon: { id: number; code: string } | null = null;
  if (input.couponCode) {
    const check = await checkCoupon(deps.db, input.couponCode, plan, deps.clock.now());
    if (!check.ok) throw new DomainError("coupon_invalid", check.message, { field: "coupon" });
    cents = check.totalCents;
    coupon = { id: Number(check.coupon.id), code: check.coupon.code };
  }
  const taxed = taxedAmount(await accountTaxTreatment(deps.db, deps.taxRates, user.id), cents);
  if (input.amount !== twoDecimals(taxed.totalCents)) {
    throw new DomainError("amount_mismatch", CRYPTO_MESSAGES.amountMismatch, { field: "amount" });
  }
  const uuid = randomUUID();
  // The coupon is held before the invoice exists, so parallel purchases cannot take more than its limit.
  if (coupon) await holdCryptoCoupon(deps, coupon.id, uuid, user.id);
  const now = deps.clock.now().toISOString();
  const row = await deps.db
    .insertInto("crypto_invoices")
    .values({
      uuid,
      user_id: user.id,
      plan_id: plan.id,
      kind: "purchase",
      subscription_id: null,
      renewal_key: null,
      amount_cents: taxed.totalCents,
      ...taxColumnsOf(taxed),
      currency: "USD",
      bitpay_invoice_id: null,
      invoice_url: null,
      status: "creating",
      exception_status: null,
      email: input.email,
      activated_at: null,
      coupon_id: coupon?.id ?? null,
      coupon_code: coupon?.code ?? null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return openHoldingInvoice(deps, row, plan, input.returnPath);
}

export async function findCryptoInvoice(deps: Pick<CryptoDeps, "db">, uuid: string): Promise<CryptoInvoice | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(uuid)) return undefined;
  return deps.db.selectFrom("crypto_invoices").selectAll().where("uuid", "=", uuid).executeTakeFirst();
}

/**
 * 'Pay with Crypto' on the due-invoice page: the open BitPay invoice, or a fresh one when the last
 * expired (a due invoice may be paid until the plan is over, and after).
 */
export async function payDueInvoice(deps: CryptoDeps, uuid: string): Promise<CryptoInvoice> {
  const row = await findCryptoInvoice(deps, uuid);
  if (!row) throw new DomainError("not_found", CRYPTO_MESSAGES.notFound);
  if (row.activated_at) throw new DomainError("invoice_paid", CRYPTO_MESSAGES.alreadyPaid);
  if (row.bitpay_invoice_id && row.invoice_url) {
    const current = await bitpayCall(() => deps.bitpay.getInvoice(row.bitpay_invoice_id!));
    const updated = await applyInvoice(deps, row, current);
    if (updated.activated_at) throw new DomainError("invoice_paid", CRYPTO_MESSAGES.alreadyPaid);
    if (current.status === "new" || current.status === "paid") return updated;
  }
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", row.plan_id).executeTakeFirstOrThrow();
  // A purchase at a coupon's price whose invoice expired: the new invoice holds the coupon again.
  if (row.coupon_id !== null) await holdCryptoCoupon(deps, Number(row.coupon_id), row.uuid, row.user_id);
  return openHoldingInvoice(deps, row, plan, dueInvoicePath(row.uuid));
}

/** Verifies and acts on a BitPay notification: re-fetches the invoice and applies its status. */
export async function handleBitPayNotification(deps: CryptoDeps, secret: unknown, body: unknown): Promise<void> {
  if (!isOurSecret(secret, deps.notificationSecret)) throw new DomainError("notification_forged", CRYPTO_MESSAGES.forged);
  const id = invoiceIdOfNotification(body);
  if (!id) throw new DomainError("malformed_body", "The notification names no invoice.");
  const row = await deps.db.selectFrom("crypto_invoices").selectAll().where("bitpay_invoice_id", "=", id).executeTakeFirst();
  if (!row) return; // not one of ours (or an invoice we replaced): nothing to do
  const invoice = await bitpayCall(() => deps.bitpay.getInvoice(id));
  await applyInvoice(deps, row, invoice);
}

/** Brings our row in line with BitPay's invoice and activates the plan once when it is paid for good. */
export async function applyInvoice(deps: CryptoDeps, row: CryptoInvoice, invoice: BitPayInvoice): Promise<CryptoInvoice> {
  const now = deps.clock.now();
  const exception = invoice.exceptionStatus || null;
  // BitPay's statuses only move forward; an answer fetched before a newer one (two notifications
  // racing, a slow fetch) must not take the row back, e.g. from 'confirmed' to 'paid' or 'new'.
  const notAhead = STATUS_ORDER.filter((status) => statusRank(status) <= statusRank(invoice.status));
  let current =
    (await deps.db
      .updateTable("crypto_invoices")
      .set({ status: invoice.status, exception_status: exception, updated_at: now.toISOString() })
      .where("id", "=", row.id)
      .where("status", "in", notAhead)
      .returningAll()
      .executeTakeFirst()) ??
    (await deps.db.selectFrom("crypto_invoices").selectAll().where("id", "=", row.id).executeTakeFirstOrThrow());

  if (exception === "paidPartial") {
    // Short: recorded and visible, never activated. The customer pays the rest on the same BitPay invoice
    // while it is open, or asks for the money back (the billing history offers both: underpaymentsOf).
    const paidCents = Math.round(invoice.amountPaid * 100);
    await recordFailedPayment(deps.db, {
      userId: row.user_id,
      planId: row.plan_id,
      subscriptionId: row.subscription_id,
      amountCents: paidCents,
      gatewayRef: `${SHORT_PAYMENT_PREFIX}${invoice.id}`,
      walletPaymentType: "crypto",
      gateway: "bitpay",
      message: underpaidMessage(paidCents, row.amount_cents),
      now,
    });
    return current;
  }
  if (row.coupon_id !== null && !current.activated_at && statusRank(current.status) === statusRank("expired")) {
    // Expired or invalid without being paid: nothing will pay with the coupon's hold.
    await releaseCouponHold(deps.db, cryptoCouponReservationKey(row.uuid), now);
  }
  if (!SETTLED.has(invoice.status) || current.activated_at) return current;

  // Claim the activation: one winner across replays and instances.
  const claimed = await deps.db
    .updateTable("crypto_invoices")
    .set({ activated_at: now.toISOString() })
    .where("id", "=", row.id)
    .where("activated_at", "is", null)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) return current;

  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", row.plan_id).executeTakeFirstOrThrow();
  const renewed = row.kind === "renewal" && row.subscription_id !== null
    ? await deps.db.selectFrom("subscriptions").selectAll().where("id", "=", row.subscription_id).executeTakeFirst()
    : undefined;
  // A renewal continues from the plan's end (or from now, when it already ended); a purchase starts now.
  const start = renewed && renewed.sub_exp_date > now.toISOString() ? new Date(renewed.sub_exp_date) : now;
  let subscription: Awaited<ReturnType<typeof recordPaidInvoice>>;
  try {
    subscription = await recordPaidInvoice(deps.db, {
      userId: row.user_id,
      plan,
      gatewayRef: invoice.id,
      amountCents: row.amount_cents,
      tax: recordedTaxOfRow(row),
      gateway: "bitpay",
      walletPaymentType: "crypto",
      stripeSubId: null,
      subscriptionId: renewed ? Number(renewed.id) : null,
      periodStart: start,
      periodEnd: addMonthsUtc(start, plan.duration_months),
      first: !renewed,
      // A purchase's coupon counts its redemption and is recorded on the transaction, as for cards.
      couponId: renewed ? null : row.coupon_id,
      couponCode: renewed ? null : row.coupon_code,
      couponReservation: row.coupon_id !== null ? cryptoCouponReservationKey(row.uuid) : null,
      hostedInvoiceUrl: null,
      gatewayInvoiceId: invoice.id,
      // Crypto plans never renew by themselves (commerce §4): renewal is by the emailed invoice.
      subsStatus: "subscription_pending_creation",
      now,
    });
  } catch (error) {
    if (!isSecondSubscription(error)) throw error;
    // Another recurring plan completed first (bought while this invoice was open). A crypto payment cannot be
    // sent back by itself (it needs the buyer's address): it is recorded and shown, never applied, and the
    // customer asks for it back as for a short payment. The invoice stays claimed (activated_at), with no subscription.
    await recordFailedPayment(deps.db, {
      userId: row.user_id,
      planId: row.plan_id,
      amountCents: Math.round(invoice.amountPaid * 100) || row.amount_cents,
      gatewayRef: `${NOT_APPLIED_PREFIX}${invoice.id}`,
      walletPaymentType: "crypto",
      gateway: "bitpay",
      message: SUBSCRIPTION_MESSAGES.cryptoNotApplied,
      now,
    });
    await releaseCouponHold(deps.db, cryptoCouponReservationKey(row.uuid), now);
    deps.logger.warn(`BitPay invoice ${invoice.id} paid for a second recurring plan of user ${row.user_id}: recorded, not applied.`);
    return current;
  }
  await tellPaid(deps, {
    userId: row.user_id,
    gatewayRef: invoice.id,
    periodStart: start,
    periodEnd: accessEndOf(plan, addMonthsUtc(start, plan.duration_months), !renewed),
  });
  // The 5-year plan replaces a recurring card or PayPal plan: that one stops renewing, as when paid by card (decision 028).
  if (!renewed && plan.billing_type !== "recurring") {
    await endRecurringRenewal({ ...deps, gateway: deps.gateway ?? null }, row.user_id);
  }
  current = await deps.db
    .updateTable("crypto_invoices")
    .set({ subscription_id: subscription.id })
    .where("id", "=", row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return current;
}

/**
 * The scheduled job: a renewal invoice for every crypto plan ending within 3 days, emailed with the
 * due-invoice link. One per subscription and end date (the unique renewal_key), however many workers
 * run it at once. The BitPay invoice itself is opened when the customer presses 'Pay with Crypto'.
 */
export async function createDueRenewalInvoices(deps: CryptoDeps): Promise<number> {
  const now = deps.clock.now();
  const soon = new Date(now.getTime() + RENEWAL_NOTICE_DAYS * 86_400_000).toISOString();
  const due = await deps.db
    .selectFrom("subscriptions")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .innerJoin("plans", "plans.id", "subscriptions.plan_id")
    .select([
      "subscriptions.id as subscription_id",
      "subscriptions.sub_exp_date",
      "subscriptions.user_id",
      "subscriptions.plan_id",
      "users.email",
      "plans.title",
      "plans.discounted_price_cents",
    ])
    .where("subscriptions.subscription_by", "=", "bitpay")
    .where("subscriptions.billing_type", "=", "recurring")
    // A deleted account is not invoiced again (docs/decisions/015).
    .where("users.deleted_at", "is", null)
    .where("subscriptions.sub_exp_date", ">", now.toISOString())
    .where("subscriptions.sub_exp_date", "<=", soon)
    .execute();
  let created = 0;
  for (const sub of due) {
    const at = now.toISOString();
    // A renewal is taxed by the billing details as they are when its invoice is made.
    const taxed = taxedAmount(await accountTaxTreatment(deps.db, deps.taxRates, sub.user_id), sub.discounted_price_cents);
    const inserted = await deps.db
      .insertInto("crypto_invoices")
      .values({
        uuid: randomUUID(),
        user_id: sub.user_id,
        plan_id: sub.plan_id,
        kind: "renewal",
        subscription_id: sub.subscription_id,
        renewal_key: `${sub.subscription_id}:${sub.sub_exp_date}`,
        amount_cents: taxed.totalCents,
        ...taxColumnsOf(taxed),
        currency: "USD",
        bitpay_invoice_id: null,
        invoice_url: null,
        status: "due",
        exception_status: null,
        email: sub.email,
        activated_at: null,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) => oc.column("renewal_key").doNothing())
      .returning("uuid")
      .executeTakeFirst();
    if (!inserted) continue;
    created++;
    const lng = await languageOfUser(deps.db, Number(sub.user_id));
    await deps.mail.deliver(
      cryptoRenewalEmail(
        sub.email,
        {
          plan: sub.title,
          amount: formatMoney(lng, taxed.totalCents),
          taxSentence: taxSentenceOf(taxed, lng),
          expires: formatDateIn(lng, sub.sub_exp_date),
          link: `${deps.publicUrl}${dueInvoicePath(inserted.uuid)}`,
        },
        lng,
      ),
    );
  }
  return created;
}

/** A renewal invoice made on request (commerce §7 'Crypto renewal invoice', current_invoice_id). */
export async function createRenewalInvoice(deps: CryptoDeps, user: User, currentInvoiceId: string): Promise<CryptoInvoice> {
  const previous = await findCryptoInvoice(deps, currentInvoiceId);
  if (!previous || previous.user_id !== user.id) throw new DomainError("not_found", CRYPTO_MESSAGES.notFound);
  const sub = previous.subscription_id
    ? await deps.db.selectFrom("subscriptions").selectAll().where("id", "=", previous.subscription_id).executeTakeFirst()
    : undefined;
  if (sub?.subscription_by !== "bitpay") throw new DomainError("not_renewable", CRYPTO_MESSAGES.notRenewable);
  const open = await deps.db
    .selectFrom("crypto_invoices")
    .selectAll()
    .where("subscription_id", "=", sub.id)
    .where("kind", "=", "renewal")
    .where("activated_at", "is", null)
    .orderBy("id", "desc")
    .executeTakeFirst();
  if (open) return open;
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", sub.plan_id).executeTakeFirstOrThrow();
  const at = deps.clock.now().toISOString();
  const taxed = taxedAmount(await accountTaxTreatment(deps.db, deps.taxRates, user.id), plan.discounted_price_cents);
  return deps.db
    .insertInto("crypto_invoices")
    .values({
      uuid: randomUUID(),
      user_id: user.id,
      plan_id: plan.id,
      kind: "renewal",
      subscription_id: sub.id,
      renewal_key: `${sub.id}:${sub.sub_exp_date}`,
      amount_cents: taxed.totalCents,
      ...taxColumnsOf(taxed),
      currency: "USD",
      bitpay_invoice_id: null,
      invoice_url: null,
      status: "due",
      exception_status: null,
      email: user.email,
      activated_at: null,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.column("renewal_key").doNothing())
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What the portal shows of an invoice (data.invoice_details; the due-invoice page). */
export async function invoiceDetails(deps: Pick<CryptoDeps, "db">, row: CryptoInvoice) {
  const plan = await deps.db.selectFrom("plans").selectAll().where("id", "=", row.plan_id).executeTakeFirstOrThrow();
  const notApplied =
    row.activated_at !== null && row.subscription_id === null && row.bitpay_invoice_id
      ? await deps.db
          .selectFrom("transactions")
          .select("id")
          .where("gateway_ref", "=", `${NOT_APPLIED_PREFIX}${row.bitpay_invoice_id}`)
          .executeTakeFirst()
      : undefined;
  const short =
    row.exception_status === "paidPartial" && row.bitpay_invoice_id
      ? await deps.db
          .selectFrom("transactions")
          .select("amount_cents")
          .where("gateway_ref", "=", `${SHORT_PAYMENT_PREFIX}${row.bitpay_invoice_id}`)
          .executeTakeFirst()
      : undefined;
  const tax = recordedTaxOfRow({ ...row, reverse_charge: Number(row.reverse_charge) });
  return {
    id: row.uuid,
    kind: row.kind,
    plan_id: plan.id,
    title: plan.title,
    regular_price: dollars(plan.regular_price_cents),
    regular_price_cents: plan.regular_price_cents,
    discounted_price: dollars(row.amount_cents),
    discounted_price_cents: row.amount_cents,
    savings_cents: Math.max(0, plan.regular_price_cents - row.amount_cents),
    discount_percent: discountPercentOf(plan.regular_price_cents, row.amount_cents),
    currency: row.currency,
    status: row.status,
    exception_status: row.exception_status,
    // Activated with a subscription: a payment for a second recurring plan is claimed but never applied.
    paid: row.activated_at !== null && row.subscription_id !== null,
    not_applied: notApplied !== undefined,
    invoice_url: row.invoice_url,
    bitpay_invoice_id: row.bitpay_invoice_id,
    amount_paid: short ? dollars(short.amount_cents) : null,
    amount_paid_cents: short ? short.amount_cents : null,
    amount_missing_cents: short ? Math.max(0, row.amount_cents - short.amount_cents) : null,
    // What the invoice asks, as the checkout quoted it (issue 35): its net and VAT line, from the row.
    net_cents: tax.netCents,
    tax: taxLineOfRecorded(tax),
    created_at: row.created_at,
  };
}
