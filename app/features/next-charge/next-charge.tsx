import type { NextChargeView } from "./next-charge.server";

/** 'Next charge: $9.99 on 26 December, 2026, Visa ending in 4242', or when the plan ends without renewing. */
export function NextCharge({ view }: { view: NextChargeView }) {
  if (!view) return null;
  if (view.kind === "ends") return <p className="next-charge">Auto-renewal is off: your plan ends on {view.date}.</p>;
  return (
    <p className="next-charge">
      <strong>Next charge:</strong> <span className="next-charge-amount">{view.amount}</span>
      {view.tax ? <span className="next-charge-tax"> ({view.tax})</span> : null} on{" "}
      <span className="next-charge-date">{view.date}</span>
      {view.card ? (
        <>
          , <span className="next-charge-card">{view.card}</span>
        </>
      ) : null}
    </p>
  );
}
