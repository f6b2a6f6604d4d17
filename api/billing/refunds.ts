import { timingSafeEqual, createHash } from "node:crypto";
import { asLanguage, formatMoney } from "../platform/i18n";
import { issueCreditNote } from "./credit-notes";
import { z } from "zod";
import type { Logger } from "../platform/logger";
import type { Database } from "../platform/db";
import { isUniqueViolation } from "../platform/db";
import type { GuaranteeUseKind, RefundKind, Transaction } from "../platform/db/schema";
import type { Clock } from "../platform/clock";
import { refundConfirmationEmail, refundRequestEmail } from "./emails";
import { DomainError, type ErrorCode } from "../platform/errors";
import type { MailService } from "../platform/mailer";
import { NOT_RENEWING } from "../payments/records";
import { type Gateways, GatewayUnavailable, gatewayFor, refundKindOf } from "../payments/gateway";
import { dollars } from "../payments/plans";
import { findUserById, languageOfUser } from "../identity/users";

/*
 * The 30-day money-back guarantee (docs/decisions/016): once per account, for the account's first
 * paid plan, within 30 days of that payment by the product's clock. One function, refundEligibility,
 * decides it both for the billing history's `refundable` flag and for the refund post, so a forged
 * post meets the same rules as the button.
 *
 * Card and wallet payments go back through the card gateway (Stripe or its sandbox) with an
 * idempotency key derived from the transaction; crypto payments cannot be returned automatically, so
 * the customer leaves an address and staff send it (GET /api/admin/refund-requests). Either way the
 * subscription the payment bought ends at once.
 *
 * Once per customer, not only per account (issue 17): a deleted account's email may sign up again,
 * and one card may pay for several accounts. refund_guarantee_uses keeps, with no link to any
 * account, a hash of the email of every account that used the guarantee and a hash of the card
 * fingerprint of every refunded card payment; a refund is refused when either already had one. The
 * rows are inserted in the same transaction as the claim, so parallel posts of two accounts with one
 * card (or one email) get one refund.
 *
 * Concurrency: the refunds row (unique user_id and transaction_id) is the claim. Every post for the
 * claimed transaction may call the gateway, but with the same idempotency key, so the gateway makes
 * one refund; the state change is one conditional UPDATE (pending -> refunded), which exactly one
 * post wins, and only that one ends the subscription and sends the email.
 */

export const REFUND_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export const REFUND_MESSAGES = {
  refunded: "Your payment has been refunded.",
  requested: "Your refund request has been received. We will send the refund to your address.",
  notFound: "Transaction not found.",
  alreadyUsed: "The money-back guarantee has already been used on this account.",
  emailUsed: "The money-back guarantee has already been used with this email address.",
  cardUsed: "The money-back guarantee has already been used with this card.",
  notFirst: "Only the payment for your first paid plan can be refunded.",
  notPaid: "Only a successful payment can be refunded.",
  tooLate: `The ${REFUND_WINDOW_DAYS}-day money-back guarantee for this payment has ended.`,
  addressRequired: "Please enter the address to send your crypto refund to.",
  addressInvalid: "Please enter a valid crypto address (letters and digits, 20 to 120 characters).",
  gatewayFailed: "The refund could not be made right now. Please try again.",
  adminUnauthorized: "Unauthenticated.",
  requestNotFound: "Refund request not found.",
  adminNotConfigured: "Not found.",
} as const;

/** A crypto address or payment URI as wallets show them (bech32, base58, 0x…, with an optional scheme). */
export const REFUND_ADDRESS_PATTERN = /^(?:[a-z]{2,20}:)?[A-Za-z0-9]{20,120}$/;

export const refundAddressField = () =>
  z
    .string({ error: REFUND_MESSAGES.addressInvalid })
    .trim()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .refine((v) => v === undefined || REFUND_ADDRESS_PATTERN.test(v), { message: REFUND_MESSAGES.addressInvalid })
    .meta({ description: "Crypto payments only: where the refund is sent (required for them, ignored for cards)." });

export interface RefundDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  mail: MailService;
  /** The gateways that are on: a payment goes back through the one that took it (gatewayFor). */
  gateways: Gateways;
}

type Refusal = { ok: false; code: ErrorCode; message: string };

/**
 * What refund_guarantee_uses keeps: sha256 of the trimmed, lower-cased email or of the gateway's
 * card fingerprint, each under its own prefix (never the email or the fingerprint itself). Migration
 * 0009 computes the email key the same way for refunds made before it.
 */
export function guaranteeKey(kind: GuaranteeUseKind, value: string): string {
  const normalised = kind === "email" ? value.trim().toLowerCase() : value;
  return createHash("sha256").update(`vpn-portal refund-guarantee ${kind} v1:${normalised}`, "utf8").digest("hex");
}

async function guaranteeUsed(db: Database, kind: GuaranteeUseKind, value: string): Promise<boolean> {
  const row = await db
    .selectFrom("refund_guarantee_uses")
    .select("id")
    .where("kind", "=", kind)
    .where("key_hash", "=", guaranteeKey(kind, value))
    .executeTakeFirst();
  return row !== undefined;
}
export type Eligibility = { ok: true; transaction: Transaction; kind: RefundKind } | Refusal;

/** The account's first paid payment (paid or since refunded), or undefined. */
async function firstPaidTransaction(db: Database, userId: number): Promise<Transaction | undefined> {
  return db
    .selectFrom("transactions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("status", "in", ["paid", "refunded"])
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .limit(1)
    .executeTakeFirst();
}

function withinWindow(createdAt: string, now: Date): boolean {
  return now.getTime() - new Date(createdAt).getTime() <= REFUND_WINDOW_DAYS * DAY_MS;
}

/**
 * Whether `transactionId` (of `userId`) may be refunded now; without an id, which transaction of the
 * account may be (for the history's flag). The rules, in the order their refusals are told.
 */
export async function refundEligibility(db: Database, userId: number, now: Date, transactionId?: number): Promise<Eligibility> {
  const [target, first, used, user] = await Promise.all([
    transactionId === undefined
      ? Promise.resolve(undefined)
      : db.selectFrom("transactions").selectAll().where("id", "=", transactionId).where("user_id", "=", userId).executeTakeFirst(),
    firstPaidTransaction(db, userId),
    db.selectFrom("refunds").select("id").where("user_id", "=", userId).executeTakeFirst(),
    findUserById(db, userId),
  ]);
  const transaction = transactionId === undefined ? first : target;
  // A deleted account is no one: its payments are no one's to refund, and its email (a tombstone)
  // could not stand for the customer in refund_guarantee_uses.
  if (!transaction || !user) return { ok: false, code: "not_found", message: REFUND_MESSAGES.notFound };
  if (used) return { ok: false, code: "refund_already_used", message: REFUND_MESSAGES.alreadyUsed };
  // An earlier account with this email (since deleted) used it. The card is checked at the refund
  // itself: its fingerprint is the gateway's.
  if (await guaranteeUsed(db, "email", user.email)) return { ok: false, code: "refund_guarantee_used", message: REFUND_MESSAGES.emailUsed };
  if (transaction.status !== "paid") return { ok: false, code: "refund_not_eligible", message: REFUND_MESSAGES.notPaid };
  if (!first || first.id !== transaction.id) return { ok: false, code: "refund_not_eligible", message: REFUND_MESSAGES.notFirst };
  if (!withinWindow(transaction.created_at, now)) return { ok: false, code: "refund_window_closed", message: REFUND_MESSAGES.tooLate };
  return { ok: true, transaction, kind: refundKindOf(transaction) };
}

/** The id of the account's one refundable transaction right now, or null (the history's flag). */
export async function refundableTransactionId(db: Database, userId: number, now: Date): Promise<number | null> {
  const eligibility = await refundEligibility(db, userId, now);
  return eligibility.ok ? Number(eligibility.transaction.id) : null;
}

/** Refund states by transaction id, for the history's `refund_status`. */
export async function refundStatuses(db: Database, transactionIds: number[]): Promise<Map<number, "requested" | "refunded" | "pending">> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db.selectFrom("refunds").select(["transaction_id", "status"]).where("transaction_id", "in", transactionIds).execute();
  return new Map(rows.map((r) => [Number(r.transaction_id), r.status]));
}

export type RefundOutcome = { status: "refunded" | "requested"; message: string };

/** Refunds (card) or records a refund request for (crypto) a transaction of `userId`. */
export async function requestRefund(
  deps: RefundDeps,
  input: { userId: number; email: string; transactionId: number; refundAddress?: string },
): Promise<RefundOutcome> {
  const { db } = deps;
  const now = deps.clock.now();
  const claimOf = () => db.selectFrom("refunds").selectAll().where("user_id", "=", input.userId).executeTakeFirst();
  const claim = await claimOf();
  // A post for the transaction already claimed (a double submit, a retry after a gateway failure)
  // continues that refund instead of being refused by the once-per-account rule.
  if (claim && Number(claim.transaction_id) === input.transactionId) return continueRefund(deps, input, claim.id);

  // A parallel post may have claimed this very transaction since the first look (and recorded its
  // email and card): then this post follows that refund instead of being refused.
  const USED: ErrorCode[] = ["refund_already_used", "refund_guarantee_used"];
  const refuse = async (code: ErrorCode, message: string): Promise<RefundOutcome> => {
    const late = USED.includes(code) ? await claimOf() : undefined;
    if (late && Number(late.transaction_id) === input.transactionId) return continueRefund(deps, input, late.id);
    throw new DomainError(code, message);
  };

  const eligibility = await refundEligibility(db, input.userId, now, input.transactionId);
  if (!eligibility.ok) return refuse(eligibility.code, eligibility.message);
  const { transaction, kind } = eligibility;
  if (kind === "crypto" && !input.refundAddress) {
    throw new DomainError("validation_failed", REFUND_MESSAGES.addressRequired, { field: "refund_address" });
  }

  // The card that paid, as the gateway identifies it (card payments only).
  const fingerprint = kind === "card" ? await cardFingerprintOf(deps, transaction) : null;
  if (fingerprint && (await guaranteeUsed(db, "card", fingerprint))) return refuse("refund_guarantee_used", REFUND_MESSAGES.cardUsed);
  const account = await findUserById(db, input.userId);
  if (!account) throw new DomainError("not_found", REFUND_MESSAGES.notFound);

  const at = now.toISOString();
  try {
    // The claim and what outlives the account, together: either all of it or none.
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto("refunds")
        .values({
          user_id: input.userId,
          transaction_id: Number(transaction.id),
          kind,
          status: kind === "crypto" ? "requested" : "pending",
          amount_cents: transaction.amount_cents,
          refund_address: kind === "crypto" ? (input.refundAddress ?? null) : null,
          gateway_refund_id: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const uses: { kind: GuaranteeUseKind; key_hash: string; created_at: string }[] = [
        { kind: "email", key_hash: guaranteeKey("email", account.email), created_at: at },
      ];
      if (fingerprint) uses.push({ kind: "card", key_hash: guaranteeKey("card", fingerprint), created_at: at });
      for (const use of uses) await trx.insertInto("refund_guarantee_uses").values(use).execute();
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // A parallel post claimed first: for this transaction, follow it; for another, the rule refuses.
    const winner = await db.selectFrom("refunds").selectAll().where("user_id", "=", input.userId).executeTakeFirst();
    if (winner && Number(winner.transaction_id) === input.transactionId) return continueRefund(deps, input, winner.id);
    if (winner) throw new DomainError("refund_already_used", REFUND_MESSAGES.alreadyUsed);
    // Another account with the same email or card claimed first.
    return refuse("refund_guarantee_used", (await guaranteeUsed(db, "email", account.email)) ? REFUND_MESSAGES.emailUsed : REFUND_MESSAGES.cardUsed);
  }
  const row = await db.selectFrom("refunds").select("id").where("user_id", "=", input.userId).executeTakeFirstOrThrow();
  if (kind === "crypto") {
    // Crypto: the request is the commitment; the plan ends now and staff send the money.
    await endSubscription(db, transaction, now);
    const lng = await languageOfUser(db, input.userId);
    await deps.mail.deliver(
      refundRequestEmail(input.email, { amount: formatMoney(lng, transaction.amount_cents), address: input.refundAddress! }, lng),
    );
    return { status: "requested", message: REFUND_MESSAGES.requested };
  }
  return continueRefund(deps, input, row.id);
}

/** Carries a claimed refund to its end; safe to run any number of times, in parallel. */
async function continueRefund(deps: RefundDeps, input: { userId: number; email: string }, refundId: number): Promise<RefundOutcome> {
  const { db } = deps;
  const refund = await db.selectFrom("refunds").selectAll().where("id", "=", refundId).executeTakeFirstOrThrow();
  if (refund.status === "requested") return { status: "requested", message: REFUND_MESSAGES.requested };
  if (refund.status === "refunded") return { status: "refunded", message: REFUND_MESSAGES.refunded };
  const transaction = await db.selectFrom("transactions").selectAll().where("id", "=", refund.transaction_id).executeTakeFirstOrThrow();

  const gatewayRefundId = await refundAtGateway(deps, transaction);
  const now = deps.clock.now();
  const won = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable("refunds")
      .set({ status: "refunded", gateway_refund_id: gatewayRefundId, updated_at: now.toISOString() })
      .where("id", "=", refund.id)
      .where("status", "=", "pending")
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await trx.updateTable("transactions").set({ status: "refunded" }).where("id", "=", transaction.id).execute();
    // The refund's credit note, with the refund: its number is taken only if the refund is recorded.
    await issueCreditNote(trx, { transactionId: Number(transaction.id), amountCents: refund.amount_cents, now });
    await endSubscription(trx, transaction, now);
    return true;
  });
  if (won) {
    const lng = await languageOfUser(db, input.userId);
    await deps.mail.deliver(refundConfirmationEmail(input.email, { amount: formatMoney(lng, transaction.amount_cents) }, lng));
  }
  return { status: "refunded", message: REFUND_MESSAGES.refunded };
}

/** The gateway's fingerprint of the card that made a payment (null when it has none); 502 when the gateway fails. */
async function cardFingerprintOf(deps: RefundDeps, transaction: Transaction): Promise<string | null> {
  const gateway = gatewayFor(deps.gateways, transaction);
  if (!gateway) return null;
  try {
    return await gateway.cardFingerprint(transaction);
  } catch (error) {
    if (error instanceof GatewayUnavailable) throw new DomainError("gateway_failed", REFUND_MESSAGES.gatewayFailed);
    throw error;
  }
}

/**
 * The refund at the gateway that took the payment (full amount), and the end of the gateway's subscription.
 * The keys derive from the transaction, so parallel posts and retries make one refund and one cancellation.
 */
async function refundAtGateway(deps: RefundDeps, transaction: Transaction): Promise<string | null> {
  const key = `refund-transaction-${transaction.id}`;
  const gateway = gatewayFor(deps.gateways, transaction);
  if (!gateway) {
    deps.logger.warn(`Refund of transaction ${transaction.id}: ${transaction.payment_gateway} is off.`);
    throw new DomainError("gateway_failed", REFUND_MESSAGES.gatewayFailed);
  }
  try {
    return await gateway.refund(transaction, key);
  } catch (error) {
    if (error instanceof GatewayUnavailable) throw new DomainError("gateway_failed", REFUND_MESSAGES.gatewayFailed);
    throw error;
  }
}

/** The subscription a refunded payment bought ends now (access too), and never renews. */
async function endSubscription(db: Pick<Database, "updateTable">, transaction: Transaction, now: Date): Promise<void> {
  if (!transaction.subscription_id) return;
  const at = now.toISOString();
  await db
    .updateTable("subscriptions")
    .set({ sub_exp_date: at, subs_status: NOT_RENEWING, cancel_at_period_end: 1, updated_at: at })
    .where("id", "=", transaction.subscription_id)
    .where("sub_exp_date", ">", at)
    .execute();
  // A past-due subscription's grace period (docs/decisions/027) ends with it too.
  await db
    .updateTable("subscriptions")
    .set({ grace_until: at, past_due_invoice_id: null, updated_at: at })
    .where("id", "=", transaction.subscription_id)
    .where("grace_until", ">", at)
    .execute();
}

// Staff -----------------------------------------------------------------------------------------

export const CompletedRefundSchema = z
  .strictObject({
    id: z.int(),
    transaction_id: z.int(),
    status: z.literal("refunded"),
    amount_cents: z.int().meta({ description: "What was refunded, VAT included: the payment's total." }),
    credit_note_number: z.string().nullable().meta({ description: "The credit note issued for it (CN-2026-000007); null when the payment has no invoice.", examples: ["CN-2026-000007"] }),
    reference: z.string().nullable().meta({ description: "What staff gave as the transfer's reference (the blockchain transaction id)." }),
  })
  .meta({ id: "CompletedRefund" });

/**
 * Staff sent a crypto refund (docs/decisions/061): the request becomes refunded, the payment 'refunded', its
 * credit note (CN-…, the invoice's VAT share taken back) is issued in the same database transaction, and the
 * customer is told once. Again for the same request: the same answer, nothing more.
 */
export async function completeCryptoRefund(deps: RefundDeps, refundId: number, reference: string | null): Promise<z.infer<typeof CompletedRefundSchema>> {
  const { db } = deps;
  const refund = await db.selectFrom("refunds").selectAll().where("id", "=", refundId).where("kind", "=", "crypto").executeTakeFirst();
  if (!refund || (refund.status !== "requested" && refund.status !== "refunded")) throw new DomainError("not_found", REFUND_MESSAGES.requestNotFound);
  const now = deps.clock.now();
  const won = await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable("refunds")
      .set({ status: "refunded", gateway_refund_id: reference, updated_at: now.toISOString() })
      .where("id", "=", refund.id)
      .where("status", "=", "requested")
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await trx.updateTable("transactions").set({ status: "refunded" }).where("id", "=", refund.transaction_id).execute();
    await issueCreditNote(trx, { transactionId: Number(refund.transaction_id), amountCents: refund.amount_cents, now });
    return true;
  });
  const done = await db
    .selectFrom("refunds")
    .leftJoin("invoices", "invoices.transaction_id", "refunds.transaction_id")
    .leftJoin("credit_notes", "credit_notes.invoice_id", "invoices.id")
    .select(["refunds.id", "refunds.transaction_id", "refunds.amount_cents", "refunds.gateway_refund_id", "refunds.refund_address", "refunds.user_id", "credit_notes.number"])
    .where("refunds.id", "=", refund.id)
    .executeTakeFirstOrThrow();
  if (won) {
    const user = await db.selectFrom("users").select(["email", "deleted_at", "language"]).where("id", "=", done.user_id).executeTakeFirst();
    if (user && user.deleted_at === null) {
      const lng = asLanguage(user.language);
      await deps.mail.deliver(
        refundConfirmationEmail(
          user.email,
          { amount: formatMoney(lng, done.amount_cents), crypto: { address: done.refund_address ?? "", creditNote: done.number ?? null } },
          lng,
        ),
      );
    }
  }
  return {
    id: Number(done.id),
    transaction_id: Number(done.transaction_id),
    status: "refunded",
    amount_cents: done.amount_cents,
    credit_note_number: done.number ?? null,
    reference: done.gateway_refund_id,
  };
}

export const RefundRequestSchema = z
  .strictObject({
    id: z.int(),
    transaction_id: z.int(),
    user_email: z.string(),
    plan: z.string(),
    amount: z.number().meta({ description: "USD, two decimals", examples: [107.76] }),
    amount_cents: z.int(),
    refund_address: z.string(),
    requested_at: z.string().meta({ format: "date-time" }),
    paid_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "RefundRequest" });

/** Open crypto refund requests, oldest first (the order staff should work in). */
export async function openRefundRequests(db: Database): Promise<z.infer<typeof RefundRequestSchema>[]> {
  const rows = await db
    .selectFrom("refunds")
    .innerJoin("users", "users.id", "refunds.user_id")
    .innerJoin("transactions", "transactions.id", "refunds.transaction_id")
    .innerJoin("plans", "plans.id", "transactions.plan_id")
    .select([
      "refunds.id",
      "refunds.transaction_id",
      "users.email",
      "plans.title",
      "refunds.amount_cents",
      "refunds.refund_address",
      "refunds.created_at",
      "transactions.created_at as paid_at",
    ])
    .where("refunds.kind", "=", "crypto")
    .where("refunds.status", "=", "requested")
    .orderBy("refunds.created_at", "asc")
    .orderBy("refunds.id", "asc")
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    transaction_id: Number(r.transaction_id),
    user_email: r.email,
    plan: r.title,
    amount: dollars(r.amount_cents),
    amount_cents: r.amount_cents,
    refund_address: r.refund_address ?? "",
    requested_at: r.created_at,
    paid_at: r.paid_at,
  }));
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

/**
 * Staff authentication: 404 when no ADMIN_API_TOKEN is configured (the endpoint does not exist for
 * this deployment), 401 unless the bearer token equals it (compared in constant time, as hashes).
 */
export function requireAdmin(configured: string | undefined, authorization: string | undefined): void {
  if (!configured) throw new DomainError("not_found", REFUND_MESSAGES.adminNotConfigured);
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  if (!match || !timingSafeEqual(sha256(match[1]!), sha256(configured))) throw new DomainError("unauthenticated", REFUND_MESSAGES.adminUnauthorized);
}
