// Money as the product writes it, from cents: the one formatter of the API.

/** '107.76': cents as dollars with two decimals (the crypto payload's amount). */
export function twoDecimals(cents: number): string {
  return (Math.round(cents) / 100).toFixed(2);
}

/** Cents as the spec shows money: '$107.76'. */
export function formatUsd(cents: number): string {
  return `$${twoDecimals(cents)}`;
}

/** Cents as the spec's API shows money: a number of dollars with two decimals (1199 -> 11.99). */
export function dollars(cents: number): number {
  return Math.round(cents) / 100;
}
