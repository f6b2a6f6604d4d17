import { readFileSync } from "node:fs";
import { isEuCountry } from "./countries";

/*
 * The tax table (issue 35, docs/decisions/061): the standard VAT rate of every EU member state, in
 * basis points (1900 = 19 %), which the seller charges an EU consumer under the one-stop shop (OSS).
 * Every other country is 0: no VAT. PayPal and crypto payments are taxed from it directly, and the
 * Stripe stand-in computes Stripe Tax's answer from it. It is read and checked once at boot with
 * the rest of the configuration; TAX_RATES_FILE overrides rows (a rate changes on a law's date, not
 * on a release's).
 */

/** Basis points per country: only EU member states; a country absent is 0. */
export type TaxRates = Readonly<Record<string, number>>;

/** The EU's standard rates as they stand in 2026 (EE 24 % from 7/2025, FI 25.5 % from 9/2024, RO 21 % from 8/2025, SK 23 % from 2025). */
export const DEFAULT_TAX_RATES: TaxRates = Object.freeze({
  AT: 2000, BE: 2100, BG: 2000, CY: 1900, CZ: 2100, DE: 1900, DK: 2500, EE: 2400, ES: 2100,
  FI: 2550, FR: 2000, GR: 2400, HR: 2500, HU: 2700, IE: 2300, IT: 2200, LT: 2100, LU: 1700,
  LV: 2100, MT: 1800, NL: 2100, PL: 2300, PT: 2300, RO: 2100, SE: 2500, SI: 2200, SK: 2300,
});

/** A rate of the file: a percent as a decimal string with at most two decimals ("19", "25.5"), below 100. */
const PERCENT = /^(\d{1,2})(?:\.(\d{1,2}))?$/;

/** "25.5" → 2550; null when it is not a percent the table can hold (no floats on the way). */
export function basisPointsOf(percent: string): number | null {
  const m = PERCENT.exec(percent.trim());
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/** 2550 → "25.5", 1900 → "19": the rate as invoices print it. */
export function percentOf(basisPoints: number): string {
  const whole = Math.floor(basisPoints / 100);
  const fraction = String(basisPoints % 100).padStart(2, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** The rate of a country in basis points; 0 outside the table. */
export function rateOf(rates: TaxRates, country: string): number {
  return Object.hasOwn(rates, country) ? rates[country]! : 0;
}

/**
 * TAX_RATES_FILE: a JSON object of EU country codes and percents as strings, e.g. {"EE": "24", "FI": "25.5"},
 * laid over the built-in table. Answers the table, or what is wrong with the file (the boot names it).
 */
export function readTaxRatesFile(path: string): { rates: TaxRates } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return { problem: `cannot read ${path} as JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { problem: `${path} must be a JSON object of country codes and percents, e.g. {"DE": "19"}` };
  }
  const rates: Record<string, number> = { ...DEFAULT_TAX_RATES };
  for (const [country, value] of Object.entries(parsed)) {
    if (!isEuCountry(country)) return { problem: `${path}: ${country} is not an EU member state (only they are taxed, through the OSS)` };
    const points = typeof value === "string" ? basisPointsOf(value) : null;
    if (points === null) return { problem: `${path}: the rate of ${country} must be a percent as a string with at most two decimals, e.g. "19" or "25.5"` };
    rates[country] = points;
  }
  return { rates: Object.freeze(rates) };
}
