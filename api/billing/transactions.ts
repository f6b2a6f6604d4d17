import { z } from "zod";
import type { Database } from "../platform/db";
import { type Underpayment, underpaymentsOf } from "../payments/underpayments";
import { dollars } from "../payments/plans";
import { FAILED_STATUS } from "../payments/records";
import { type RowWithTax, TaxLineSchema, recordedTaxOfRow, taxLineOfRecorded } from "../payments/tax";
import { REFUND_WINDOW_DAYS, refundStatuses, refundableTransactionId } from "./refunds";

/*
 * The user's payment history (commerce §3 Transaction, §9 page size 5): newest first, with the
 * plan's title, the payment method and whether an invoice can be downloaded for it.
 */

export const HISTORY_PAGE_SIZE = 5;
export const MAX_PAGE_SIZE = 50;

const UnderpaymentSchema = z
  .strictObject({
    invoice_id: z.string().meta({ description: "Our crypto invoice id (uuid): what a refund request names." }),
    paid: z.number().meta({ description: "USD that arrived", examples: [5.99] }),
    due: z.number().meta({ description: "USD the invoice asked", examples: [11.99] }),
    missing: z.number().meta({ description: "due - paid", examples: [6] }),
    paid_cents: z.int(),
    due_cents: z.int(),
    missing_cents: z.int(),
    pay_url: z.string().nullable().meta({
      format: "uri",
      description: "BitPay's invoice page while the invoice still takes the rest (status new); null once it has closed (a new invoice for the missing amount alone is not made).",
    }),
  })
  .meta({ id: "Underpayment" });

export const TransactionSchema = z
  .strictObject({
    id: z.int(),
    created_at: z.string().meta({ format: "date-time" }),
    product: z.strictObject({ title: z.string() }),
    wallet_payment_type: z
      .string()
      .nullable()
      .meta({ description: "card, applepay, googlepay, crypto or paypal", examples: ["card"] }),
    payment_gateway: z.string().meta({ description: "stripe, bitpay or paypal", examples: ["stripe"] }),
    amount: z.number().meta({ description: "USD, two decimals", examples: [107.76] }),
    amount_cents: z.int().meta({ description: "The same in cents, VAT included", examples: [10776] }),
    net_cents: z.int().nullable().meta({ description: "Its invoice's net (before tax), in cents; null without an invoice (a failed attempt)." }),
    tax: TaxLineSchema.nullable().meta({ description: "Its invoice's VAT line (as the receipt's tax); null where no VAT applied or without an invoice." }),
    status: z.string().meta({
      description: "'paid', 'Payment failed', or 'refunded' (the money-back guarantee returned it; commerce §4: 'paid' shows as Paid)",
      examples: ["paid"],
    }),
    invoice_available: z.boolean().meta({
      description:
        "Whether GET /api/invoice/{id}/{payment_gateway} answers our invoice for it (a PDF, every gateway): every recorded payment has one.",
    }),
    invoice_number: z.string().nullable().meta({
      description: "Our invoice's number (INV-2026-000123 from the gap-free series; older invoices keep the number they were given), or null without an invoice.",
      examples: ["INV-2026-000123"],
    }),
    credit_note_number: z.string().nullable().meta({
      description: "The credit note of a refunded payment (CN-2026-000007; GET /api/credit-note/{id}/{payment_gateway} answers its PDF), else null.",
      examples: [null],
    }),
    refundable: z.boolean().meta({
      description: `Whether the ${REFUND_WINDOW_DAYS}-day money-back guarantee applies to it now (POST /api/billing/transactions/{id}/refund): the account's first paid payment, within ${REFUND_WINDOW_DAYS} days by the product's clock, no refund used yet.`,
    }),
    refund_status: z.enum(["pending", "refunded", "requested"]).nullable().meta({
      description: "The guarantee's state for this payment: pending (card refund under way), refunded, requested (crypto: staff send it), or null.",
    }),
    retries: z.int().meta({
      description:
        "How many times this payment was tried again after its first attempt (the gateway's automatic retries of a renewal, or paying its open invoice): one row stands for every attempt (docs/decisions/050). 0 for a payment tried once. The row's status is the outcome: 'paid' (or refunded) once an attempt paid, else 'Payment failed'.",
      examples: [4],
    }),
    last_attempt_at: z.string().meta({
      format: "date-time",
      description: "When the latest attempt was made: the paying one, else the last that failed. Equals created_at (the first attempt) when it was tried once.",
    }),
    underpayment: UnderpaymentSchema.nullable().meta({
      description:
        "A crypto payment that arrived short (a 'Payment failed' row whose amount is what arrived): what was due and what is missing, and where the rest can be paid while BitPay's invoice is open. null otherwise, and once the invoice was paid in full.",
    }),
  })
  .meta({ id: "Transaction" });

export const PaginationSchema = z
  .strictObject({
    current_page: z.int(),
    last_page: z.int(),
    per_page: z.int(),
    total: z.int(),
  })
  .meta({ id: "TransactionPagination" });

export type PublicTransaction = z.infer<typeof TransactionSchema>;
export type Pagination = z.infer<typeof PaginationSchema>;

export async function listTransactions(
  db: Database,
  userId: number,
  page: number,
  perPage: number,
  now: Date,
): Promise<{ transactions: PublicTransaction[]; pagination: Pagination }> {
  // Every attempt is a row in the database; the history shows one row per payment (its attempts
  // grouped), so the grouping comes before the paging. An account's history is small (a row a
  // renewal), and grouping here keeps the SQL the same on SQLite and PostgreSQL.
  const attempts = await db
    .selectFrom("transactions")
    .select(["id", "created_at", "status", "gateway_ref"])
    .where("user_id", "=", userId)
    .execute();
  const payments = groupAttempts(attempts);
  const total = payments.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const shown = payments.slice((page - 1) * perPage, page * perPage);
  const rows =
    shown.length === 0
      ? []
      : await db
          .selectFrom("transactions")
          .innerJoin("plans", "plans.id", "transactions.plan_id")
          .leftJoin("invoices", "invoices.transaction_id", "transactions.id")
          .leftJoin("credit_notes", "credit_notes.invoice_id", "invoices.id")
          .select([
            "transactions.id",
            "transactions.wallet_payment_type",
            "transactions.payment_gateway",
            "transactions.amount_cents",
            "transactions.status",
            "transactions.gateway_ref",
            "plans.title",
            "invoices.id as invoice_id",
            "invoices.number as invoice_number",
            "invoices.net_cents",
            "invoices.vat_cents",
            "invoices.vat_rate",
            "invoices.tax_country",
            "invoices.reverse_charge",
            "credit_notes.number as credit_note_number",
          ])
          .where("transactions.user_id", "=", userId)
          .where(
            "transactions.id",
            "in",
            shown.map((p) => p.id),
          )
          .execute();
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  const [refundableId, refunds, shorts] = await Promise.all([
    refundableTransactionId(db, userId, now),
    refundStatuses(db, rows.map((row) => Number(row.id))),
    underpaymentsOf(db, userId, rows.map((row) => row.gateway_ref)),
  ]);
  return {
    transactions: shown.flatMap((payment) => {
      const row = byId.get(payment.id);
      if (!row) return [];
      return [
        {
          id: payment.id,
          created_at: payment.firstAt,
          product: { title: row.title },
          wallet_payment_type: row.wallet_payment_type,
          payment_gateway: row.payment_gateway,
          amount: dollars(row.amount_cents),
          amount_cents: row.amount_cents,
          ...historyTaxOf(row),
          status: row.status,
          invoice_available: row.invoice_id !== null,
          invoice_number: row.invoice_number ?? null,
          credit_note_number: row.credit_note_number ?? null,
          refundable: payment.id === refundableId,
          refund_status: refunds.get(payment.id) ?? null,
          retries: payment.retries,
          last_attempt_at: payment.lastAt,
          underpayment: underpaymentView(row.gateway_ref ? shorts.get(row.gateway_ref) : undefined),
        },
      ];
    }),
    pagination: { current_page: page, last_page: lastPage, per_page: perPage, total },
  };
}

/** A history row's net and VAT line, from its invoice (none: a failed attempt). */
function historyTaxOf(row: RowWithTax & { invoice_id: number | null }): { net_cents: number | null; tax: z.infer<typeof TaxLineSchema> | null } {
  if (row.invoice_id === null) return { net_cents: null, tax: null };
  const recorded = recordedTaxOfRow({ ...row, reverse_charge: row.reverse_charge === null ? null : Number(row.reverse_charge) });
  return { net_cents: recorded.netCents, tax: taxLineOfRecorded(recorded) };
}

/**
 * A failed attempt of a Stripe invoice or PaymentIntent: 'failed:in_…' for its first attempt and
 * 'failed:in_…:N' for its Nth (api/payments/stripe/webhooks.ts, card-payments.ts). The payment that
 * paid it is recorded under the bare id ('in_…'), so the id is what groups the attempts.
 */
const FAILED_ATTEMPT = /^failed:([^:]+)(?::\d+)?$/;

interface Attempt {
  id: number | string;
  created_at: string;
  status: string;
  gateway_ref: string | null;
}

/** One history row: the transaction that tells its outcome, and its attempts' span. */
export interface GroupedPayment {
  /** The paying transaction, else the latest failed attempt. */
  id: number;
  firstAt: string;
  lastAt: string;
  retries: number;
}

/** The page of the payment history (newest first, `perPage` a page) that lists a payment, by the id of its row; 1 when none does. */
export async function historyPageOf(db: Database, userId: number, transactionId: number, perPage = HISTORY_PAGE_SIZE): Promise<number> {
  const attempts = await db.selectFrom("transactions").select(["id", "created_at", "status", "gateway_ref"]).where("user_id", "=", userId).execute();
  const index = groupAttempts(attempts).findIndex((payment) => payment.id === transactionId);
  return index < 0 ? 1 : Math.floor(index / perPage) + 1;
}

/**
 * Groups a user's transactions into payments (a renewal and its retries are one), newest first by
 * their first attempt. A transaction without a gateway reference is a payment of its own.
 */
export function groupAttempts(attempts: readonly Attempt[]): GroupedPayment[] {
  const groups = new Map<string, Attempt[]>();
  for (const attempt of attempts) {
    const failed = attempt.status === FAILED_STATUS && attempt.gateway_ref ? FAILED_ATTEMPT.exec(attempt.gateway_ref) : null;
    const key = failed ? `ref:${failed[1]}` : attempt.gateway_ref ? `ref:${attempt.gateway_ref}` : `id:${attempt.id}`;
    const group = groups.get(key);
    if (group) group.push(attempt);
    else groups.set(key, [attempt]);
  }
  const newestFirst = (a: Attempt, b: Attempt) => (a.created_at === b.created_at ? Number(b.id) - Number(a.id) : a.created_at < b.created_at ? 1 : -1);
  const payments = [...groups.values()].map((group) => {
    const sorted = [...group].sort(newestFirst);
    const outcome = sorted.find((a) => a.status !== FAILED_STATUS) ?? sorted[0]!;
    const first = sorted[sorted.length - 1]!;
    return { id: Number(outcome.id), firstAt: first.created_at, lastAt: sorted[0]!.created_at, retries: group.length - 1 };
  });
  return payments.sort((a, b) => (a.firstAt === b.firstAt ? b.id - a.id : a.firstAt < b.firstAt ? 1 : -1));
}

function underpaymentView(short: Underpayment | undefined): z.infer<typeof UnderpaymentSchema> | null {
  if (!short) return null;
  return {
    invoice_id: short.invoiceId,
    paid: dollars(short.paidCents),
    due: dollars(short.dueCents),
    missing: dollars(Math.max(0, short.dueCents - short.paidCents)),
    pay_url: short.payUrl,
    paid_cents: short.paidCents,
    due_cents: short.dueCents,
    missing_cents: Math.max(0, short.dueCents - short.paidCents),
  };
}
