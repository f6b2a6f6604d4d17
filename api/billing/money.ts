/** Cents as the spec shows money: '$107.76'. */
export function formatUsd(cents: number): string {
  return `$${(Math.round(cents) / 100).toFixed(2)}`;
}
