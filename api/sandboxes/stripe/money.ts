import type { SbPrice } from "./objects";

/** "$107.76" (or "EUR 12.00" style for other currencies, via Intl). */
export function formatMoney(cents: number, currency: string): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(cents / 100);
}

/** "month", "3 months", "year": how often a price bills. */
export function intervalText(price: SbPrice): string {
  if (!price.recurring) return "one time";
  const { interval, interval_count: count } = price.recurring;
  return count === 1 ? interval : `${count} ${interval}s`;
}

/** "$11.99 / month", "$29.99 every 3 months", "$49.99" (one time). */
export function priceText(price: SbPrice): string {
  const amount = formatMoney(price.unit_amount, price.currency);
  if (!price.recurring) return amount;
  return price.recurring.interval_count === 1 ? `${amount} / ${intervalText(price)}` : `${amount} every ${intervalText(price)}`;
}
