// The checkout's first guess at the buyer's country (issue 35) when the account has saved none: the
// region of the browser's preferred language (Accept-Language), else the United States. Only a guess:
// the buyer sees it in the order summary and can change it before paying. Pure, for the server.

/**
 * A language said alone ('de', no region) and the country it plainly belongs to. Languages spoken
 * across several countries with no clear first (Spanish, Portuguese, Arabic, Chinese, ...) are left
 * out: their buyer gets the United States and chooses. English alone is the United States.
 */
const LANGUAGE_COUNTRY: Readonly<Record<string, string>> = {
  bg: "BG",
  cs: "CZ",
  da: "DK",
  de: "DE",
  el: "GR",
  en: "US",
  et: "EE",
  fi: "FI",
  fr: "FR",
  ga: "IE",
  hr: "HR",
  hu: "HU",
  is: "IS",
  it: "IT",
  ja: "JP",
  ko: "KR",
  lt: "LT",
  lv: "LV",
  mt: "MT",
  nb: "NO",
  nl: "NL",
  nn: "NO",
  no: "NO",
  pl: "PL",
  ro: "RO",
  sk: "SK",
  sl: "SI",
  sv: "SE",
  tr: "TR",
  uk: "UA",
};

/** Where a buyer's country comes from when nothing else says it. */
export const DEFAULT_COUNTRY = "US";

/** The header's language tags, most preferred first (q=0 dropped; equal weights keep their order). */
function languageTags(header: string): string[] {
  return header
    .split(",")
    .slice(0, 32) // a header is short; a huge one is not read to its end
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.tag && entry.tag !== "*" && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The country of one language tag: its region subtag ('de-AT' → AT, 'zh-Hans-TW' → TW), else the
 * language's own country ('de' → DE). A numeric region ('es-419') names no country.
 */
export function countryOfLanguageTag(tag: string): string | null {
  const [language = "", ...rest] = tag.toLowerCase().split(/[-_]/);
  if (!/^[a-z]{2,3}$/.test(language)) return null;
  // BCP 47: language, then an optional script (4 letters), then the region (2 letters or 3 digits).
  const region = rest[0]?.length === 4 ? rest[1] : rest[0];
  if (region !== undefined && /^[a-z]{2}$/.test(region)) return region.toUpperCase();
  if (region !== undefined && /^\d{3}$/.test(region)) return null;
  return LANGUAGE_COUNTRY[language] ?? null;
}

/**
 * The country the browser's languages point to: the first preferred tag that names one the checkout
 * offers (`known`), or null when none does.
 */
export function countryFromAcceptLanguage(header: string | null | undefined, known: (code: string) => boolean = () => true): string | null {
  if (!header) return null;
  for (const tag of languageTags(header.slice(0, 1024))) {
    const country = countryOfLanguageTag(tag);
    if (country && known(country)) return country;
  }
  return null;
}

/**
 * The country the checkout offers when the buyer chose none there and the account saved none (the API
 * puts a saved one first: `default_country`): the browser's language's, else the United States.
 */
export function countryOfBrowser(acceptLanguage: string | null | undefined, known: (code: string) => boolean): string {
  return countryFromAcceptLanguage(acceptLanguage, known) ?? DEFAULT_COUNTRY;
}
