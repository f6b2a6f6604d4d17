import { formatCents } from "~/utils/plans";
import { type Taxed, taxOf } from "./tax";

// The net and the tax line of an amount (issue 35), for a <dl> that then states the total: the order
// summary, the receipt. Nothing when the API answers no tax: the page is as it was without tax.

export const NET_TERM = "Net price";

export function TaxLines({ taxed }: { taxed: Taxed | null | undefined }) {
  const taxLine = taxOf(taxed);
  if (!taxLine) return null;
  return (
    <>
      <div className="tax-net">
        <dt>{NET_TERM}</dt>
        <dd>{formatCents(taxLine.net_cents)}</dd>
      </div>
      <div className="tax-line">
        <dt>{taxLine.tax.label}</dt>
        <dd>{formatCents(taxLine.tax.amount_cents)}</dd>
      </div>
    </>
  );
}
