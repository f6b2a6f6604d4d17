import type { Database } from "../platform/db";

/*
 * Gap-free document numbers (docs/decisions/060): 'INV-2026-000123' for invoices, 'CN-2026-000007'
 * for credit notes. One counter row per (series, year) in document_counters; a number is taken by
 * one atomic upsert (`INSERT … ON CONFLICT DO UPDATE SET value = value + 1 RETURNING value`) inside
 * the transaction that records the document. PostgreSQL holds the row's lock until that transaction
 * ends, so a parallel document waits and then takes the next number; SQLite's write transaction
 * holds the whole database. A transaction that rolls back gives its number back with it: numbers
 * are consecutive in what was committed, never skipped and never reused.
 */

export type DocumentSeries = "INV" | "CN";

/** The number's year: the document date's, in UTC. */
export function documentYear(date: Date): number {
  return date.getUTCFullYear();
}

export function formatDocumentNumber(series: DocumentSeries, year: number, value: number): string {
  return `${series}-${year}-${String(value).padStart(6, "0")}`;
}

/** Takes the next number of `series` for `date`'s year. Call it inside the transaction that records the document. */
export async function nextDocumentNumber(trx: Database, series: DocumentSeries, date: Date): Promise<string> {
  const year = documentYear(date);
  const row = await trx
    .insertInto("document_counters")
    .values({ series, year, value: 1 })
    .onConflict((oc) => oc.columns(["series", "year"]).doUpdateSet((eb) => ({ value: eb("document_counters.value", "+", 1) })))
    .returning("value")
    .executeTakeFirstOrThrow();
  return formatDocumentNumber(series, year, Number(row.value));
}
