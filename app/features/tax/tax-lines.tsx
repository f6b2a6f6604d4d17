import { useTranslation } from "react-i18next";
import { useFormatters } from "~/i18n/use-formatters";
import { type Taxed, taxLabel, taxOf } from "./tax";

// The net and the tax line of an amount (issue 35), for a <dl> that then states the total: the order
// summary, the receipt. Nothing when the API answers no tax: the page is as it was without tax.

/** 'Net price' (a catalogue key: shown through `t`). */
export const NET_TERM = "checkout.tax.net";

export function TaxLines({ taxed }: { taxed: Taxed | null | undefined }) {
  const { t } = useTranslation("checkout");
  const { money, language } = useFormatters();
  const taxLine = taxOf(taxed);
  if (!taxLine) return null;
  return (
    <>
      <div className="tax-net">
        <dt>{t(NET_TERM)}</dt>
        <dd>{money(taxLine.net_cents)}</dd>
      </div>
      <div className="tax-line">
        <dt>{taxLabel(taxLine.tax, t, language)}</dt>
        <dd>{money(taxLine.tax.amount_cents)}</dd>
      </div>
    </>
  );
}
