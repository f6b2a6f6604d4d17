import dayjs from "dayjs";
import utc from "dayjs/plugin/utc.js";

// Dates are shown in UTC, the zone the API stores them in, whatever the server's own zone is.
dayjs.extend(utc);

const DAY_MS = 24 * 60 * 60 * 1000;

/** 'DD MMMM, Y' of the spec, e.g. "21 November, 2026" (DESIGN §2). */
export function formatLongDate(value: string | Date): string {
  return dayjs.utc(value).format("DD MMMM, YYYY");
}

/** 'Mon DD, YYYY', e.g. "Nov 21, 2026". */
export function formatShortDate(value: string | Date): string {
  return dayjs.utc(value).format("MMM DD, YYYY");
}

/** Whole days until `expiry`, counting a started day as a day: 0 once it has passed. */
export function daysLeft(expiry: string | Date, now: Date): number {
  const remaining = new Date(expiry).getTime() - now.getTime();
  return remaining > 0 ? Math.ceil(remaining / DAY_MS) : 0;
}
