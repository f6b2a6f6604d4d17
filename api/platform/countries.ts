/*
 * The countries of the billing details and of the tax (docs/decisions/060, 061): ISO 3166-1 alpha-2 codes, named in
 * English by Intl.DisplayNames, and the EU member states' VAT number formats. The one list: the API answers it
 * (GET /api/countries, GET /api/account/billing-details), and `npm run api:contract` writes it into the portal's
 * bundle (app/utils/countries.generated.ts) for its country selects.
 */

/** Every officially assigned ISO 3166-1 alpha-2 code. */
export const COUNTRY_CODES = [
  "AD", "AE", "AF", "AG", "AI", "AL", "AM", "AO", "AQ", "AR", "AS", "AT", "AU", "AW", "AX", "AZ",
  "BA", "BB", "BD", "BE", "BF", "BG", "BH", "BI", "BJ", "BL", "BM", "BN", "BO", "BQ", "BR", "BS", "BT", "BV", "BW", "BY", "BZ",
  "CA", "CC", "CD", "CF", "CG", "CH", "CI", "CK", "CL", "CM", "CN", "CO", "CR", "CU", "CV", "CW", "CX", "CY", "CZ",
  "DE", "DJ", "DK", "DM", "DO", "DZ", "EC", "EE", "EG", "EH", "ER", "ES", "ET", "FI", "FJ", "FK", "FM", "FO", "FR",
  "GA", "GB", "GD", "GE", "GF", "GG", "GH", "GI", "GL", "GM", "GN", "GP", "GQ", "GR", "GS", "GT", "GU", "GW", "GY",
  "HK", "HM", "HN", "HR", "HT", "HU", "ID", "IE", "IL", "IM", "IN", "IO", "IQ", "IR", "IS", "IT", "JE", "JM", "JO", "JP",
  "KE", "KG", "KH", "KI", "KM", "KN", "KP", "KR", "KW", "KY", "KZ", "LA", "LB", "LC", "LI", "LK", "LR", "LS", "LT", "LU", "LV", "LY",
  "MA", "MC", "MD", "ME", "MF", "MG", "MH", "MK", "ML", "MM", "MN", "MO", "MP", "MQ", "MR", "MS", "MT", "MU", "MV", "MW", "MX", "MY", "MZ",
  "NA", "NC", "NE", "NF", "NG", "NI", "NL", "NO", "NP", "NR", "NU", "NZ", "OM",
  "PA", "PE", "PF", "PG", "PH", "PK", "PL", "PM", "PN", "PR", "PS", "PT", "PW", "PY", "QA", "RE", "RO", "RS", "RU", "RW",
  "SA", "SB", "SC", "SD", "SE", "SG", "SH", "SI", "SJ", "SK", "SL", "SM", "SN", "SO", "SR", "SS", "ST", "SV", "SX", "SY", "SZ",
  "TC", "TD", "TF", "TG", "TH", "TJ", "TK", "TL", "TM", "TN", "TO", "TR", "TT", "TV", "TW", "TZ",
  "UA", "UG", "UM", "US", "UY", "UZ", "VA", "VC", "VE", "VG", "VI", "VN", "VU", "WF", "WS", "YE", "YT", "ZA", "ZM", "ZW",
] as const;

export type CountryCode = (typeof COUNTRY_CODES)[number];

const CODES: ReadonlySet<string> = new Set(COUNTRY_CODES);

export function isCountryCode(value: string): value is CountryCode {
  return CODES.has(value);
}

const names = new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });

/** The country's English name ('Germany'); the code itself if the runtime has no name for it. */
export function countryName(code: string): string {
  return names.of(code) ?? code;
}

/**
 * The EU member states' VAT numbers: the prefix (Greece's is EL, not GR) and the format after it,
 * as the Commission's VIES describes them. The check is of the format only; VIES says whether the
 * number is registered.
 */
export const EU_VAT_FORMATS: Readonly<Record<string, { prefix: string; pattern: RegExp }>> = {
  AT: { prefix: "AT", pattern: /^U\d{8}$/ },
  BE: { prefix: "BE", pattern: /^[01]\d{9}$/ },
  BG: { prefix: "BG", pattern: /^\d{9,10}$/ },
  CY: { prefix: "CY", pattern: /^\d{8}[A-Z]$/ },
  CZ: { prefix: "CZ", pattern: /^\d{8,10}$/ },
  DE: { prefix: "DE", pattern: /^\d{9}$/ },
  DK: { prefix: "DK", pattern: /^\d{8}$/ },
  EE: { prefix: "EE", pattern: /^\d{9}$/ },
  ES: { prefix: "ES", pattern: /^[A-Z0-9]\d{7}[A-Z0-9]$/ },
  FI: { prefix: "FI", pattern: /^\d{8}$/ },
  FR: { prefix: "FR", pattern: /^[A-HJ-NP-Z0-9]{2}\d{9}$/ },
  GR: { prefix: "EL", pattern: /^\d{9}$/ },
  HR: { prefix: "HR", pattern: /^\d{11}$/ },
  HU: { prefix: "HU", pattern: /^\d{8}$/ },
  IE: { prefix: "IE", pattern: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/ },
  IT: { prefix: "IT", pattern: /^\d{11}$/ },
  LT: { prefix: "LT", pattern: /^(\d{9}|\d{12})$/ },
  LU: { prefix: "LU", pattern: /^\d{8}$/ },
  LV: { prefix: "LV", pattern: /^\d{11}$/ },
  MT: { prefix: "MT", pattern: /^\d{8}$/ },
  NL: { prefix: "NL", pattern: /^\d{9}B\d{2}$/ },
  PL: { prefix: "PL", pattern: /^\d{10}$/ },
  PT: { prefix: "PT", pattern: /^\d{9}$/ },
  RO: { prefix: "RO", pattern: /^[1-9]\d{1,9}$/ },
  SE: { prefix: "SE", pattern: /^\d{10}01$/ },
  SI: { prefix: "SI", pattern: /^\d{8}$/ },
  SK: { prefix: "SK", pattern: /^\d{10}$/ },
};

export function isEuCountry(code: string): boolean {
  return Object.hasOwn(EU_VAT_FORMATS, code);
}

/**
 * A VAT number as typed, normalised: upper case, without spaces, dots or dashes, with the country's
 * prefix (added when the customer left it out). null when the format is not the country's.
 */
export function normaliseVatNumber(country: string, typed: string): string | null {
  const format = EU_VAT_FORMATS[country];
  if (!format) return null;
  let compact = typed.toUpperCase().replace(/[\s.-]/g, "");
  if (compact.startsWith(format.prefix)) compact = compact.slice(format.prefix.length);
  return format.pattern.test(compact) ? `${format.prefix}${compact}` : null;
}

/** The countries as the portal's select lists them: by English name. */
export function countryList(): { code: CountryCode; name: string; eu: boolean }[] {
  return COUNTRY_CODES.map((code) => ({ code, name: countryName(code), eu: isEuCountry(code) })).sort((a, b) =>
    a.name.localeCompare(b.name, "en"),
  );
}
