import type { Interval } from "./objects";

export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

function daysInMonthUtc(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/** Calendar months in UTC, clamping the day like dayjs (Jan 31 + 1 month = Feb 28). */
function addMonthsUtc(date: Date, months: number): Date {
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const day = Math.min(date.getUTCDate(), daysInMonthUtc(year, month));
  return new Date(
    Date.UTC(year, month, day, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
}

/** `count` × `interval` after `unix` (seconds). */
export function addInterval(unix: number, interval: Interval, count: number): number {
  switch (interval) {
    case "day":
      return unix + count * 86_400;
    case "week":
      return unix + count * 7 * 86_400;
    case "month":
      return unixSeconds(addMonthsUtc(new Date(unix * 1000), count));
    case "year":
      return unixSeconds(addMonthsUtc(new Date(unix * 1000), 12 * count));
  }
}

/** YYYY-MM-DD (UTC) of a unix time. */
export function isoDate(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}
