import { Link, useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Trans } from "~/i18n/trans";
import { Field } from "~/components/field";
import { DEFAULT_LANGUAGE, INTL_LOCALES, type Language } from "~/i18n/languages";
import { usePageLanguage } from "~/i18n/page-language";
import { billingDetailsHref } from "~/features/billing-details/messages";
import { COUNTRIES } from "~/utils/countries.generated";

// The checkout's 'Country' (issue 35), in the order summary: the tax follows it. Without JavaScript a
// small form whose 'Update' posts the country and the page comes back with the new quote (the coupon and
// the email step are the checkout's, on the server, and stay). With JavaScript a change posts it through
// a fetcher and the page's data reloads in place: no full reload, nothing else on the page touched.

export const COUNTRY_FORM = "country";
/** The fetcher's key, so the summary can say it is re-quoting. */
export const COUNTRY_FETCHER = "checkout-country";
/** The name 'Update' posts: it says the post is the country's whichever form carries it. */
export const COUNTRY_UPDATE = "update_country";

/**
 * Its options as HTML, made once per language: React would build, diff and write some 250 elements on
 * every checkout (issue 31). HTML needs no quotes around a code and no end tag of an option: a third
 * fewer bytes. English keeps the API's names in the API's order; the other languages name the countries
 * with Intl.DisplayNames (the API's name for a code Intl does not know) and sort them in their language.
 */
const OPTIONS_HTML = new Map<Language, string>();
const IN_THE_EU: ReadonlySet<string> = new Set(COUNTRIES.filter((c) => c.eu).map((c) => c.code));

function countryNames(language: Language): { code: string; name: string }[] {
  if (language === DEFAULT_LANGUAGE) return [...COUNTRIES];
  const locale = INTL_LOCALES[language];
  const display = new Intl.DisplayNames([locale], { type: "region", fallback: "code" });
  const collator = new Intl.Collator(locale);
  return COUNTRIES.map((c) => {
    const name = display.of(c.code);
    return { code: c.code, name: name && name !== c.code ? name : c.name };
  }).sort((a, b) => collator.compare(a.name, b.name));
}

function optionsHtmlOf(language: Language): string {
  let html = OPTIONS_HTML.get(language);
  if (html === undefined) {
    html = countryNames(language)
      .map((c) => `<option value=${c.code}>${escapeHtml(c.name)}`)
      .join("");
    OPTIONS_HTML.set(language, html);
  }
  return html;
}

/** The options with `code`'s selected: the page's choice without JavaScript (React marks no option of inner HTML). */
export function countryOptionsHtml(code: string, language: Language = DEFAULT_LANGUAGE): string {
  return optionsHtmlOf(language).replace(`<option value=${code}>`, `<option value=${code} selected>`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function CountryForm({
  country,
  error,
  offerVatNumber,
  withForm = null,
}: {
  country: string;
  error?: string | null;
  /** An account buying in an EU country, not reverse charged yet: where a business adds its VAT number. */
  offerVatNumber: boolean;
  /**
   * Without JavaScript, another form of the page that the select and 'Update' belong to (the visitor's email
   * form): 'Update' then posts what was typed there too, and the page comes back with it. With JavaScript
   * the fetcher posts the country alone and nothing else on the page is touched.
   */
  withForm?: string | null;
}) {
  const { t } = useTranslation("checkout");
  const { language } = usePageLanguage();
  const fetcher = useFetcher({ key: COUNTRY_FETCHER });
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const busy = fetcher.state !== "idle";
  const here = useLocation().pathname;
  const carriedBy = hydrated ? undefined : (withForm ?? undefined);
  // The select shows the customer's choice at once, and the server's country whenever it answers another
  // (a refusal, another tab). Not remounted: a keyboard user keeps the focus on it while it re-quotes.
  const [selected, setSelected] = useState(country);
  // The same HTML for the component's life (a new string would make React rewrite the options); the
  // select's value follows the choice.
  const [optionsHtml] = useState(() => countryOptionsHtml(country, language));
  const [answered, setAnswered] = useState(country);
  if (answered !== country) {
    setAnswered(country);
    setSelected(country);
  }
  return (
    <fetcher.Form method="post" className="country-form" aria-busy={busy || undefined}>
      <input type="hidden" name="intent" value={COUNTRY_FORM} />
      {hydrated ? <input type="hidden" name="js" value="1" /> : null}
      <Field label={<label htmlFor="checkout-country">{t("checkout.country.label")}</label>} errorId="checkout-country-error" errors={error ? [error] : undefined}>
        <select
          id="checkout-country"
          form={carriedBy}
          name="country"
          value={selected}
          autoComplete="country"
          aria-invalid={error ? true : undefined}
          aria-describedby="checkout-country-error"
          onChange={(event) => {
            setSelected(event.currentTarget.value);
            if (hydrated) fetcher.submit(event.currentTarget.form);
          }}
          // biome-ignore lint/security/noDangerouslySetInnerHtml: the API's country names, escaped above; the same string on the server and in the browser.
          dangerouslySetInnerHTML={{ __html: optionsHtml }}
        />
      </Field>
      {/* With JavaScript the change alone re-quotes; the button stays for the keyboard and as the form's submit. */}
      <button type="submit" className="button" disabled={busy} form={carriedBy} name={COUNTRY_UPDATE} value="1">
        {t("checkout.country.update")}
      </button>
      {offerVatNumber && IN_THE_EU.has(country) ? (
        <p className="muted country-form__vat">
          <Trans t={t} i18nKey="checkout.country.vatNumber" components={{ billing: <Link to={billingDetailsHref(here)} /> }} />
        </p>
      ) : null}
    </fetcher.Form>
  );
}
