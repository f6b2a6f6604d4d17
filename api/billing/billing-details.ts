import type { Database } from "../platform/db";
import { text } from "../platform/i18n";
import type { VatNumberStatus } from "../platform/db/schema";
import { DomainError } from "../platform/errors";
import type { Logger } from "../platform/logger";
import { EU_VAT_FORMATS, countryName, isEuCountry, normaliseVatNumber } from "./countries";

/*
 * The account's billing details (issue 35, docs/decisions/060): country, name, address and, for an
 * EU country, a VAT number. An invoice copies them when it is made (api/payments/records.ts), so a
 * change here never alters an invoice already issued.
 *
 * The VAT number: its format is checked against its country's (countries.ts); then
 * - sandbox mode: a stand-in of VIES says a number whose digits are all zeros (DE000000000) is not
 *   registered and any other is (DE123456789);
 * - VIES_CHECK=true (live): the EU's VIES service is asked; a number it does not know is refused, and
 *   when VIES cannot answer the number is kept as 'unchecked' (the customer is not blocked by an outage);
 * - otherwise: accepted on its format alone and recorded as 'unchecked'.
 * A VAT number given with a country outside the EU is ignored (not stored): only EU businesses have one
 * that an invoice needs, and the form without JavaScript shows the field for every country.
 */

export const BILLING_DETAILS_MESSAGES = {
  saved: "Billing details saved.",
  countrySaved: "Country saved.",
  vatInvalid: "This VAT number is not valid.",
  vatFormat: (country: string) => `This is not a VAT number of ${countryName(country)}: it starts with ${EU_VAT_FORMATS[country]!.prefix}, e.g. ${example(country)}.`,
} as const;

function example(country: string): string {
  const samples: Record<string, string> = { DE: "DE123456789", AT: "ATU12345678", FR: "FRXX123456789", NL: "NL123456789B01", GR: "EL123456789" };
  return samples[country] ?? `${EU_VAT_FORMATS[country]!.prefix}…`;
}

/** Whether a VAT number is registered: VIES, or its stand-in. */
export interface VatChecker {
  /** true / false: registered or not; null: the service could not answer. */
  check(country: string, vatNumber: string): Promise<boolean | null>;
}

/** The sandbox's stand-in: all zeros is unregistered, anything else is registered. */
export const sandboxVatChecker: VatChecker = {
  async check(_country, vatNumber) {
    return !/^[A-Z]{2}0+$/.test(vatNumber);
  },
};

export const VIES_URL = "https://ec.europa.eu/taxation_customs/vies/rest-api/ms";
const VIES_TIMEOUT_MS = 8000;

/** The EU's VIES REST API: GET /ms/{country}/vat/{number} answers { isValid }. Never throws. */
export function viesVatChecker(logger: Logger, fetchFn: typeof fetch = fetch): VatChecker {
  return {
    async check(country, vatNumber) {
      const prefix = EU_VAT_FORMATS[country]!.prefix;
      const url = `${VIES_URL}/${prefix}/vat/${encodeURIComponent(vatNumber.slice(prefix.length))}`;
      try {
        const res = await fetchFn(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(VIES_TIMEOUT_MS) });
        if (!res.ok) {
          logger.warn(`VIES could not check a ${prefix} VAT number: HTTP ${res.status}; kept as unchecked.`);
          return null;
        }
        const answer = (await res.json()) as { isValid?: unknown; userError?: unknown };
        // VIES answers 200 with userError (e.g. MS_UNAVAILABLE) when a member state's register is down.
        if (typeof answer.isValid !== "boolean" || (answer.userError && answer.userError !== "VALID" && answer.userError !== "INVALID")) {
          logger.warn(`VIES could not check a ${prefix} VAT number: ${String(answer.userError ?? "no answer")}; kept as unchecked.`);
          return null;
        }
        return answer.isValid;
      } catch (error) {
        logger.warn(`VIES could not check a ${prefix} VAT number: ${error instanceof Error ? error.message : String(error)}; kept as unchecked.`);
        return null;
      }
    },
  };
}

export interface BillingDetailsInput {
  country: string;
  name: string;
  address?: string;
  vat_number?: string;
}

export interface BillingDetailsView {
  country: string;
  country_name: string;
  name: string;
  address: string | null;
  vat_number: string | null;
  vat_number_status: VatNumberStatus | null;
  updated_at: string;
}

/** Which check a VAT number gets: the stand-in in sandbox mode, VIES with VIES_CHECK=true, else none (format only). */
export function vatCheckerFor(config: { sandbox: boolean; viesCheck: boolean }, logger: Logger): VatChecker | null {
  if (config.sandbox) return sandboxVatChecker;
  return config.viesCheck ? viesVatChecker(logger) : null;
}

export async function billingDetailsOf(db: Database, userId: number): Promise<BillingDetailsView | null> {
  const row = await db.selectFrom("billing_details").selectAll().where("user_id", "=", userId).executeTakeFirst();
  if (!row) return null;
  return {
    country: row.country,
    country_name: countryName(row.country),
    name: row.name,
    address: row.address,
    vat_number: row.vat_number,
    vat_number_status: row.vat_number_status,
    updated_at: row.updated_at,
  };
}

/** Checks and saves the account's billing details; 422 with errors.fields.vat_number for a bad VAT number. */
export async function saveBillingDetails(
  deps: { db: Database; vat: VatChecker | null; now: Date },
  userId: number,
  input: BillingDetailsInput,
): Promise<BillingDetailsView> {
  let vatNumber: string | null = null;
  let status: VatNumberStatus | null = null;
  if (input.vat_number && isEuCountry(input.country)) {
    vatNumber = normaliseVatNumber(input.country, input.vat_number);
    if (!vatNumber) {
      throw new DomainError("validation_failed", BILLING_DETAILS_MESSAGES.vatFormat(input.country), {
        field: "vat_number",
        text: text("messages:billingDetails.vatFormat", {
          country: { country: input.country },
          prefix: EU_VAT_FORMATS[input.country]!.prefix,
          example: example(input.country),
        }),
      });
    }
    const registered = deps.vat ? await deps.vat.check(input.country, vatNumber) : null;
    if (registered === false) throw new DomainError("validation_failed", BILLING_DETAILS_MESSAGES.vatInvalid, { field: "vat_number" });
    status = registered ? "valid" : "unchecked";
  }
  const row = {
    country: input.country,
    name: input.name,
    address: input.address ?? null,
    vat_number: vatNumber,
    vat_number_status: status,
    updated_at: deps.now.toISOString(),
  };
  await deps.db
    .insertInto("billing_details")
    .values({ user_id: userId, ...row })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(row))
    .execute();
  return (await billingDetailsOf(deps.db, userId))!;
}

/**
 * Saves only the country (the checkout's "change country before paying", PUT /api/account/billing-country).
 * Without billing details yet, a row with the country and an empty name is made (invoices then name the
 * account's email, as without details). A VAT number of another country is dropped: it is that country's.
 */
export async function saveBillingCountry(deps: { db: Database; now: Date }, userId: number, country: string): Promise<BillingDetailsView> {
  const at = deps.now.toISOString();
  await deps.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom("billing_details").select(["country"]).where("user_id", "=", userId).executeTakeFirst();
    if (!row) {
      await trx
        .insertInto("billing_details")
        .values({ user_id: userId, country, name: "", address: null, vat_number: null, vat_number_status: null, updated_at: at })
        .onConflict((oc) => oc.column("user_id").doUpdateSet({ country, updated_at: at }))
        .execute();
    } else if (row.country !== country) {
      await trx
        .updateTable("billing_details")
        .set({ country, vat_number: null, vat_number_status: null, updated_at: at })
        .where("user_id", "=", userId)
        .execute();
    }
  });
  return (await billingDetailsOf(deps.db, userId))!;
}
